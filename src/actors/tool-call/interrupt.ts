/**
 * What an interruption decides, by the step the call is waiting in: where it waits for a hook,
 * a prompt or its validator, it is cancelled there (and its signal aborted, which kills hook
 * processes and tells a prompt it is no longer wanted); a running 'cancel' tool is interrupted,
 * and so is any tool waiting out a retry's backoff,
 * a 'block' tool runs on unless `force`; a save in progress runs to its end unless `force` (the
 * tool has returned: its output is not dropped — docs/decisions/abort.md, decision 159), and a
 * forced one leaves a preview without a path;
 * post-hooks are left to finish on their own and the result goes out without their context.
 */
import type { CallState } from '../../events/tool-call.steps.js'
import type { Carry } from '../../machines/tool-call.types.js'
import { idsOf, type CallScope, type Decided } from './call-scope.js'
import { abandonBudget } from './budget.step.js'
import { notRun } from './call.step.js'
import { posted } from './post-hook.step.js'

export interface Interruption {
  readonly decided: Decided
  /** Abort the call's signal once the decision is in the log. */
  readonly abort: boolean
}

export function interruptAt(
  call: CallScope,
  state: CallState,
  carry: Carry,
  reason: string,
  force: boolean,
): Interruption | undefined {
  const cancelled = (): Decided => ({
    events: [{ type: 'tool.cancelled', ...idsOf(call), step: state.step, reason }],
  })
  switch (state.step) {
    case 'validate':
    case 'preHook':
    case 'permission':
      return { decided: cancelled(), abort: true }
    case 'call':
      // Between attempts of a retry nothing runs, whatever the tool's kind: the backoff ends now.
      if (call.io.backoff) return { decided: cancelled(), abort: true }
      if (state.interrupt !== 'cancel' && !force) return undefined
      // The tool returned and its result waits for its siblings': it is claimed now, not lost.
      if (call.io.heldResult !== undefined) return { decided: call.io.heldResult(), abort: false }
      return { decided: call.io.invoked ? cancelled() : notRun(call, reason), abort: true }
    case 'budget':
      if (!force) return undefined
      return { decided: abandonBudget(call, carry), abort: false }
    case 'postHook':
      return { decided: posted(call, carry, undefined), abort: false }
    default:
      // parse, map and emit never wait: an interruption cannot find a call there.
      return undefined
  }
}
