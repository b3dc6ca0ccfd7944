/**
 * The kernel's `tool_result` blocks as the AI SDK's tool message: one `tool-result` part per
 * call, in `tool_use` order, with the output type the AI SDK's providers map onto each API
 * (`text`, `error-text`, or `content` with text and image parts).
 */
import type { ToolModelMessage } from 'ai'
import type { ToolResultBlock } from '../events/event.schema.js'
import type { ToolResultMessage } from '../projections/messages.projection.js'

type ToolResultPart = Extract<ToolModelMessage['content'][number], { type: 'tool-result' }>
type Output = ToolResultPart['output']
type ContentPart = Extract<Output, { type: 'content' }>['value'][number]

/**
 * The AI SDK tool message answering `message`'s calls; `names` gives each call's tool name (the
 * AI SDK wants it, the Anthropic format does not carry it). An empty message gives no tool
 * message at all: the AI SDK (and the APIs) refuse a tool message without parts.
 */
export function toToolModelMessages(
  message: ToolResultMessage,
  names: ReadonlyMap<string, string>,
): ToolModelMessage[] {
  if (message.content.length === 0) return []
  const content = message.content.map((block): ToolResultPart => ({
    type: 'tool-result',
    toolCallId: block.tool_use_id,
    toolName: names.get(block.tool_use_id) ?? '',
    output: outputOf(block),
  }))
  return [{ role: 'tool', content }]
}

function outputOf(block: ToolResultBlock): Output {
  const parts = typeof block.content === 'string' ? undefined : block.content.map(partOf)
  const text =
    typeof block.content === 'string'
      ? block.content
      : (parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n')
  if (block.is_error === true) return { type: 'error-text', value: text }
  // Text alone stays text: every provider takes it, and it reads the same in a log.
  if (parts === undefined || parts.every((part) => part.type === 'text')) return { type: 'text', value: text }
  return { type: 'content', value: parts }
}

function partOf(part: Exclude<ToolResultBlock['content'], string>[number]): ContentPart {
  if (part.type === 'text') return { type: 'text', text: part.text }
  if (part.type === 'image') return { type: 'image-data', data: part.source.data, mediaType: part.source.media_type }
  // A ToolSearch reference expands into the tool's definition on the Anthropic API only; the AI
  // SDK gets every tool's full schema (aiSdkTools), so the model only needs to know it is loaded.
  return { type: 'text', text: `Tool ${part.tool_name} is loaded; call it directly.` }
}
