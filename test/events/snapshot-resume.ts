/**
 * The check the snapshot property tests share (issue 33): a kernel resumed from a snapshot and
 * what follows it sees the same session as one resumed from the whole log — recovery appends the
 * same events; pending approvals, the session (cwd, env, data, mode), the tools sent, the hand-over
 * are equal; and the same next steps (a probe turn, answers) give the same results.
 */
import { expect } from 'vitest'
import { createKernel, createMemoryLog, type Kernel, type KernelEvent, type KernelOptions } from '../../src/index.js'
import { resumeHistory, SnapshotKeeper } from '../../src/events/snapshot.js'
import { fixedClock } from '../helpers.js'

/** What a kernel shows of its session, with the events it appended (less their stamps). */
export interface Seen {
  appended: unknown[]
  pending: unknown
  session: unknown
  apiTools: unknown
  handOver: unknown
  next: unknown[]
}

const unstamped = (events: readonly KernelEvent[]) => events.map(({ seq: _s, at: _a, ...rest }) => rest)

/** Resumes a kernel over `history` and reads what it shows; `next` drives it on (a probe turn, answers). */
export async function seenFrom(
  history: readonly KernelEvent[],
  options: Omit<KernelOptions, 'log' | 'ports'>,
  next: (kernel: Kernel) => Promise<unknown[]>,
): Promise<Seen> {
  const log = createMemoryLog(fixedClock(), [...history])
  const last = history.at(-1)?.seq ?? -1
  let n = 0
  const ports = { clock: fixedClock(), ids: { next: (kind: string) => `${kind}_resumed_${++n}` } }
  const kernel = createKernel({ ...options, log: createMemoryLog(fixedClock()), ports }).resume(log)
  const seen: Seen = {
    appended: unstamped(log.read().filter((e) => e.seq > last)),
    pending: kernel.pendingApprovals(),
    session: kernel.session,
    apiTools: kernel.apiTools(),
    handOver: kernel.handOver(),
    next: [],
  }
  seen.next = await next(kernel)
  // What the next steps appended, snapshots aside (the two kernels count turns from different logs).
  seen.next.push(unstamped(log.read().filter((e) => e.seq > last && e.type !== 'session.snapshot')))
  await kernel.close()
  return seen
}

/**
 * For the log `events` (whole, or cut anywhere: a crash), resuming from its last snapshot equals
 * resuming from the whole log. Returns whether the log had a snapshot to resume from.
 */
export async function expectSnapshotResumeEqual(
  events: readonly KernelEvent[],
  options: Omit<KernelOptions, 'log' | 'ports'>,
  next: (kernel: Kernel) => Promise<unknown[]> = async () => [],
): Promise<boolean> {
  const from = resumeHistory(events)
  if (from === events) return false
  expect(from.length).toBeLessThanOrEqual(events.length)
  const whole = await seenFrom(events, options, next)
  const snapshot = await seenFrom(from, options, next)
  expect(snapshot).toEqual(whole)
  return true
}

/**
 * `events` with a snapshot taken after its first `cut` events (1 ≤ cut ≤ length), as a kernel
 * would have recorded it there: the events after it move one seq on.
 */
export function withSnapshotAt(events: readonly KernelEvent[], cut: number): KernelEvent[] {
  const keeper = new SnapshotKeeper()
  for (const event of events.slice(0, cut)) keeper.add(event)
  const last = events[cut - 1] as KernelEvent
  const snapshot = { ...keeper.snapshot(last.turnId), v: 2, seq: last.seq + 1, at: last.at } as KernelEvent
  return [...events.slice(0, cut), snapshot, ...events.slice(cut).map((e) => ({ ...e, seq: e.seq + 1 }))]
}
