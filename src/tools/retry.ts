/**
 * Retries and deadlines as a tool declares them (docs/design.md §Deadlines and retries):
 * the policy's shape, its checks (`buildTool` refuses what could never work) and the delay before
 * each attempt. Pure: the call step runs the ladder.
 */

/** Exponential backoff: `initialMs`, then times `factor` per attempt, never more than `maxMs`. */
export interface Backoff {
  /** The wait after the first failure. */
  readonly initialMs: number
  /** Multiplies the wait after each further failure. Default 2. */
  readonly factor?: number
  /** The longest wait. Default 30,000 ms (or `initialMs`, if that is longer). */
  readonly maxMs?: number
}

/**
 * Another attempt for a tool that fails. Only for tools that declare themselves read-only
 * (`isReadOnly`) or `idempotent`: running a tool again must not do its effect twice.
 *
 * @example
 * retry: { attempts: 3, backoff: { initialMs: 200, factor: 2, maxMs: 2_000 }, retryOn: (e) => isTransient(e) }
 */
export interface RetryPolicy {
  /** Most attempts in all, the first included: 2 or more. */
  readonly attempts: number
  /**
   * The wait before the next attempt, after attempt `attempt` (1, 2, …) failed: exponential, or
   * a function of the attempt (it should be deterministic: replay computes it again and compares).
   * Default `{ initialMs: 200, factor: 2, maxMs: 30_000 }`.
   */
  readonly backoff?: Backoff | ((attempt: number) => number)
  /**
   * Whether a thrown error is worth another attempt. Default: any error that is not an abort
   * (`AbortError`, `TimeoutError`). Never asked once the call's signal is aborted.
   */
  readonly retryOn?: (error: unknown, attempt: number) => boolean
}

export const DEFAULT_BACKOFF: Required<Backoff> = { initialMs: 200, factor: 2, maxMs: 30_000 }

/** The wait after attempt `attempt` failed, in whole milliseconds (0 for a backoff that answers nonsense). */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const backoff = policy.backoff ?? DEFAULT_BACKOFF
  let ms: number
  if (typeof backoff === 'function') ms = backoff(attempt)
  else {
    const factor = backoff.factor ?? DEFAULT_BACKOFF.factor
    const max = backoff.maxMs ?? Math.max(DEFAULT_BACKOFF.maxMs, backoff.initialMs)
    ms = Math.min(max, backoff.initialMs * factor ** (attempt - 1))
  }
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0
}

/** Whether an error is an abort: never worth another attempt by default. */
export function isAbortError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const name = (error as { name?: unknown }).name
  return name === 'AbortError' || name === 'TimeoutError'
}

/** Why a declared deadline could never work, or undefined. `Infinity` means the tool keeps its own. */
export function timeoutProblem(timeoutMs: unknown): string | undefined {
  if (timeoutMs === undefined || timeoutMs === Infinity) return undefined
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0)
    return `timeoutMs must be a positive number of milliseconds (or Infinity for no kernel deadline), got ${String(timeoutMs)}`
  return undefined
}

/** Why a declared retry policy could never work, or may not be declared on this tool; or undefined. */
export function retryProblem(
  retry: RetryPolicy | undefined,
  traits: { readOnly: boolean; idempotent: boolean },
): string | undefined {
  if (retry === undefined) return undefined
  if (typeof retry !== 'object' || retry === null) return 'retry must be an object { attempts, backoff?, retryOn? }'
  if (!traits.readOnly && !traits.idempotent)
    return 'retry is only for tools that declare themselves read-only (isReadOnly) or idempotent (idempotent: true): running any other tool again could do its effect twice'
  if (!Number.isInteger(retry.attempts) || retry.attempts < 2)
    return `retry.attempts must be a whole number of attempts, 2 or more (the first included), got ${String(retry.attempts)}`
  if (retry.retryOn !== undefined && typeof retry.retryOn !== 'function')
    return 'retry.retryOn must be a function (error, attempt) => boolean'
  return backoffProblem(retry.backoff)
}

function backoffProblem(backoff: RetryPolicy['backoff']): string | undefined {
  if (backoff === undefined || typeof backoff === 'function') return undefined
  if (typeof backoff !== 'object' || backoff === null)
    return 'retry.backoff must be { initialMs, factor?, maxMs? } or a function of the attempt'
  const { initialMs, factor = DEFAULT_BACKOFF.factor } = backoff
  const maxMs = backoff.maxMs ?? Math.max(DEFAULT_BACKOFF.maxMs, initialMs)
  if (!(Number.isFinite(initialMs) && initialMs >= 0))
    return `retry.backoff.initialMs must be a number of milliseconds, 0 or more, got ${String(initialMs)}`
  if (!(Number.isFinite(factor) && factor >= 1)) return `retry.backoff.factor must be 1 or more, got ${String(factor)}`
  if (!(Number.isFinite(maxMs) && maxMs >= initialMs))
    return `retry.backoff.maxMs must be a number of milliseconds, at least initialMs, got ${String(maxMs)}`
  return undefined
}
