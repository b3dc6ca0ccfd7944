/** The `tool_result` message in the OpenAI Chat Completions format: one `role: 'tool'` message per call. */
import type { ToolResultMessage } from './messages.projection.js'

export interface OpenAIToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

/**
 * Converts the kernel's message into OpenAI tool messages, in the same order. Tool messages
 * carry text only: text parts are joined, and an image is replaced by a note saying it was left
 * out. Errors keep their text (OpenAI has no `is_error`; the text already says what failed).
 *
 * @example
 * messages.push(...toOpenAIToolMessages((await kernel.runTurn(openaiAssistantMessage)).message))
 */
export function toOpenAIToolMessages(message: ToolResultMessage): OpenAIToolMessage[] {
  return message.content.map((block) => ({
    role: 'tool',
    tool_call_id: block.tool_use_id,
    content:
      typeof block.content === 'string'
        ? block.content
        : block.content
            .map((part) =>
              part.type === 'text'
                ? part.text
                : `[image (${part.source.media_type}) left out: OpenAI tool messages carry text only]`,
            )
            .join('\n'),
  }))
}
