/**
 * The timers a call's deadline and retry backoff run on (docs/design.md §Deadlines and retries):
 * the kernel's clock port live, so tests move them with a fake clock and never sleep; replay
 * provides its own, which fire where the log recorded them.
 */
import type { Clock } from '../../ports/clock.port.js'

/** What a timer is for: replay opens each where the log shows it fired. */
export type TimerKind = 'deadline' | 'grace' | 'backoff'

export interface CallTimers {
  /**
   * Runs `fn` after `ms` for this call (`attempt`: the attempt a backoff follows); returns a
   * function that cancels it.
   */
  after(kind: TimerKind, toolUseId: string, attempt: number, ms: number, fn: () => void): () => void
}

/** The kernel's deadline settings and timers. */
export interface CallTiming {
  /** The deadline for tools that declare none (`toolTimeoutMs`); undefined: none. */
  readonly defaultTimeoutMs: number | undefined
  /** What a 'block' tool gets past its deadline before it is abandoned (`timeoutGraceMs`). */
  readonly graceMs: number
  readonly timers: CallTimers
}

/** The grace a 'block' tool gets past its deadline, unless the kernel says otherwise. */
export const DEFAULT_TIMEOUT_GRACE_MS = 1_000

/** Timers on a clock: its own when it has them, else the platform's. */
export function clockTimers(clock: Clock): CallTimers {
  const set =
    clock.setTimeout?.bind(clock) ??
    ((fn: () => void, ms: number) => {
      const timer = setTimeout(fn, ms)
      return () => clearTimeout(timer)
    })
  return { after: (_kind, _toolUseId, _attempt, ms, fn) => set(fn, ms) }
}

/** Why a kernel-level deadline setting could never work, or undefined. */
export function timingProblem(toolTimeoutMs: unknown, graceMs: unknown): string | undefined {
  if (
    toolTimeoutMs !== undefined &&
    !(typeof toolTimeoutMs === 'number' && toolTimeoutMs > 0 && !Number.isNaN(toolTimeoutMs))
  )
    return `createKernel: toolTimeoutMs must be a positive number of milliseconds, got ${String(toolTimeoutMs)}`
  if (graceMs !== undefined && !(typeof graceMs === 'number' && Number.isFinite(graceMs) && graceMs >= 0))
    return `createKernel: timeoutGraceMs must be a number of milliseconds, 0 or more, got ${String(graceMs)}`
  return undefined
}
