/**
 * A `streamText` step's tool calls as one streaming kernel turn: each `tool-call` part of the
 * `fullStream` goes to the kernel as it arrives (a concurrency-safe call starts while the model
 * is still talking), `finish-step` ends the turn with its finish reason.
 */
import { approvalRequests } from './approvals.js'
import { z } from 'zod'
import type { Turn } from '../actors/turn/turn.types.js'
import type { Kernel } from '../kernel.js'
import type { TurnUpdate } from '../projections/updates.projection.js'
import { checkOptionsObject } from '../util/known-options.js'
import { describeValue } from '../util/describe-value.js'
import {
  AI_SDK_TURN_OPTIONS,
  ownCalls,
  stopReasonOfFinish,
  toolMessagesFor,
  toolUseOf,
  type AiSdkToolCall,
  type AiSdkToolCallsResult,
  type AiSdkTurnOptions,
} from './tool-calls.js'

/** A part of `streamText(...).fullStream` (`TextStreamPart`): only its `type` is read first. */
export interface AiSdkStreamPart {
  readonly type: string
}

export interface AiSdkStreamedToolCalls {
  /** The kernel's turn for this step. */
  readonly turn: Turn
  /** Takes one `fullStream` part; parts other than tool calls and the step's end are skipped. */
  push(part: AiSdkStreamPart): void
  /** Ends the step when the stream stopped without its `finish-step` part (the app broke off). */
  end(finishReason?: string): void
  /**
   * The stream threw (a dropped connection): running calls keep their results, a call not yet
   * started is voided with a result naming `error`. Safe in any `catch`; after the end it does nothing.
   */
  fail(error: unknown): void
  /** Progress and per-call completion, as they happen (for a UI while the model still talks). */
  updates(): AsyncIterable<TurnUpdate>
  /**
   * The tool message answering the step's calls, once each has its result. Call it after the
   * stream is consumed: a step whose stream ended without `finish-step` is ended here as failed.
   */
  result(): Promise<AiSdkToolCallsResult>
}

const ToolCallPart = z.looseObject({
  type: z.literal('tool-call'),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  input: z.unknown(),
  invalid: z.boolean().optional(),
  providerExecuted: z.boolean().optional(),
})
const FinishPart = z.looseObject({ type: z.string(), finishReason: z.string() })

/** Event types of the wire formats: pushed here by mistake, they are the app's bug. */
const WIRE_EVENT = /^(message_start|message_delta|message_stop|content_block_\w+|ping|response\.[\w.]+)$/

/**
 * Starts one step's kernel turn; push every `fullStream` part into it.
 *
 * @example
 * const result = streamText({ model, tools: aiSdkTools(kernel), messages })
 * const calls = startToolCalls(kernel)
 * try {
 *   for await (const part of result.fullStream) calls.push(part)
 * } catch (error) {
 *   calls.fail(error)
 * }
 * const { messages: toolMessages } = await calls.result()
 * messages.push(...(await result.response).messages, ...toolMessages)
 */
export function startToolCalls(
  kernel: Pick<Kernel, 'startTurn'>,
  options: AiSdkTurnOptions = {},
): AiSdkStreamedToolCalls {
  checkOptionsObject('startToolCalls', options, AI_SDK_TURN_OPTIONS)
  return new StreamedToolCalls(kernel.startTurn(options.signal === undefined ? {} : { signal: options.signal }))
}

class StreamedToolCalls implements AiSdkStreamedToolCalls {
  readonly #calls: AiSdkToolCall[] = []
  #ended = false
  #failure: { error: unknown } | undefined

  constructor(readonly turn: Turn) {}

  push(part: AiSdkStreamPart): void {
    const type = typeof part === 'object' && part !== null ? part.type : undefined
    if (typeof type !== 'string')
      throw new TypeError(`startToolCalls().push expects a part of streamText's fullStream, got ${describeValue(part)}`)
    if (type === 'tool-call') return this.#addCall(part)
    if (type === 'finish-step' || type === 'finish') return this.end(finishReasonOf(part))
    if (type === 'abort') return this.end('abort')
    if (type === 'error') {
      this.#failure ??= { error: (part as { error?: unknown }).error }
      return
    }
    if (type === 'start-step' && this.#ended)
      throw new TypeError(
        'startToolCalls() covers one step, and this stream started another: give the tools no execute ' +
          '(aiSdkTools does) so each streamText call is one step, or start one startToolCalls per step',
      )
    if (WIRE_EVENT.test(type) || (part as { object?: unknown }).object === 'chat.completion.chunk')
      throw new TypeError(
        `startToolCalls().push takes the AI SDK's fullStream parts, not a model API's stream events ` +
          `(got "${type}"): push those into kernel.startTurn() instead ` +
          '(turn.push, turn.pushOpenAI, turn.pushOpenAIResponses)',
      )
  }

  end(finishReason = 'stop'): void {
    if (this.#ended) return
    this.#ended = true
    // A step that failed mid-stream: running calls keep their results, the rest say why.
    if (finishReason === 'error' && this.#failure !== undefined) this.turn.fail(this.#failure.error)
    else this.turn.end(stopReasonOfFinish(finishReason))
  }

  fail(error: unknown): void {
    if (this.#ended) return
    this.#ended = true
    this.turn.fail(error)
  }

  updates(): AsyncIterable<TurnUpdate> {
    return this.turn.updates()
  }

  async result(): Promise<AiSdkToolCallsResult> {
    // The stream is over (result() comes after the loop). Without its finish-step part — an
    // `error` part was the last, or the app broke off — it ended as a failure: what runs keeps
    // its result, the rest is voided, and nothing waits for an end that will not come.
    this.fail(this.#failure?.error ?? new Error('the AI SDK stream ended without its finish-step part'))
    const result = await this.turn.result()
    if (result.pending.length > 0) return { messages: [], approvals: approvalRequests(result.pending), turn: result }
    return { messages: toolMessagesFor(result.message, this.#calls), approvals: [], turn: result }
  }

  #addCall(part: AiSdkStreamPart): void {
    const parsed = ToolCallPart.safeParse(part)
    if (!parsed.success) throw new TypeError(`malformed tool-call part: ${z.prettifyError(parsed.error)}`)
    if (this.#ended) throw new TypeError(`tool-call part ${parsed.data.toolCallId} after the step finished`)
    const [call] = ownCalls([parsed.data as AiSdkToolCall])
    if (call === undefined) return
    this.#calls.push(call)
    this.turn.addToolUse(toolUseOf(call))
  }
}

function finishReasonOf(part: AiSdkStreamPart): string {
  const parsed = FinishPart.safeParse(part)
  if (!parsed.success) throw new TypeError(`malformed ${part.type} part: ${z.prettifyError(parsed.error)}`)
  return parsed.data.finishReason
}
