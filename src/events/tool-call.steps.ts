/**
 * What each of the nine steps means, in one table (the event that closes it, how a failure there
 * is recorded, whether the tool has run by then, where its events lead, whether a call rests
 * there), and a call's state as the fold of its events (`advance`). The machine, recovery,
 * inspect, the timeline and replay all read them, so a step means the same thing everywhere.
 *
 * It lives beside the event union (not in machines/) because projections may import only
 * events: the table is about what the log says, and the machine is one writer of that log.
 */
import { STEPS, type FailureCode, type KernelEvent, type KernelEventInput, type Step } from './event.schema.js'
import { timedOutReason } from './unfinished-text.js'

export interface StepRow {
  /** The event recorded when a call leaves this step normally. */
  readonly closedBy: KernelEvent['type']
  /**
   * Whether the step waits for an answer (a `*.done` event or an abort), so that a failure here
   * arrives with the event that ends the step.
   */
  readonly waits: boolean
  /** How a failure that ends the call here is recorded (a cancellation is always `tool.cancelled`). */
  readonly failure: 'tool.rejected' | 'tool.errored' | 'tool.mapped' | 'none'
  /**
   * The failure codes this step gives (`cancelled` and `internal` can end a call in any step and
   * are listed under none).
   */
  readonly codes: readonly FailureCode[]
  /** Whether a call in this step may have had its effect — when it got as far as `call`. */
  readonly afterCall: boolean
  /** What a call in this step is doing, for inspect and the timeline. */
  readonly doing: string
  /**
   * Where the step's events can take the call (`advance` never goes elsewhere: a test checks it).
   * The step itself means it decided part of its work and runs again (call: started, then ran).
   */
  readonly next: readonly Step[]
  /**
   * A call may rest here again after the step decided part of its work: parked for a person's
   * answer (permission, docs/approvals.md). Elsewhere a step that leads to itself runs on at once.
   */
  readonly parks: boolean
}

export const STEP_TABLE: { readonly [S in Step]: StepRow } = {
  parse: {
    closedBy: 'tool.parsed',
    waits: false,
    failure: 'tool.rejected',
    codes: ['unknown_tool', 'tool_disabled'],
    afterCall: false,
    doing: 'finding the tool',
    next: ['validate', 'map'],
    parks: false,
  },
  validate: {
    closedBy: 'tool.validated',
    waits: true,
    failure: 'tool.rejected',
    codes: ['invalid_json', 'not_an_object', 'invalid_input', 'validate_input'],
    afterCall: false,
    doing: 'validating',
    next: ['preHook', 'permission', 'map'],
    parks: false,
  },
  preHook: {
    closedBy: 'tool.hooked',
    waits: true,
    failure: 'tool.rejected',
    codes: ['hook_blocked'],
    afterCall: false,
    doing: 'running pre-hooks',
    next: ['permission', 'map'],
    parks: false,
  },
  permission: {
    closedBy: 'tool.permitted',
    waits: true,
    failure: 'tool.rejected',
    codes: ['permission_denied'],
    afterCall: false,
    doing: 'checking permission',
    // itself: parked for a person's answer, then decided once it comes
    next: ['permission', 'call', 'map'],
    parks: true,
  },
  call: {
    closedBy: 'tool.completed',
    waits: true,
    failure: 'tool.errored',
    codes: ['tool_error', 'interrupted', 'timed_out'],
    afterCall: true,
    doing: 'running',
    next: ['call', 'budget', 'map'],
    parks: false,
  },
  budget: {
    closedBy: 'tool.budgeted',
    waits: true,
    failure: 'none',
    codes: [],
    afterCall: true,
    doing: 'saving oversize output',
    next: ['map'],
    parks: false,
  },
  map: {
    closedBy: 'tool.mapped',
    waits: false,
    failure: 'tool.mapped',
    codes: ['tool_error'],
    afterCall: true,
    doing: 'mapping the result',
    next: ['postHook', 'emit'],
    parks: false,
  },
  postHook: {
    closedBy: 'tool.hooked',
    waits: true,
    failure: 'none',
    codes: [],
    afterCall: true,
    doing: 'running post-hooks',
    next: ['emit'],
    parks: false,
  },
  emit: {
    closedBy: 'tool.result',
    waits: false,
    failure: 'none',
    codes: [],
    afterCall: true,
    doing: 'done',
    next: [],
    parks: false,
  },
}

/** Why a call ended early: which step, a code for telemetry, and the text for the model. */
export interface Failure {
  readonly step: Step
  readonly code: FailureCode
  readonly message: string
  /** For a tool's own error: its class from a closed set (classifyToolError), logged for telemetry. */
  readonly errorClass?: string
}

