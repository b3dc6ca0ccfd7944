/**
 * The `tool_result` message in the OpenAI Responses format: one `function_call_output` input
 * item per call, paired by `call_id` (the id the kernel took from the `function_call` item), and
 * a `tool_search_output` for each client `tool_search_call` (ToolSearch).
 * Text stays text; a result with images becomes a list of `input_text` and `input_image` parts
 * (the image as a base64 data URL), which the Responses API takes in a function call's output.
 */
import type { KernelEvent, ToolResultBlock } from '../events/event.schema.js'
import { partText } from './openai.projection.js'
import type { ToolResultMessage } from './messages.projection.js'

export interface ResponsesInputText {
  type: 'input_text'
  text: string
}
export interface ResponsesInputImage {
  type: 'input_image'
  /** `data:<media type>;base64,<data>` */
  image_url: string
}

/** A `function_call_output` item (assignable to the SDK's `ResponseInputItem.FunctionCallOutput`). */
export interface ResponsesFunctionCallOutput {
  type: 'function_call_output'
  call_id: string
  output: string | Array<ResponsesInputText | ResponsesInputImage>
}

/**
 * A function tool as a `tool_search_output` carries it (assignable to the SDK's `FunctionTool`):
 * what ToolSearch found, as `apiTools({ format: 'openai-responses' })` sends a tool.
 */
export interface ResponsesFunctionToolParam {
  type: 'function'
  name: string
  description?: string
  parameters: Record<string, unknown> | null
  strict: boolean | null
  defer_loading?: boolean
}

/**
 * The answer to a client-executed `tool_search_call` (assignable to the SDK's
 * `ResponseToolSearchOutputItemParam`): the function tools ToolSearch loaded. A search that found
 * nothing or failed loads none; the API has no text for it, and a `function_call_output` would
 * name no function call (the API rejects the request).
 */
export interface ResponsesToolSearchOutput {
  type: 'tool_search_output'
  call_id: string
  execution: 'client'
  tools: ResponsesFunctionToolParam[]
}

export type ResponsesToolOutputItem = ResponsesFunctionCallOutput | ResponsesToolSearchOutput

/** A turn's result as `runTurn` returns it: the message, and the events that say which call was which tool. */
export interface ResponsesTurn {
  message: ToolResultMessage
  events: readonly KernelEvent[]
}

/** The kernel's ToolSearch, which the Responses format sends as the API's client `tool_search`. */
const TOOL_SEARCH = 'ToolSearch'

/**
 * Converts the kernel's message into Responses input items, in the same order. Errors keep their
 * text (the Responses API has no `is_error`; the text already says what failed). Given the whole
 * turn result (message and events), ToolSearch's calls — the API's `tool_search_call` items —
 * are answered with `tool_search_output` items; given the message alone, every result is a
 * `function_call_output` (right for a pool without deferred tools).
 *
 * @example
 * const result = await kernel.runTurn(response)
 * const next = await client.responses.create({
 *   model, tools: kernel.apiTools({ format: 'openai-responses' }), previous_response_id: response.id,
 *   input: toResponsesInputItems(result),
 * })
 */
export function toResponsesInputItems(turn: ResponsesTurn): ResponsesToolOutputItem[]
export function toResponsesInputItems(message: ToolResultMessage): ResponsesFunctionCallOutput[]
export function toResponsesInputItems(turn: ToolResultMessage | ResponsesTurn): ResponsesToolOutputItem[] {
  const message = 'events' in turn ? turn.message : turn
  const searches = new Set<string>()
  if ('events' in turn)
    for (const e of turn.events) if (e.type === 'tool.requested' && e.name === TOOL_SEARCH) searches.add(e.toolUseId)
  return message.content.map((block) =>
    searches.has(block.tool_use_id)
      ? { type: 'tool_search_output', call_id: block.tool_use_id, execution: 'client', tools: foundTools(block) }
      : { type: 'function_call_output', call_id: block.tool_use_id, output: outputOf(block.content) },
  )
}

/** The function tools of ToolSearch's Responses result (JSON text of their definitions); none for an error. */
function foundTools(block: ToolResultBlock): ResponsesFunctionToolParam[] {
  if (block.is_error === true || typeof block.content !== 'string') return []
  let parsed: unknown
  try {
    parsed = JSON.parse(block.content)
  } catch {
    return []
  }
  return Array.isArray(parsed) ? parsed.filter(isFunctionTool) : []
}

function isFunctionTool(value: unknown): value is ResponsesFunctionToolParam {
  if (value === null || typeof value !== 'object') return false
  const tool = value as Record<string, unknown>
  return (
    tool.type === 'function' &&
    typeof tool.name === 'string' &&
    (tool.parameters === null || (typeof tool.parameters === 'object' && !Array.isArray(tool.parameters))) &&
    (tool.strict === null || typeof tool.strict === 'boolean')
  )
}

function outputOf(content: ToolResultBlock['content']): ResponsesFunctionCallOutput['output'] {
  if (typeof content === 'string') return content
  if (!content.some((part) => part.type === 'image')) return content.map(partText).join('\n')
  return content.map((part) =>
    part.type === 'image'
      ? { type: 'input_image', image_url: `data:${part.source.media_type};base64,${part.source.data}` }
      : { type: 'input_text', text: partText(part) },
  )
}
