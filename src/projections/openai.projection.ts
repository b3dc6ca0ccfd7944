/** The `tool_result` message in the OpenAI Chat Completions format: one `role: 'tool'` message per call. */
import type { ToolResultBlock } from '../events/event.schema.js'
import type { ToolResultMessage } from './messages.projection.js'

/** A tool message (assignable to the SDK's `ChatCompletionToolMessageParam`). */
export interface OpenAIToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

/**
 * Converts the kernel's message into OpenAI tool messages, in the same order. Tool messages
 * carry text only: text parts are joined, an image is replaced by a note saying it was left out,
 * and a tool reference (Anthropic's deferred-tool loading) names the tool loaded. Errors keep
 * their text (OpenAI has no `is_error`; the text already says what failed).
 *
 * @example
 * const { message } = await kernel.runTurn(completion)
 * messages.push(completion.choices[0].message, ...toOpenAIToolMessages(message))
 */
export function toOpenAIToolMessages(message: ToolResultMessage): OpenAIToolMessage[] {
  return message.content.map((block) => ({
    role: 'tool',
    tool_call_id: block.tool_use_id,
    content: typeof block.content === 'string' ? block.content : block.content.map(partText).join('\n'),
  }))
}

/** The text a content part stands for where only text can go. */
export function partText(part: Exclude<ToolResultBlock['content'], string>[number]): string {
  switch (part.type) {
    case 'text':
      return part.text
    case 'image':
      return `[image (${part.source.media_type}) left out: OpenAI tool messages carry text only]`
    case 'tool_reference':
      return `[tool ${part.tool_name} is loaded: you can call it now]`
  }
}
