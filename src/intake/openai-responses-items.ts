/**
 * OpenAI Responses API values in, whole: a `Response`, or its `output` array. The calls are the
 * `function_call` items and the client-executed `tool_search_call` items (ToolSearch), paired by
 * `call_id` (the item's own `id`, `fc_…`, is not what the output item names). A response that
 * did not complete voids its calls the way a cut-off Anthropic message does. The public types
 * are structural with no index signature, so the SDK's `Response` and `ResponseOutputItem[]` fit
 * them as they are.
 */
import { z } from 'zod'
import type { IncomingToolUse } from './incoming.js'
import { parseToolInput } from './json-input.js'
import { cutOff } from './anthropic-stream.js'

/** A `function_call` output item (`ResponseFunctionToolCall` fits). */
export interface ResponsesFunctionCall {
  readonly type: 'function_call'
  /** The id the model pairs the output with (`call_…`). */
  readonly call_id: string
  readonly name: string
  readonly arguments: string
  readonly id?: string | undefined
  readonly status?: 'in_progress' | 'completed' | 'incomplete' | undefined
}

/** An output item: a function call, or any other item (message, reasoning, hosted tool calls). */
export type ResponsesOutputItem = ResponsesFunctionCall | object

/** A Responses API response (`Response` from `openai` fits). */
export interface OpenAIResponse {
  readonly object: 'response'
  readonly output: readonly ResponsesOutputItem[]
  readonly status?: string | null | undefined
  readonly incomplete_details?: { readonly reason?: string | undefined } | null | undefined
  readonly error?: { readonly code: string; readonly message: string } | null | undefined
}

export const FunctionCallSchema = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1, 'a function_call needs a call_id'),
  name: z.string(),
  arguments: z.string(),
  status: z.string().optional(),
})
const ItemSchema = z.looseObject({ type: z.string() })
const ResponseSchema = z.looseObject({
  output: z.array(ItemSchema),
  status: z.string().nullable().optional(),
  incomplete_details: z.looseObject({ reason: z.string().optional() }).nullable().optional(),
  error: z
    .looseObject({ code: z.string().nullable().optional(), message: z.string().optional() })
    .nullable()
    .optional(),
})

export interface ResponsesCalls {
  uses: IncomingToolUse[]
  stopReason: string | null
}

/** The Anthropic stop reason of a response that ended incomplete. */
export function incompleteStopReason(reason: string | undefined): string {
  return reason === 'max_output_tokens' ? 'max_tokens' : reason === 'content_filter' ? 'refusal' : 'incomplete'
}

/** How a failed response explains itself. */
export function failureDetail(
  error: { code?: string | null | undefined; message?: string | undefined } | null | undefined,
): string {
  const code = error?.code ?? 'error'
  return `the response failed: ${code}${error?.message !== undefined ? ` (${error.message})` : ''}`
}

/** One `function_call` item as a call; `index` is its position among the calls. */
export function functionCallUse(item: unknown, index: number, where: string): IncomingToolUse {
  const parsed = FunctionCallSchema.safeParse(item)
  if (!parsed.success)
    throw new TypeError(`${where} is a function_call the kernel cannot answer: ${z.prettifyError(parsed.error)}`)
  const { call_id: id, name, arguments: text, status } = parsed.data
  const use: IncomingToolUse = { id, name, index, ...parseToolInput(text) }
  // An item the API itself marks incomplete was cut off, even if its JSON happens to parse.
  if (status === 'incomplete')
    use.inputError = 'it was cut off before the JSON was complete — the item is marked incomplete'
  return use
}

/**
 * A call of a failed response: answered as cut off by the failure, so its result names the
 * response's error (the reason is recorded with the call, so replay gives the same text).
 */
function failedUse(use: IncomingToolUse, error: Parameters<typeof failureDetail>[0]): IncomingToolUse {
  return { ...use, inputError: cutOff('error', failureDetail(error)) }
}

/**
 * The name a client `tool_search_call` runs as: the kernel's ToolSearch, which the Responses
 * format sends as the API's client-executed `tool_search` (kept here as text: the intake does not
 * import the tools).
 */
