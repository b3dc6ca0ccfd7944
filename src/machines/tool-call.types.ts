/** Context, input and events of the tool-call machine. All plain JSON. */
import type { FailureCode, Step } from '../events/event.schema.js'

/** Why a call ended early: which step, a code for telemetry, and the text for the model. */
export interface Failure {
  step: Step
  code: FailureCode
  message: string
  /** For a tool's own error: its class from a closed set (classifyToolError), logged for telemetry. */
  errorClass?: string
}

export interface PermissionDecision {
  behavior: 'allow' | 'deny' | 'ask'
  source: 'tool' | 'rule' | 'mode' | 'hook' | 'user' | 'default'
  reason?: string
  /** Input replaced by the tool or the app (recorded so replay can answer the same). */
  updatedInput?: unknown
}

/**
 * What the kernel starts a call with. The machine keeps none of it in context (a context built
 * from input costs a snapshot per call): the call's ids, its tool name and a voided call's failure
 * live in the kernel's environment for the call, found by `callId` (the actor's id).
 */
export interface ToolCallInput {
  turnId: string
  toolUseId: string
  index: number
  name: string
  /** The kernel's key for the call's environment; also the actor's id. */
  callId?: string
}

/**
 * The machine's context: only what guards read. It starts as one frozen object shared by every
 * call and is copied only where a step assigns (a failure, steps that differ from the common case).
 */
export interface ToolCallContext {
  failure: Failure | null
  interrupt: 'cancel' | 'block'
  /** What parse found out about the tool, so guards stay pure: which optional steps apply. */
  steps: { customValidation: boolean; preHooks: boolean; postHooks: boolean }
}

export type ToolCallEvent =
  | { type: 'validateInput.done'; failure?: Failure }
  | { type: 'preHook.done'; failure?: Failure }
  | { type: 'permission.done'; decision: PermissionDecision; failure?: Failure }
  /** `mapped`: the output already mapped to a non-empty block, so the map step cannot fail. */
  | { type: 'call.done'; overBudget: boolean; mapped?: boolean }
  | { type: 'call.failed'; failure: Failure }
  | { type: 'budget.done' }
  | { type: 'postHook.done' }
  /** Interrupts the call; `force` stops even a 'block' tool (sibling cascade, discard). */
  /** `started: false` at the call step: the tool waits at its write-ahead fence and has not run. */
  | { type: 'abort'; reason: string; force?: boolean; started?: boolean }
