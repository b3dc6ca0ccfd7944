/**
 * What an app sees of a turn: the streaming handle and the result. Apart from the turn's engine
 * (turn.ts) so that the published types an app compiles against never reach the actor and
 * XState's declarations.
 */
import type { ToolResultMessageParam } from '../../intake/message-param.js'
import type { TurnUpdate } from '../../projections/updates.projection.js'
import type { KernelEvent } from '../../events/event.schema.js'
import type { PendingApproval } from '../../projections/approvals.projection.js'

export type { PendingApproval } from '../../projections/approvals.projection.js'

/** Which calls may start while the model is still streaming. */
export type EarlyStart = 'safe' | 'none' | 'all'

export interface TurnResult {
  /**
   * The user message of `tool_result` blocks, in `tool_use` order (empty when discarded):
   * assignable to the Anthropic SDK's `MessageParam`; `toOpenAIToolMessages` and
   * `toResponsesInputItems` give it in the OpenAI formats.
   */
  message: ToolResultMessageParam
  /** This turn's events, in log order. */
  events: KernelEvent[]
  /** The turn was discarded: nothing of it goes to the model. */
  discarded: boolean
  /**
   * Calls parked for a person's answer, in tool_use order (docs/approvals.md). While any is here
   * the turn is not over and `message` is not whole: answer each with `kernel.answer`, whose
   * result is the turn's next; send `message` once `pending` is empty.
   */
  pending: PendingApproval[]
  /**
   * Set when the event log stopped taking events during the turn: every call was stopped and
   * still answered, but the results from then on are not in the store.
   */
  logError?: string
}

/** A running turn. */
export interface Turn<P = unknown> {
  readonly turnId: string
  /**
   * Takes one Anthropic stream event (`RawMessageStreamEvent`, as the official SDK yields them).
   * Typed `unknown` because events often arrive parsed from text (`parseSSE`); each is checked,
   * and anything else (a content block, a whole message, an OpenAI chunk) is a TypeError naming
   * the method that takes it.
   */
  push(event: unknown): void
  /** Takes one OpenAI Chat Completions chunk (`ChatCompletionChunk`), or the `[DONE]` sentinel. */
  pushOpenAI(chunk: unknown): void
  /** Takes one OpenAI Responses stream event (`ResponseStreamEvent`); the terminal event ends the message. */
  pushOpenAIResponses(event: unknown): void
  /** Adds a tool_use block the app assembled itself (`Anthropic.ToolUseBlock` fits). */
  addToolUse(block: { id: string; name: string; input: unknown }): void
  /** Ends the message. A stop reason other than `tool_use` voids every call not yet started. */
  end(stopReason?: string | null): void
  /**
   * Drops the turn (the stream fell back; the model will re-issue its calls): running calls stop,
   * nothing is emitted.
   */
  discard(reason?: string): void
  /**
   * The model's stream failed (the SDK threw: an `error` event, a dropped connection) and the
   * app goes on with what it has. Ends the message as a stream error: calls already running
   * finish and keep their results, a call still streaming is answered as cut off, and every call
   * not yet started is voided with a result naming `error`. Safe to call in any `catch`: after
   * the message has ended it does nothing. (When the app retries the request instead, `discard`.)
   *
   * @example
   * const turn = kernel.startTurn()
   * try {
   *   for await (const event of stream) turn.push(event)
   * } catch (error) {
   *   turn.fail(error)
   * }
   * const { message } = await turn.result()
   */
  fail(error: unknown): void
  /** Progress and per-call completion, as they happen, from the start of the turn. */
  updates(): AsyncIterable<TurnUpdate<P>>
  /** The `tool_result` message, once every call has its result. */
  result(): Promise<TurnResult>
}
