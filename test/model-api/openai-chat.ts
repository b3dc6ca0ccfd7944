/**
 * OpenAI Chat Completions on loopback (POST /v1/chat/completions): request checks with the API's
 * error shape (`{ error: { message, type, param, code } }`) and wording, and responses as the API
 * sends them — a `chat.completion`, or `chat.completion.chunk`s as `data:` lines ending in
 * `[DONE]`, with a usage-only last chunk (`choices: []`) under `stream_options.include_usage`.
 */
import { ApiError, sseBlock } from './http.js'
import { argumentsOf, fragments, stopOf, type Ids, type ScriptedTurn } from './script.js'
import { checkFunctionTool } from './strict-schema.js'

const MODEL = 'gpt-4.1-2025-04-14'
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool']

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

export function openAIError(message: string, param: string | null, code: string | null = null): ApiError {
  return new ApiError(400, { error: { message, type: 'invalid_request_error', param, code } })
}

/** Rejects a request the real API would reject: 400 with its `invalid_request_error` body. */
export function checkChatRequest(body: unknown): Json {
  if (!isObject(body)) throw openAIError('We could not parse the JSON body of your request.', null)
  if (typeof body.model !== 'string') throw openAIError('you must provide a model parameter', null)
  if (!Array.isArray(body.messages))
    throw openAIError("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter')
  if (body.stream_options !== undefined && body.stream !== true)
    throw openAIError("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options')
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw openAIError("Invalid type for 'tools': expected an array.", 'tools')
    body.tools.forEach((tool: unknown, i) => {
      if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function))
        throw openAIError(
          `Missing required parameter: 'tools[${i}].function'.`,
          `tools[${i}].function`,
          'missing_required_parameter',
        )
      checkFunctionTool(tool.function, `tools[${i}].function`)
    })
  }
  // Shapes first (the API validates the schema before it reads the conversation), then pairing.
  const messages = body.messages as unknown[]
  messages.forEach((message, i) => checkShape(message, i))
  messages.forEach((message, i) => checkPairing(messages, message as Json, i))
  return body
}

function checkShape(message: unknown, i: number): void {
  if (!isObject(message) || typeof message.role !== 'string' || !ROLES.includes(message.role))
    throw openAIError(
      `Invalid value: '${String(isObject(message) ? message.role : message)}'. Supported values are: ${ROLES.map((r) => `'${r}'`).join(', ')}.`,
      `messages[${i}].role`,
      'invalid_value',
    )
  if (message.role !== 'tool') return
  if (typeof message.tool_call_id !== 'string')
    throw openAIError(
      `Missing required parameter: 'messages[${i}].tool_call_id'.`,
      `messages[${i}].tool_call_id`,
      'missing_required_parameter',
    )
  checkToolContent(message.content, i)
}

function checkPairing(messages: readonly unknown[], message: Json, i: number): void {
  if (message.role === 'assistant') checkAnswered(messages, message, i)
  if (message.role !== 'tool') return
  // The tool message answers the nearest assistant message before the run of tool messages.
  let j = i - 1
  while (j >= 0 && isObject(messages[j]) && (messages[j] as Json).role === 'tool') j--
  const owner = messages[j]
  const calls =
    isObject(owner) && owner.role === 'assistant' && Array.isArray(owner.tool_calls) ? (owner.tool_calls as Json[]) : []
  if (calls.length === 0)
    throw openAIError(
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      `messages.[${i}].role`,
    )
  if (!calls.some((call) => call.id === message.tool_call_id))
    throw openAIError(
      `Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`,
      `messages.[${i}].tool_call_id`,
    )
}

/** Tool messages carry text: a string, or text parts (an image is refused as the API refuses it). */
function checkToolContent(content: unknown, i: number): void {
  if (typeof content === 'string') return
  if (!Array.isArray(content))
    throw openAIError(
      `Invalid type for 'messages[${i}].content': expected one of a string or array of objects.`,
      `messages[${i}].content`,
      'invalid_type',
    )
  for (const part of content as unknown[]) {
    if (isObject(part) && part.type === 'image_url')
      throw openAIError(
        `Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.`,
        `messages[${i}]`,
        'invalid_value',
      )
    if (!isObject(part) || part.type !== 'text' || typeof part.text !== 'string')
      throw openAIError(
        `Invalid value: '${isObject(part) ? String(part.type) : typeof part}'. Supported values are: 'text'.`,
        `messages[${i}].content[0].type`,
        'invalid_value',
      )
  }
}

/** An assistant message's tool_calls must each be answered by the tool messages right after it. */
function checkAnswered(messages: readonly unknown[], message: Json, i: number): void {
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : []
  if (calls.length === 0) return
  const answered = new Set<unknown>()
  for (let j = i + 1; j < messages.length && (messages[j] as Json).role === 'tool'; j++)
    answered.add((messages[j] as Json).tool_call_id)
  const missing = calls.map((c) => c.id).filter((id) => !answered.has(id))
  if (missing.length > 0)
    throw openAIError(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
      `messages.[${i + 1}].role`,
    )
}

const FINISH = { tool_use: 'tool_calls', end_turn: 'stop', max_tokens: 'length', refusal: 'content_filter' } as const

interface RenderedCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

function callsOf(turn: ScriptedTurn, ids: Ids): RenderedCall[] {
  return (turn.calls ?? []).map((call) => ({
    id: ids.next('call_'),
    type: 'function',
    function: { name: call.name, arguments: argumentsOf(call) },
  }))
}

const USAGE = {
  prompt_tokens: 1200,
  completion_tokens: 80,
  total_tokens: 1280,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
}

/** The whole `chat.completion` for `stream: false`. */
export function chatCompletion(turn: ScriptedTurn, ids: Ids): Json {
  const calls = callsOf(turn, ids)
  const message: Json = { role: 'assistant', content: turn.text ?? null, refusal: null, annotations: [] }
  if (calls.length > 0) message.tool_calls = calls
  return {
    id: ids.next('chatcmpl-'),
    object: 'chat.completion',
    created: 1764500000,
    model: MODEL,
    choices: [{ index: 0, message, logprobs: null, finish_reason: FINISH[stopOf(turn)] }],
    usage: USAGE,
    service_tier: 'default',
    system_fingerprint: 'fp_b3f1157249',
  }
}

/** The `data:` chunks for `stream: true`, ending in `[DONE]`. */
export function chatStream(turn: ScriptedTurn, ids: Ids, includeUsage: boolean): string[] {
  const id = ids.next('chatcmpl-')
  const chunk = (delta: Json, finish: string | null = null): Json => ({
    id,
    object: 'chat.completion.chunk',
    created: 1764500000,
    model: MODEL,
    system_fingerprint: 'fp_b3f1157249',
    service_tier: 'default',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  })
  const chunks: Json[] = [chunk({ role: 'assistant', content: turn.text === undefined ? null : '', refusal: null })]
  for (const piece of turn.text === undefined ? [] : fragments(turn.text)) chunks.push(chunk({ content: piece }))
  callsOf(turn, ids).forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }],
      }),
    )
    for (const piece of fragments(call.function.arguments))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
  })
  chunks.push(chunk({}, FINISH[stopOf(turn)]))
  if (includeUsage) chunks.push({ ...chunk({}), choices: [], usage: USAGE })
  return [...chunks.map((data) => sseBlock({ data })), sseBlock({ data: '[DONE]' })]
}
