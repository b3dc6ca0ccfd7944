/** Wall-clock time in milliseconds since the epoch, and timers on the same clock. */
export interface Clock {
  now(): number
  /**
   * Runs `fn` once `ms` have passed on this clock; returns a function that cancels it. The
   * kernel's deadlines and retry backoffs use it, so a fake clock (`fakeClock()` from
   * `toolkernel/testing`) moves them without waiting. Optional for clocks written before it: the
   * kernel then falls back to the platform's `setTimeout`.
   */
  setTimeout?(fn: () => void, ms: number): () => void
}