export const RESPONSES_TOOL_SEARCH = 'ToolSearch'

const ToolSearchCallSchema = z.looseObject({
  type: z.literal('tool_search_call'),
  call_id: z.string().min(1).nullable().optional(),
  execution: z.enum(['client', 'server']).optional(),
  arguments: z.unknown(),
  status: z.string().nullable().optional(),
})

/**
 * One `tool_search_call` item as a ToolSearch call, or undefined when the API ran the search
 * itself (`execution: 'server'`: its `tool_search_output` is in the response already). The
 * arguments are an object as the API sends them, or JSON text.
 */
export function toolSearchCallUse(item: unknown, index: number, where: string): IncomingToolUse | undefined {
  const parsed = ToolSearchCallSchema.safeParse(item)
  if (!parsed.success)
    throw new TypeError(`${where} is a tool_search_call the kernel cannot read: ${z.prettifyError(parsed.error)}`)
  const { call_id: id, execution, arguments: args, status } = parsed.data
  if (execution === 'server') return undefined
  if (typeof id !== 'string')
    throw new TypeError(
      `${where} is a client tool_search_call without a call_id: its tool_search_output could not name it; pass the item as the API returned it`,
    )
  const input = typeof args === 'string' ? parseToolInput(args) : { input: args ?? {} }
  const use: IncomingToolUse = { id, name: RESPONSES_TOOL_SEARCH, index, ...input }
  if (status === 'incomplete')
    use.inputError = 'it was cut off before its arguments were complete — the item is marked incomplete'
  return use
}

/** A function call or a client tool search call: the items the kernel answers (others are not its). */
export function callUse(item: { type: string }, index: number, where: string): IncomingToolUse | undefined {
  if (item.type === 'function_call') return functionCallUse(item, index, where)
  if (item.type === 'tool_search_call') return toolSearchCallUse(item, index, where)
  return undefined
}

/** Custom tool calls need an answer toolkernel cannot give (its tools take JSON). */
export function refuseCustom(type: string, where: string): void {
  if (type === 'custom_tool_call')
    throw new TypeError(
      `${where} is a custom_tool_call: toolkernel runs function tools (JSON arguments); answer custom tool calls yourself and pass the kernel the function calls only`,
    )
}

/** The calls of an output array: `function_call` items in order; other items are not the kernel's. */
export function outputCalls(output: unknown, where = 'output'): IncomingToolUse[] {
  const items = z.array(ItemSchema).safeParse(output)
  if (!items.success)
    throw new TypeError(`runTurn expects a Responses output array of items: ${z.prettifyError(items.error)}`)
  const uses: IncomingToolUse[] = []
  items.data.forEach((item, i) => {
    refuseCustom(item.type, `${where}[${i}]`)
    const use = callUse(item, uses.length, `${where}[${i}]`)
    if (use !== undefined) uses.push(use)
  })
  return uses
}

/** The calls of a whole response, and the stop reason its status gives. */
export function responseCalls(response: unknown): ResponsesCalls {
  const parsed = ResponseSchema.safeParse(response)
  if (!parsed.success)
    throw new TypeError(`runTurn expects a Responses API response { output: [...] }: ${z.prettifyError(parsed.error)}`)
  const { status, incomplete_details: incomplete, error } = parsed.data
  const uses = outputCalls(parsed.data.output, 'response.output')
  const state = status ?? (hasValue(error) ? 'failed' : hasValue(incomplete) ? 'incomplete' : 'completed')
  switch (state) {
    case 'completed':
      return { uses, stopReason: uses.length > 0 ? 'tool_use' : 'end_turn' }
    case 'incomplete':
      return { uses, stopReason: incompleteStopReason(incomplete?.reason) }
    case 'failed':
      return { uses: uses.map((use) => failedUse(use, error)), stopReason: 'error' }
    case 'in_progress':
    case 'queued':
      throw new TypeError(
        `runTurn got a response that is still ${state}: its output is not final; pass it once its status is completed, incomplete or failed (await the call, or poll responses.retrieve)`,
      )
    default:
      return { uses, stopReason: state }
  }
}

const hasValue = (value: unknown): boolean => value !== null && value !== undefined