/** A PreToolUse hook's say in the permission step, as its `tool.hooked` recorded it. */
export interface HookSay {
  readonly decision: 'allow' | 'deny' | 'ask'
  readonly reason?: string
}

/**
 * A call's state: everything its next step depends on, and nothing else — the fold of its own
 * events (`advance`). The tool-call machine's context, recovery, inspect, the timeline and replay
 * read this one fold; there is no other copy. Plain JSON.
 */
export interface CallState {
  /** The step the call is in (after its result: `emit`). */
  readonly step: Step
  /** The tool's name: as requested, then as parse resolved it (an alias becomes the name). */
  readonly name: string
  /** The input as it stands: as requested, then as a hook or the permission step rewrote it. */
  readonly input: unknown
  /** `tool.started` was logged: the tool was called and may have had its effect. */
  readonly started: boolean
  /** The call's result is in the log. */
  readonly answered: boolean
  /** Which hook steps apply (from `tool.parsed`). */
  readonly hooks: { readonly pre: boolean; readonly post: boolean }
  /** What an interruption does to the running tool (from `tool.started`). */
  readonly interrupt: 'cancel' | 'block'
  /** Why the call ended early, once it has. */
  readonly failure: Failure | null
  /** The PreToolUse hooks' say in the permission step. */
  readonly hookSay: HookSay | null
  /** Context the PreToolUse hooks added for the model, in order. */
  readonly contexts: readonly string[]
  /** Parked at the permission step for a person's answer (`permission.pending`), until it is decided. */
  readonly pending: Pending | null
  /** The person's answer to the pending ask (`permission.answered`), until the step decides from it. */
  readonly approval: Approval | null
}

/** What a parked call waits on: the digest of the input the approval is for, and why it asked. */
export interface Pending {
  readonly digest: string
  readonly reason: string
}

/** A person's answer to a parked call, as `permission.answered` recorded it. */
export interface Approval {
  readonly digest: string
  readonly behavior: 'allow' | 'deny'
  readonly message?: string
  readonly updatedInput?: unknown
  readonly grant?: { readonly scope: 'call' | 'tool' | 'rule'; readonly rule?: string }
}

/** Where one call stands, as far as the log tells: the part of CallState most readers need. */
export type CallPosition = Pick<CallState, 'step' | 'started' | 'answered' | 'hooks'>

/** A call before any of its events: `advance` over its `tool.requested` gives its name and input. */
export const REQUESTED: CallState = Object.freeze({
  step: 'parse',
  name: '',
  input: undefined,
  started: false,
  answered: false,
  hooks: Object.freeze({ pre: false, post: false }),
  interrupt: 'block',
  failure: null,
  hookSay: null,
  contexts: Object.freeze([]) as readonly string[],
  pending: null,
  approval: null,
})

/** The call waits at its permission step for a person's answer that has not come. */
export function isParked(state: CallState): boolean {
  return state.step === 'permission' && state.pending !== null && state.approval === null && !state.answered
}

/** The step after `step` in the table's order. */
export function nextStep(step: Step): Step {
  return STEPS[STEPS.indexOf(step) + 1] ?? 'emit'
}

type CallEvent = Extract<KernelEventInput, { toolUseId: string }>

/**
 * The call's state after `event` (one of its own events). Pure: the same events always give the
 * same state, which is what the machine, recovery and replay rely on. A new step, event or
 * failure code is added here and in its step, nowhere else.
 */
