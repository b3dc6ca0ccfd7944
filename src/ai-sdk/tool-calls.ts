/**
 * One AI SDK step's tool calls as one kernel turn. The AI SDK (tools without `execute`) stops at
 * the step's calls; the kernel runs them — batches, order, permissions, hooks, budget, log — and
 * the app appends the AI SDK tool message it returns. Batch: the `generateText` result (or a
 * step of it). Streaming: the `fullStream` parts, pushed as they come, so a safe call starts while
 * the model is still talking.
 */
import type { FinishReason, ToolApprovalRequest, ToolModelMessage } from 'ai'
import { approvalRequests } from './approvals.js'
import { z } from 'zod'
import type { TurnResult } from '../actors/turn/turn.types.js'
import type { Kernel } from '../kernel.js'
import { toToolModelMessages } from './tool-output.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

/** A tool call as the AI SDK reports it (`TypedToolCall`, a `tool-call` stream part). */
export interface AiSdkToolCall {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
  /**
   * The AI SDK could not parse it (bad JSON, unknown tool) and has answered it itself in
   * `response.messages`; the kernel records it and runs nothing.
   */
  readonly invalid?: boolean | undefined
  /** The provider ran it (a provider-defined tool); it is not the app's to run. */
  readonly providerExecuted?: boolean | undefined
}

/** What `runToolCalls` reads from a `generateText` result or one of its `steps`. */
export interface AiSdkStep {
  readonly toolCalls: readonly AiSdkToolCall[]
  readonly finishReason: FinishReason
}

export interface AiSdkToolCallsResult {
  /**
   * The tool message to append after the step's `response.messages` (none when nothing ran, or
   * while calls wait for approval).
   */
  messages: ToolModelMessage[]
  /**
   * Calls parked for a person (docs/approvals.md), as AI SDK approval requests: show them, and
   * answer with `answerToolApprovals`. Empty when nothing waits.
   */
  approvals: ToolApprovalRequest[]
  /** The kernel's turn: its events, and whether the log failed. */
  turn: TurnResult
}

export interface AiSdkTurnOptions {
  /** Interrupts the turn (pass the one given to the AI SDK): queued calls are cancelled. */
  signal?: AbortSignal
}

/** Every option of `AiSdkTurnOptions` (an unknown one is refused, decision 118). */
export const AI_SDK_TURN_OPTIONS = optionNames<AiSdkTurnOptions>()('signal')

const ToolCallSchema = z.looseObject({
  toolCallId: z.string().min(1),
  toolName: z.string(),
  input: z.unknown(),
  invalid: z.boolean().optional(),
  providerExecuted: z.boolean().optional(),
})
const StepSchema = z.looseObject({
  toolCalls: z.array(ToolCallSchema),
  finishReason: z.string(),
})

/**
 * The kernel's stop reason for an AI SDK finish reason. `stop` counts as tool use, as the AI SDK
 * counts it (it runs tools after `stop` and `tool-calls`, and some providers report `stop` with
 * calls); anything else — `length`, `content-filter`, `error` — voids every call not yet started.
 */
export function stopReasonOfFinish(finishReason: string): string {
  if (finishReason === 'tool-calls' || finishReason === 'stop') return 'tool_use'
  if (finishReason === 'length') return 'max_tokens'
  if (finishReason === 'content-filter') return 'refusal'
  return finishReason
}

/**
 * The calls that go through the kernel: every call but the provider's own (it ran them). A call
 * the AI SDK marked `invalid` (unknown tool, unparsable input) goes through too, in its place, so
 * the log, the timeline and the traces see it (docs/decisions/wire-formats.md, decision 149).
 */
export function ownCalls(calls: readonly AiSdkToolCall[]): AiSdkToolCall[] {
  return calls.filter((call) => call.providerExecuted !== true)
}

/**
 * The `tool_use` block the kernel gets for a call. An invalid call carries its input as the text
 * the model sent (the AI SDK gives the raw text when it did not parse, the object when the tool
 * was unknown): no tool takes a string, so the kernel runs nothing for it — not even a tool the
 * kernel has but the AI SDK was not given, which the AI SDK has already answered as unavailable —
 * and answers it with why.
 */
export function toolUseOf(call: AiSdkToolCall): { id: string; name: string; input: unknown } {
  const input = call.invalid === true && typeof call.input !== 'string' ? JSON.stringify(call.input) : call.input
  return { id: call.toolCallId, name: call.toolName, input }
}

/**
 * The kernel's tool message for the app, less the calls the AI SDK answered itself: its own
 * `tool-error` answer is already in `response.messages`, and a second answer to one call is a
 * malformed conversation the APIs refuse.
 */
export function toolMessagesFor(message: TurnResult['message'], calls: readonly AiSdkToolCall[]): ToolModelMessage[] {
  const answered = new Set(calls.filter((call) => call.invalid === true).map((call) => call.toolCallId))
  const names = new Map(calls.map((call) => [call.toolCallId, call.toolName]))
  const content = message.content.filter((block) => !answered.has(block.tool_use_id))
  return toToolModelMessages({ ...message, content }, names)
}

/**
 * Runs one step's tool calls as one kernel turn and returns the AI SDK tool message that answers
 * them, one `tool-result` per call in call order (a call the kernel refused gets an `error-text`
 * output saying why). A step that did not finish in tool use (`length`, `content-filter`) runs
 * nothing: each call is answered with a result that says why.
 *
 * @throws TypeError when `step` is not a `generateText` result or step (a message, a stream).
 * @example
 * const step = await generateText({ model, tools: aiSdkTools(kernel), messages })
 * const { messages: toolMessages } = await runToolCalls(kernel, step)
 * messages.push(...step.response.messages, ...toolMessages)
 */
export async function runToolCalls(
  kernel: Pick<Kernel, 'runTurn'>,
  step: AiSdkStep,
  options: AiSdkTurnOptions = {},
): Promise<AiSdkToolCallsResult> {
  checkOptionsObject('runToolCalls', options, AI_SDK_TURN_OPTIONS)
  const parsed = StepSchema.safeParse(step)
  if (!parsed.success)
    throw new TypeError(
      `runToolCalls expects a generateText result or one of its steps ({ toolCalls, finishReason }): ` +
        `${z.prettifyError(parsed.error)}. ` +
        'For streamText, push the fullStream parts into startToolCalls(kernel) instead.',
    )
  const calls = ownCalls(parsed.data.toolCalls as AiSdkToolCall[])
  const content = calls.map((call) => ({ type: 'tool_use' as const, ...toolUseOf(call) }))
  const turn = await kernel.runTurn(
    { role: 'assistant', content, stop_reason: stopReasonOfFinish(parsed.data.finishReason) },
    options,
  )
  if (turn.pending.length > 0) return { messages: [], approvals: approvalRequests(turn.pending), turn }
  return { messages: toolMessagesFor(turn.message, calls), approvals: [], turn }
}
