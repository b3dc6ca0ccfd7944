/** Context, input and events of the tool-call machine. All plain JSON but a step's `carry`. */
import type { CallState } from '../events/tool-call.steps.js'
import type { KernelEventInput, ToolResultBlock } from '../events/event.schema.js'

export type { Failure, HookSay } from '../events/tool-call.steps.js'

/** The machine's context: the call's state, the fold of its own events. */
export type ToolCallContext = CallState

/** What the kernel starts a call with: its state so far (the fold of its events, at least its `tool.requested`). */
export interface ToolCallInput {
  readonly state: CallState
}

/**
 * What one step hands the next, beside the log: the tool's output and its block as they flow down
 * call → budget → map → post-hook → emit, each step taking the previous one's result. Not part of
 * the call's state (output that goes to the result store is never in the log); a call that stops
 * at a wait and continues elsewhere needs none of it, since every wait comes before `call` or is
 * closed by recovery.
 */
export interface Carry {
  /** The tool's output (what a PostToolUse hook receives as `tool_response`). */
  readonly output?: unknown
  /** The result block so far: the output mapped, its preview, the hooks' context added. */
  readonly block?: ToolResultBlock
  /** The tool's mapper threw on the output: the map step turns it into the call's failure. */
  readonly mapError?: unknown
  /** The input the schema accepted (an optimisation: the state's input, parsed again, gives the same). */
  readonly input?: unknown
}

export type ToolCallEvent =
  /**
   * A step decided: `state` is the call's state with the events it decided folded in (they are
   * in the log already), `carry` what it hands the next step.
   */
  | { type: 'decided'; state: CallState; carry: Carry }
  /** Interrupts the call; `force` stops even a 'block' tool (sibling cascade, discard). */
  | { type: 'abort'; reason: string; force?: boolean }
  /** A person answered the call parked at its permission step (`event` is its `permission.answered`). */
  | { type: 'answer'; event: KernelEventInput & { type: 'permission.answered' } }
