/** A kernel on a fake clock, and a way to let its promises run without time passing. */
import { createKernel, createMemoryLog, type KernelOptions, type Tool } from '../../../src/index.js'
import type { FakeClock } from '../../../src/testing/index.js'
import { counterIds } from '../../helpers.js'

export function kernelOn(clock: FakeClock, tools: readonly Tool[], more: Partial<KernelOptions> = {}) {
  return createKernel({ tools, log: createMemoryLog(clock), ports: { clock, ids: counterIds() }, ...more })
}

/** Lets promise callbacks and the log run (no time passes: the clock is fake). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

/**
 * Moves the fake clock `ms` in steps of `step`, letting promises run between steps as the event
 * loop runs them between real timers (`advance` alone fires every due timer before any promise
 * callback, so a tool that finished at 10 ms would lose to a deadline at 105 ms).
 */
export async function advanceInSteps(clock: FakeClock, ms: number, step = 5): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(Math.min(step, ms - done))
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve))
  }
}
