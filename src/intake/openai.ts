/**
 * OpenAI Chat Completions streams onto the same intake: `tool_calls` deltas by index (the first
 * delta of a call carries its id and name, later ones fragments of `arguments`). A call is
 * complete when the next one begins or the choice finishes; `finish_reason` maps onto Anthropic
 * stop reasons, so `length` and `content_filter` void what has not started. Whole messages,
 * choices and completions are read in openai-message.ts (re-exported here).
 */
import { z } from 'zod'
import { StreamIntake, type IncomingToolUse } from './incoming.js'
import { parseToolInput } from './json-input.js'
import { cutOff } from './anthropic-stream.js'
import { assertDirected } from './misdirected.js'
import { stopReasonOf } from './openai-message.js'

export {
  isOpenAIMessage,
  openAIToolUses,
  stopReasonOf,
  type OpenAIAssistantMessage,
  type OpenAIChatChoice,
  type OpenAIChatCompletion,
  type OpenAIFunctionToolCall,
  type OpenAICustomToolCall,
} from './openai-message.js'

const ToolCallDelta = z.looseObject({
  index: z.number().int().nonnegative(),
  id: z.string().optional(),
  function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
})
const ChunkSchema = z.looseObject({
  choices: z.array(
    z.looseObject({
      index: z.number().int().optional(),
      delta: z
        .looseObject({
          tool_calls: z.array(ToolCallDelta).nullable().optional(),
          function_call: z.unknown().optional(),
        })
        .optional(),
      finish_reason: z.string().nullable().optional(),
    }),
  ),
})

interface OpenCall {
  id: string
  name: string
  ordinal: number
  fragments: string[]
}

export class OpenAIStreamIntake extends StreamIntake {
  readonly #calls = new Map<number, OpenCall>()
  #ordinal = 0

  /**
   * Takes one parsed chunk, or the `[DONE]` sentinel. Text, refusal and role deltas carry no
   * calls; a chunk with no choices (the usage chunk of `include_usage`, a filter-results chunk)
   * carries nothing for the kernel. Choices other than 0 (`n > 1`) are refused.
   */
  push(chunk: unknown): void {
    if (chunk === '[DONE]') {
      this.end(null)
      return
    }
    assertDirected(chunk, 'turn.pushOpenAI')
    const parsed = ChunkSchema.safeParse(chunk)
    if (!parsed.success) throw new TypeError(`malformed chat.completion.chunk: ${z.prettifyError(parsed.error)}`)
    const other = parsed.data.choices.find((c) => (c.index ?? 0) !== 0)
    if (other !== undefined) throw new TypeError(severalChoices(other.index ?? 0))
    const choice = parsed.data.choices[0]
    if (choice === undefined) return
    if (this.ended) throw new TypeError('chat.completion.chunk after the message ended')
    if (choice.delta?.function_call !== undefined && choice.delta.function_call !== null)
      throw new TypeError(
        'chat.completion.chunk with a function_call delta (the deprecated functions API): toolkernel answers tool calls; pass kernel.apiTools() as `tools` instead of `functions`',
      )
    for (const delta of choice.delta?.tool_calls ?? []) this.#delta(delta)
    if (choice.finish_reason !== undefined && choice.finish_reason !== null)
      this.end(stopReasonOf(choice.finish_reason))
  }

  /** Hands on the calls still open (complete if their JSON is, cut off otherwise), and takes no more chunks. */
  override close(stopReason: string | null, detail?: string): void {
    this.ended = true
    for (const index of [...this.#calls.keys()].sort((a, b) => a - b)) this.#complete(index, stopReason, detail)
  }

  #delta(delta: z.infer<typeof ToolCallDelta>): void {
    let call = this.#calls.get(delta.index)
    if (call === undefined) {
      if (delta.id === undefined || delta.function?.name === undefined) {
        throw new TypeError(`tool_calls[${delta.index}]: the first delta of a call needs an id and function.name`)
      }
      // A new call begins: every earlier one is complete.
      for (const index of [...this.#calls.keys()].sort((a, b) => a - b))
        if (index < delta.index) this.#complete(index, 'tool_use')
      call = { id: delta.id, name: delta.function.name, ordinal: this.#ordinal++, fragments: [] }
      this.#calls.set(delta.index, call)
    }
    if (delta.function?.arguments !== undefined) call.fragments.push(delta.function.arguments)
  }

  #complete(index: number, stopReason: string | null, detail?: string): void {
    const call = this.#calls.get(index)
    if (call === undefined) return
    this.#calls.delete(index)
    const parsed = parseToolInput(call.fragments.join(''))
    const block: IncomingToolUse = { id: call.id, name: call.name, index: call.ordinal, ...parsed }
    if (parsed.inputError !== undefined && stopReason !== 'tool_use') block.inputError = cutOff(stopReason, detail)
    this.sink.toolUse(block)
  }
}

function severalChoices(index: number): string {
  return `chat.completion.chunk for choice ${index}: the stream carries several choices (n > 1), and a turn answers the calls of one message; request n: 1, or collect the stream and pass the choice you keep to kernel.runTurn(choice)`
}
