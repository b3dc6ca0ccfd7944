/**
 * Subagents: what a tool may run under its own call — a child session with its own tools, rules
 * and budget, under the parent's rules (docs/subagents.md).
 */
import type { KernelEvent, ToolResultBlock } from '../events/event.schema.js'
import type { ApiFormat, ApiToolOf } from './api-tool.types.js'

/** The rules a child asks for: they can only narrow the parent's (docs/subagents.md §Rules). */
export interface ChildRules {
  /** The child's mode: taken only when it is not looser than the parent's (else the parent's). */
  mode?: string
  /** Allow rules: a call is allowed by a rule only when one of these and one of the parent's allow it. */
  allow?: readonly string[]
  /** More ask rules, besides the parent's. */
  ask?: readonly string[]
  /** More deny rules, besides the parent's (which the child always keeps). */
  deny?: readonly string[]
}

export interface ChildOptions {
  /** Names of the parent's tools the child may call. Default: all of them but the calling tool. */
  tools?: readonly string[]
  /**
   * What the child's model is told (its system prompt). The kernel sends no model request: it
   * records the prompt in the child turns' `turn.started` and hands it back as `session.prompt`
   * for the tool that asks the child's model (the Agent tool sends it as `system`).
   */
  prompt?: string
  rules?: ChildRules
  /** Characters one child turn's message may carry before results are persisted; model requests the child may make. */
  budget?: { messageBudgetChars?: number; maxTurns?: number }
  /** Stops the child's turns. The parent call's signal stops them in any case. */
  signal?: AbortSignal
}

/** A child turn's result, once every call has its result (a child waits through approvals). */
export interface ChildTurnResult {
  readonly turnId: string
  /** The `tool_result` message for the child's model, in `tool_use` order. */
  readonly message: { role: 'user'; content: ToolResultBlock[] }
  /** The child turn's events (each carries `parentToolUseId`). */
  readonly events: readonly KernelEvent[]
  /** The turn was interrupted (the parent call was aborted or ended, the signal fired). */
  readonly aborted: boolean
}

/**
 * A child session: runs the tool calls of the child's model through all nine steps, in the
 * parent's log, under the parent call.
 */
export interface ChildSession {
  /** The call this child runs under. */
  readonly parentToolUseId: string
  /** The tools the child may call. */
  readonly tools: readonly string[]
  /** The prompt `runChild` was given for the child's model (recorded with each child turn), if any. */
  readonly prompt: string | undefined
  /** The child's tool definitions for its model, in a provider's format (default 'anthropic'). */
  apiTools<F extends ApiFormat = 'anthropic'>(options?: { format: F }): Array<ApiToolOf[F]>
  /**
   * Runs every tool call of one assistant message of the child's model (the formats
   * `kernel.runTurn` takes). Resolves once every call has its result: a call that needs a person
   * waits for `kernel.answer`, and the parent's turn lists it as pending meanwhile.
   * @throws Error past `budget.maxTurns`, or once the parent call has ended.
   */
  runTurn(message: unknown): Promise<ChildTurnResult>
  /**
   * Opens a child turn fed from the child's model stream as it arrives, so its calls start early
   * as a kernel's streamed turns do (`kernel.startTurn`). Counts against `budget.maxTurns` as
   * `runTurn` does.
   * @throws Error past `budget.maxTurns`, or once the parent call has ended.
   */
  startTurn(): ChildStreamTurn
}

/** A child turn fed from a stream: a kernel's `Turn` for one message, whose result is a child's. */
export interface ChildStreamTurn {
  readonly turnId: string
  /** One Anthropic stream event (`RawMessageStreamEvent`). */
  push(event: unknown): void
  /** One OpenAI Chat Completions chunk, or `[DONE]`. */
  pushOpenAI(chunk: unknown): void
  /** One OpenAI Responses stream event. */
  pushOpenAIResponses(event: unknown): void
  /** Ends the message (the stream's own end event does it too). */
  end(stopReason?: string | null): void
  /** The stream failed: running calls keep their results, the rest say why (`Turn.fail`). */
  fail(error: unknown): void
  /** Once every call has its result. */
  result(): Promise<ChildTurnResult>
}
