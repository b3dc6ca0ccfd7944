/**
 * The OpenAI Responses API on loopback (POST /v1/responses): request checks with the API's error
 * shape and wording (a `function_call_output` whose call_id matches no `function_call`, a
 * `function_call` left without output), `previous_response_id` over stored responses, and
 * responses as the API sends them — a `response` object, or the `response.*` event stream
 * (created, in_progress, output_item.added, output_text.delta/done, function_call_arguments
 * .delta/done, output_item.done, completed or incomplete), each event with its sequence_number.
 */
import { sseBlock } from './http.js'
import { openAIError } from './openai-chat.js'
import { argumentsOf, fragments, stopOf, type Ids, type ScriptedTurn } from './script.js'
import { checkFunctionTool } from './strict-schema.js'

const MODEL = 'gpt-4.1-2025-04-14'
type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The conversation items of stored responses (input and output), for `previous_response_id`. */
export type ResponseStore = Map<string, Json[]>

/** Rejects what the real API rejects; returns the whole conversation the request stands for. */
export function checkResponsesRequest(body: unknown, store: ResponseStore): { body: Json; context: Json[] } {
  if (!isObject(body)) throw openAIError('We could not parse the JSON body of your request.', null)
  if (typeof body.model !== 'string')
    throw openAIError("Missing required parameter: 'model'.", 'model', 'missing_required_parameter')
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools))
      throw openAIError("Invalid type for 'tools': expected an array.", 'tools', 'invalid_type')
    body.tools.forEach((tool: unknown, i) => {
      if (isObject(tool) && tool.type === 'function') checkFunctionTool(tool, `tools[${i}]`)
    })
  }
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input
  if (!Array.isArray(input))
    throw openAIError("Missing required parameter: 'input'.", 'input', 'missing_required_parameter')
  let earlier: Json[] = []
  if (body.previous_response_id !== undefined) {
    const stored = store.get(String(body.previous_response_id))
    if (stored === undefined)
      throw openAIError(
        `Previous response with id '${String(body.previous_response_id)}' not found.`,
        'previous_response_id',
      )
    earlier = stored
  }
  input.forEach((item: unknown, i) => checkItem(item, i))
  const context = [...earlier, ...(input as Json[])]
  checkPairing(context)
  return { body, context }
}

function checkItem(item: unknown, i: number): void {
  if (!isObject(item))
    throw openAIError(`Invalid type for 'input[${i}]': expected an object.`, `input[${i}]`, 'invalid_type')
  if (item.type === 'function_call') {
    for (const key of ['call_id', 'name', 'arguments'])
      if (typeof item[key] !== 'string')
        throw openAIError(
          `Missing required parameter: 'input[${i}].${key}'.`,
          `input[${i}].${key}`,
          'missing_required_parameter',
        )
  } else if (item.type === 'function_call_output') {
    if (typeof item.call_id !== 'string')
      throw openAIError(
        `Missing required parameter: 'input[${i}].call_id'.`,
        `input[${i}].call_id`,
        'missing_required_parameter',
      )
    checkOutput(item.output, i)
  } else if (item.type === undefined || item.type === 'message') {
    if (!['user', 'assistant', 'system', 'developer'].includes(String(item.role)))
      throw openAIError(
        `Invalid value: '${String(item.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
        `input[${i}].role`,
        'invalid_value',
      )
  }
}

function checkOutput(output: unknown, i: number): void {
  if (typeof output === 'string') return
  if (!Array.isArray(output))
    throw openAIError(
      `Invalid type for 'input[${i}].output': expected one of a string or array of objects.`,
      `input[${i}].output`,
      'invalid_type',
    )
  for (const [k, part] of (output as unknown[]).entries()) {
    const type = isObject(part) ? part.type : undefined
    if (type !== 'input_text' && type !== 'input_image' && type !== 'input_file')
      throw openAIError(
        `Invalid value: '${String(type)}'. Supported values are: 'input_text', 'input_image', and 'input_file'.`,
        `input[${i}].output[${k}].type`,
        'invalid_value',
      )
  }
}

/** Each output answers a call made before it; each call is answered somewhere after it. */
function checkPairing(context: readonly Json[]): void {
  const calls = new Set<string>()
  const answered = new Set<string>()
  for (const item of context) {
    if (item.type === 'function_call') calls.add(item.call_id as string)
    if (item.type === 'function_call_output') {
      const id = item.call_id as string
      if (!calls.has(id)) throw openAIError(`No tool call found for function call output with call_id ${id}.`, 'input')
      answered.add(id)
    }
  }
  for (const id of calls)
    if (!answered.has(id)) throw openAIError(`No tool output found for function call ${id}.`, 'input')
}

/** The output items of a scripted turn. */
function outputOf(turn: ScriptedTurn, ids: Ids): Json[] {
  const items: Json[] = []
  if (turn.text !== undefined)
    items.push({
      id: ids.next('msg_', 48),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', annotations: [], logprobs: [], text: turn.text }],
    })
  for (const call of turn.calls ?? [])
    items.push({
      id: ids.next('fc_', 48),
      type: 'function_call',
      status: 'completed',
      arguments: argumentsOf(call),
      call_id: ids.next('call_'),
      name: call.name,
    })
  return items
}

const INCOMPLETE = { max_tokens: 'max_output_tokens', refusal: 'content_filter' } as const

/** The `response` object (for `stream: false`, and inside response.completed). */
export function responseObject(turn: ScriptedTurn, ids: Ids, request: Json): Json {
  const stop = stopOf(turn)
  const incomplete = stop === 'max_tokens' || stop === 'refusal'
  return {
    id: ids.next('resp_', 48),
    object: 'response',
    created_at: 1764500000,
    status: incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: incomplete ? { reason: INCOMPLETE[stop] } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: MODEL,
    output: outputOf(turn, ids),
    parallel_tool_calls: true,
    previous_response_id: request.previous_response_id ?? null,
    store: request.store ?? true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: request.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage: {
      input_tokens: 1200,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 80,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 1280,
    },
    metadata: {},
  }
}

/** The `response.*` event stream for `stream: true`. */
export function responsesStream(response: Json): string[] {
  let seq = 0
  const events: Json[] = []
  const emit = (type: string, fields: Json): void => void events.push({ type, sequence_number: seq++, ...fields })
  const pending = { ...response, status: 'in_progress', output: [], usage: null, incomplete_details: null }
  emit('response.created', { response: pending })
  emit('response.in_progress', { response: pending })
  ;(response.output as Json[]).forEach((item, output_index) => {
    const item_id = item.id
    if (item.type === 'function_call') {
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } })
      for (const delta of fragments(item.arguments as string))
        emit('response.function_call_arguments.delta', { item_id, output_index, delta })
      emit('response.function_call_arguments.done', {
        item_id,
        output_index,
        name: item.name,
        arguments: item.arguments,
      })
    } else {
      const part = (item.content as Json[])[0] as Json
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } })
      emit('response.content_part.added', { item_id, output_index, content_index: 0, part: { ...part, text: '' } })
      for (const delta of fragments(part.text as string))
        emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] })
      emit('response.output_text.done', { item_id, output_index, content_index: 0, text: part.text, logprobs: [] })
      emit('response.content_part.done', { item_id, output_index, content_index: 0, part })
    }
    emit('response.output_item.done', { output_index, item })
  })
  emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response })
  return events.map((data) => sseBlock({ event: data.type as string, data }))
}
