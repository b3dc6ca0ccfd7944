/**
 * OpenAI Chat Completions onto the same intake: streamed `tool_calls` deltas (by index: the
 * first delta of a call carries its id and name, later ones fragments of `arguments`), and
 * whole assistant messages with `tool_calls`. A call is complete when the next one begins or the
 * choice finishes. `finish_reason` maps onto Anthropic stop reasons.
 */
import { z } from 'zod'
import { StreamIntake, type IncomingToolUse } from './incoming.js'
import { parseToolInput } from './json-input.js'
import { cutOff } from './anthropic-stream.js'

const ToolCallDelta = z.looseObject({
  index: z.number().int().nonnegative(),
  id: z.string().optional(),
  function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
})
const ChunkSchema = z.looseObject({
  choices: z.array(
    z.looseObject({
      index: z.number().int().optional(),
      delta: z.looseObject({ tool_calls: z.array(ToolCallDelta).nullable().optional() }).optional(),
      finish_reason: z.string().nullable().optional(),
    }),
  ),
})

// A Map: finish_reason is the wire's text, and `constructor` must not find Object's.
const STOP_REASONS = new Map<string, string>([
  ['tool_calls', 'tool_use'],
  ['function_call', 'tool_use'],
  ['stop', 'end_turn'],
  ['length', 'max_tokens'],
  ['content_filter', 'refusal'],
])

/** The Anthropic stop reason for an OpenAI `finish_reason`. */
export function stopReasonOf(finishReason: string): string {
  return STOP_REASONS.get(finishReason) ?? finishReason
}

interface OpenCall {
  id: string
  name: string
  ordinal: number
  fragments: string[]
}

export class OpenAIStreamIntake extends StreamIntake {
  readonly #calls = new Map<number, OpenCall>()
  #ordinal = 0

  /** Takes one parsed chunk, or the `[DONE]` sentinel. Only choice 0 is read. */
  push(chunk: unknown): void {
    if (chunk === '[DONE]') {
      this.end(null)
      return
    }
    const parsed = ChunkSchema.safeParse(chunk)
    if (!parsed.success) throw new TypeError(`malformed chat.completion.chunk: ${z.prettifyError(parsed.error)}`)
    const choice = parsed.data.choices.find((c) => (c.index ?? 0) === 0)
    // A chunk without choice 0 carries nothing for us: the usage chunk that `include_usage`
    // sends after the one with finish_reason is one.
    if (choice === undefined) return
    if (this.ended) throw new TypeError('chat.completion.chunk after the message ended')
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

const AssistantSchema = z.looseObject({
  role: z.literal('assistant'),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string().min(1),
        type: z.literal('function').optional(),
        function: z.looseObject({ name: z.string(), arguments: z.string() }),
      }),
    )
    .nullable()
    .optional(),
  finish_reason: z.string().optional(),
})

/** An OpenAI assistant message with `tool_calls`. */
export type OpenAIAssistantMessage = z.input<typeof AssistantSchema>

export function isOpenAIMessage(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'tool_calls' in message
}

/** The tool calls of an OpenAI assistant message, with `arguments` parsed. */
export function openAIToolUses(message: unknown): IncomingToolUse[] {
  const parsed = AssistantSchema.safeParse(message)
  if (!parsed.success)
    throw new TypeError(`runTurn expects an OpenAI assistant message with tool_calls: ${z.prettifyError(parsed.error)}`)
  return (parsed.data.tool_calls ?? []).map((call, index) => ({
    id: call.id,
    name: call.function.name,
    index,
    ...parseToolInput(call.function.arguments),
  }))
}
