/**
 * The `tool_result` message in the OpenAI Responses format: one `function_call_output` input
 * item per call, paired by `call_id` (the id the kernel took from the `function_call` item).
 * Text stays text; a result with images becomes a list of `input_text` and `input_image` parts
 * (the image as a base64 data URL), which the Responses API takes in a function call's output.
 */
import type { ToolResultBlock } from '../events/event.schema.js'
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
 * Converts the kernel's message into Responses input items, in the same order. Errors keep their
 * text (the Responses API has no `is_error`; the text already says what failed).
 *
 * @example
 * const { message } = await kernel.runTurn(response)
 * const next = await client.responses.create({
 *   model, tools, previous_response_id: response.id, input: toResponsesInputItems(message),
 * })
 */
export function toResponsesInputItems(message: ToolResultMessage): ResponsesFunctionCallOutput[] {
  return message.content.map((block) => ({
    type: 'function_call_output',
    call_id: block.tool_use_id,
    output: outputOf(block.content),
  }))
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