export function advance(state: CallState, event: CallEvent): CallState {
  switch (event.type) {
    case 'tool.requested':
      return { ...state, name: event.name, input: event.input }
    case 'tool.parsed':
      return at(
        state,
        'validate',
        event.hooks === undefined ? { name: event.tool } : { name: event.tool, hooks: event.hooks },
      )
    case 'tool.validated':
      return at(state, state.hooks.pre ? 'preHook' : 'permission')
    case 'tool.hooked':
      return event.phase === 'pre' ? preHooked(state, event) : at(state, 'emit')
    case 'tool.permitted': {
      if (state.failure !== null) return state
      const input = event.updatedInput === undefined ? {} : { input: event.updatedInput }
      const decided = state.pending === null ? input : { ...input, pending: null, approval: null }
      return at(state, event.behavior === 'allow' ? 'call' : 'map', decided)
    }
    case 'permission.pending':
      return at(state, 'permission', { pending: { digest: event.digest, reason: event.reason }, approval: null })
    case 'permission.answered':
      return state.pending === null ? state : { ...state, approval: approvalOf(event) }
    case 'tool.started':
      return at(state, 'call', { started: true, interrupt: event.interrupt })
    case 'tool.completed':
      return at(state, isPersisted(event) ? 'budget' : 'map')
    case 'tool.budgeted':
      return at(state, 'map')
    case 'tool.errored': {
      const errorClass = event.errorClass === undefined ? {} : { errorClass: event.errorClass }
      return failed(state, { step: 'call', code: 'tool_error', message: event.message, ...errorClass })
    }
    case 'tool.rejected':
      return failed(state, { step: event.step, code: event.code, message: event.message })
    case 'tool.timed_out':
      return failed(state, { step: 'call', code: 'timed_out', message: timedOutReason(event) })
    case 'tool.cancelled': {
      const interrupted = event.step === 'call' && state.started && event.beforeRun !== true
      return failed(state, { step: event.step, code: interrupted ? 'interrupted' : 'cancelled', message: event.reason })
    }
    case 'tool.mapped': {
      const failure =
        event.failure === undefined
          ? {}
          : { failure: { step: 'map', code: 'tool_error', message: event.failure } as const }
      const next = { ...state, ...failure }
      return { ...next, step: postHooksFollow(next) ? 'postHook' : 'emit' }
    }
    case 'tool.result':
      return at(state, 'emit', { answered: true })
    default:
      return state
  }
}

/** The state moved to `step`, with `more` changed: one new object per event, no closure. */
function at(state: CallState, step: Step, more?: Partial<CallState>): CallState {
  return more === undefined ? { ...state, step } : { ...state, ...more, step }
}

function failed(state: CallState, failure: Failure): CallState {
  return at(state, 'map', { failure })
}

function approvalOf(event: Extract<CallEvent, { type: 'permission.answered' }>): Approval {
  const approval: { -readonly [K in keyof Approval]: Approval[K] } = { digest: event.digest, behavior: event.behavior }
  if (event.message !== undefined) approval.message = event.message
  if (event.updatedInput !== undefined) approval.updatedInput = event.updatedInput
  if (event.grant !== undefined)
    approval.grant =
      event.grant.rule === undefined
        ? { scope: event.grant.scope }
        : { scope: event.grant.scope, rule: event.grant.rule }
  return approval
}

/** After the PreToolUse hooks: their rewrite, say and context count only for a call they let go on. */
function preHooked(state: CallState, event: Extract<CallEvent, { type: 'tool.hooked' }>): CallState {
  if (state.failure !== null) return state
  const next: { -readonly [K in keyof CallState]: CallState[K] } = { ...state, step: 'permission' }
  if (event.updatedInput !== undefined) next.input = event.updatedInput
  if (event.decision !== undefined)
    next.hookSay =
      event.reason === undefined ? { decision: event.decision } : { decision: event.decision, reason: event.reason }
  if (event.additionalContext !== undefined) next.contexts = [...state.contexts, event.additionalContext]
  return next
}

/**
 * Post-hooks follow a call that ran (PostToolUse) or failed while running or mapping
 * (PostToolUseFailure), not one that never started (cancelled at call: interrupted before it
 * ran, or refused at its fence).
 */
export function postHooksFollow(state: CallState): boolean {
  const { failure } = state
  if (!state.hooks.post || !state.started) return false
  return failure === null || (failure.step === 'call' && failure.code !== 'cancelled') || failure.step === 'map'
}

/** How the call's result reads: `tool.result`'s outcome. */
export function outcomeOf(state: CallState): 'success' | 'error' | 'cancelled' {
  const code = state.failure?.code
  if (code === undefined) return 'success'
  return code === 'cancelled' || code === 'interrupted' ? 'cancelled' : 'error'
}

/** Folds a call's events from REQUESTED (or from `state`). */
export function foldCall(events: Iterable<CallEvent>, state: CallState = REQUESTED): CallState {
  for (const event of events) state = advance(state, event)
  return state
}

/**
 * Whether a `tool.completed` says the output went to the result store instead of the log (its
 * `persisted` field, never anything inside the tool's own output). The one place that reads it.
 */
export function isPersisted(event: { readonly persisted?: true | undefined }): boolean {
  return event.persisted === true
}

/**
 * Whether a call that failed with `code` cannot have run: every step that gives the code comes
 * before `call`. (`cancelled` and `internal` can come from any step and answer false.)
 */
export function failedBeforeCall(code: FailureCode): boolean {
  const steps = STEPS.filter((step) => STEP_TABLE[step].codes.includes(code))
  return steps.length > 0 && steps.every((step) => !STEP_TABLE[step].afterCall)
}
