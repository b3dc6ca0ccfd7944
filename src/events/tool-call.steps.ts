/**
 * What each of the nine steps means, in one table: the event that closes it, how a failure
 * there is recorded, and whether the tool has run by then. The recorder, recovery, inspect, the
 * timeline and replay all read it, so a step means the same thing everywhere.
 *
 * It lives beside the event union (not in machines/) because projections may import only
 * events: the table is about what the log says, and the machine is one writer of that log.
 */
import { STEPS, type FailureCode, type KernelEvent, type Step } from './event.schema.js'

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
}

export const STEP_TABLE: { readonly [S in Step]: StepRow } = {
  parse: {
    closedBy: 'tool.parsed',
    waits: false,
    failure: 'tool.rejected',
    codes: ['unknown_tool', 'tool_disabled'],
    afterCall: false,
    doing: 'finding the tool',
  },
  validate: {
    closedBy: 'tool.validated',
    waits: true,
    failure: 'tool.rejected',
    codes: ['invalid_json', 'not_an_object', 'invalid_input', 'validate_input'],
    afterCall: false,
    doing: 'validating',
  },
  preHook: {
    closedBy: 'tool.hooked',
    waits: true,
    failure: 'tool.rejected',
    codes: ['hook_blocked'],
    afterCall: false,
    doing: 'running pre-hooks',
  },
  permission: {
    closedBy: 'tool.permitted',
    waits: true,
    failure: 'tool.rejected',
    codes: ['permission_denied'],
    afterCall: false,
    doing: 'checking permission',
  },
  call: {
    closedBy: 'tool.completed',
    waits: true,
    failure: 'tool.errored',
    codes: ['tool_error', 'interrupted'],
    afterCall: true,
    doing: 'running',
  },
  budget: {
    closedBy: 'tool.budgeted',
    waits: false,
    failure: 'none',
    codes: [],
    afterCall: true,
    doing: 'saving oversize output',
  },
  map: {
    closedBy: 'tool.mapped',
    waits: false,
    failure: 'tool.mapped',
    codes: ['tool_error'],
    afterCall: true,
    doing: 'mapping the result',
  },
  postHook: {
    closedBy: 'tool.hooked',
    waits: false,
    failure: 'none',
    codes: [],
    afterCall: true,
    doing: 'running post-hooks',
  },
  emit: { closedBy: 'tool.result', waits: false, failure: 'none', codes: [], afterCall: true, doing: 'done' },
}

/** Where one call stands, as far as the log tells. */
export interface CallPosition {
  /** The step the call is in (or, after its result, `emit`). */
  readonly step: Step
  /** `tool.started` was logged: the tool was called and may have had its effect. */
  readonly started: boolean
  /** The call's result is in the log. */
  readonly answered: boolean
  /** Which hook steps apply (from `tool.parsed`). */
  readonly hooks: { readonly pre: boolean; readonly post: boolean }
}

export const REQUESTED: CallPosition = Object.freeze({
  step: 'parse',
  started: false,
  answered: false,
  hooks: Object.freeze({ pre: false, post: false }),
})

/** The step after `step` in the table's order. */
export function nextStep(step: Step): Step {
  return STEPS[STEPS.indexOf(step) + 1] ?? 'emit'
}

/**
 * Where a call stands after `event` (one of its own events). Pure: the same events always give
 * the same position, which is what recovery and replay rely on.
 */
export function advance(position: CallPosition, event: KernelEvent): CallPosition {
  const at = (step: Step, more: Partial<CallPosition> = {}): CallPosition => ({ ...position, ...more, step })
  switch (event.type) {
    case 'tool.parsed':
      return at('validate', event.hooks === undefined ? {} : { hooks: event.hooks })
    case 'tool.validated':
      return at(position.hooks.pre ? 'preHook' : 'permission')
    case 'tool.hooked':
      return event.phase === 'pre' ? at('permission') : at('emit')
    case 'tool.permitted':
      return at(event.behavior === 'allow' ? 'call' : 'map')
    case 'tool.started':
      return at('call', { started: true })
    case 'tool.completed':
      return at(isPersisted(event) ? 'budget' : 'map')
    case 'tool.errored':
    case 'tool.budgeted':
    case 'tool.rejected':
    case 'tool.cancelled':
      return at('map')
    case 'tool.mapped':
      return at(position.hooks.post && position.started ? 'postHook' : 'emit')
    case 'tool.result':
      return at('emit', { answered: true })
    default:
      return position
  }
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
