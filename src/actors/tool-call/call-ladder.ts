/**
 * A tool run under a deadline, a retry policy, or both (docs/design.md §Deadlines and retries).
 * The deadline starts when the tool does and covers every attempt. At it, a 'cancel' tool's call
 * ends at once and its signal is aborted; a 'block' tool gets the grace, then is abandoned the
 * same way; a call waiting out a backoff ends at once whatever its kind. A tool that declares
 * retries and throws is run again after its backoff, while attempts remain and its `retryOn` says
 * yes; each failure (`tool.retrying`) and each new attempt (`tool.restarted`) is in the log, so
 * replay opens the same timers at the same points. An interruption ends the ladder at once: its
 * own decision is already in the log, and the timers are cleared.
 */
import type { KernelEventInput } from '../../events/event.schema.js'
import { classifyToolError } from '../../events/error-class.js'
import { describeError } from '../../tools/result-text.js'
import { backoffDelay, isAbortError, type RetryPolicy } from '../../tools/retry.js'
import type { Tool } from '../../tools/tool.types.js'
import { guarded } from '../../util/guarded.js'
import { controllerOf, idsOf, toolContextOf, type CallScope, type Decided, type StepAnswer } from './call-scope.js'
import { clockTimers, DEFAULT_TIMEOUT_GRACE_MS } from './call-timing.js'
import { invokeTool } from './invoke-tool.js'

/** What governs one run of a tool: its deadline and grace, and its retries (for this input). */
export interface CallPlan {
  readonly timeoutMs: number | undefined
  readonly graceMs: number
  readonly retry: RetryPolicy | undefined
}

/** How the tool's last answer becomes the call's decision (the call step's own mapping). */
export interface LadderAnswers {
  /** Waits when the result is held for the results that arrive with it (budget-groups.ts). */
  output(output: unknown): StepAnswer
  error(error: unknown, attempts: number | undefined): Decided
}

/**
 * The plan for this call, or undefined when nothing governs it (the plain run). Retries apply
 * only when the tool is idempotent or says this input is read-only (asked now, fail-closed).
 */
export function planOf(call: CallScope, tool: Tool, input: unknown): CallPlan | undefined {
  const timing = call.services.timing
  const declared = tool.timeoutMs ?? timing?.defaultTimeoutMs
  const timeoutMs = declared === undefined || declared === Infinity ? undefined : declared
  const retry = tool.retry !== undefined && mayRetry(call, tool, input) ? tool.retry : undefined
  if (timeoutMs === undefined && retry === undefined) return undefined
  return { timeoutMs, graceMs: timing?.graceMs ?? DEFAULT_TIMEOUT_GRACE_MS, retry }
}

function mayRetry(call: CallScope, tool: Tool, input: unknown): boolean {
  if (tool.idempotent) return true
  return guarded(() => tool.isReadOnly(input, { shell: call.services.ports.shell }), false) === true
}

/** Runs the tool under its plan; settles once with the call's decision. */
export function runLadder(
  call: CallScope,
  tool: Tool,
  input: unknown,
  interrupt: 'cancel' | 'block',
  plan: CallPlan,
  answers: LadderAnswers,
): Promise<Decided> {
  const { log } = call.services
  const timers = call.services.timing?.timers ?? clockTimers(call.services.ports.clock)
  const ids = idsOf(call)
  const controller = controllerOf(call)
  const context = toolContextOf(call)
  return new Promise<Decided>((resolve) => {
    let attempt = 0
    let done = false
    /** The deadline passed and a 'block' tool is in its grace: no further attempt starts. */
    let expired = false
    const cancels: { backoff?: () => void; deadline?: () => void; grace?: () => void } = {}
    const finish = (decided: StepAnswer): void => {
      if (done) return
      done = true
      call.io.backoff = false
      cancels.backoff?.()
      cancels.deadline?.()
      cancels.grace?.()
      controller.signal.removeEventListener('abort', onAbort)
      resolve(decided)
    }
    // The interruption's own events are in the log and this answer is dropped: stop here.
    const onAbort = (): void => finish(interrupted(call, controller.signal.reason))
    controller.signal.addEventListener('abort', onAbort, { once: true })

    const timedOut = (timeoutMs: number, graceMs?: number): void => {
      call.io.timedOut = true
      const event: KernelEventInput = {
        type: 'tool.timed_out',
        ...ids,
        timeoutMs,
        ...(graceMs === undefined ? {} : { graceMs }),
        ...(plan.retry === undefined ? {} : { attempts: attempt }),
      }
      finish({ events: [event] })
      controller.abort(timeoutError(tool.name, timeoutMs))
    }
    const failed = (error: unknown): void => {
      const { retry } = plan
      if (retry === undefined) return finish(answers.error(error, undefined))
      if (attempt >= retry.attempts || controller.signal.aborted || !retryable(retry, error, attempt))
        return finish(answers.error(error, attempt))
      // Another attempt is due, but the deadline has passed (a 'block' tool in its grace): out of
      // time. Recorded as the grace's end, which is where replay's deadline and grace fire.
      if (expired && plan.timeoutMs !== undefined) return timedOut(plan.timeoutMs, plan.graceMs)
      const delayMs = guarded(() => backoffDelay(retry, attempt), 0)
      log.append({
        type: 'tool.retrying',
        ...ids,
        attempt,
        delayMs,
        error: describeError(error),
        errorClass: classifyToolError(error),
      })
      call.io.backoff = true
      cancels.backoff = timers.after('backoff', call.toolUseId, attempt, delayMs, start)
    }
    function start(): void {
      if (done) return
      call.io.backoff = false
      attempt++
      if (attempt > 1) log.append({ type: 'tool.restarted', ...ids, attempt })
      invokeTool(tool, input, context).then(
        (output) => {
          if (!done) finish(answers.output(output))
        },
        (error: unknown) => {
          if (!done) failed(error)
        },
      )
    }

    const { timeoutMs } = plan
    if (timeoutMs !== undefined)
      cancels.deadline = timers.after('deadline', call.toolUseId, 0, timeoutMs, () => {
        if (done) return
        // Nothing is running during a backoff, and a 'cancel' tool stops when told: both end now.
        if (interrupt === 'cancel' || call.io.backoff) return timedOut(timeoutMs)
        expired = true
        cancels.grace = timers.after('grace', call.toolUseId, 0, plan.graceMs, () => {
          if (!done) timedOut(timeoutMs, plan.graceMs)
        })
      })
    start()
  })
}

function retryable(retry: RetryPolicy, error: unknown, attempt: number): boolean {
  const retryOn = retry.retryOn ?? ((e: unknown) => !isAbortError(e))
  return guarded(() => retryOn(error, attempt), false) === true
}

/** What the ladder answers once interrupted (never read: the interruption decided first). */
function interrupted(call: CallScope, reason: unknown): Decided {
  const text = reason instanceof Error ? reason.message : String(reason)
  return { events: [{ type: 'tool.cancelled', ...idsOf(call), step: 'call', reason: text }] }
}

/** The reason a timed-out call's signal carries: a `TimeoutError`, as `AbortSignal.timeout` gives. */
function timeoutError(tool: string, timeoutMs: number): DOMException {
  return new DOMException(`${tool} ran out of time after ${timeoutMs} ms`, 'TimeoutError')
}
