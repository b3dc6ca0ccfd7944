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
