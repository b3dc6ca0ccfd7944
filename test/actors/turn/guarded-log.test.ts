/**
 * The kernel's guard around the app's log, alone: a store that throws or a fence that fails is
 * kept as the first failure, said once, and from then on events are stamped and held here, so the
 * seqs go on where the store stopped and nothing appended goes missing from `read()`.
 */
import { describe, expect, it } from 'vitest'
import { GuardedLog } from '../../../src/actors/turn/guarded-log.js'
import type { EventLog, KernelEvent } from '../../../src/index.js'
import { memoryLogWith } from '../../helpers.js'

const turnStarted = (turnId: string) => ({
  type: 'turn.started' as const,
  turnId,
  mode: 'batch' as const,
  maxConcurrency: 1,
})

/** A memory log whose appends fail after `appends` of them, and whose fence the test settles. */
function store(options: { appends?: number; fence?: () => Promise<void> } = {}) {
  let taken = 0
  const calls = { fence: 0, close: 0 }
  const log = memoryLogWith((inner) => ({
    append: (event) => {
      if (++taken > (options.appends ?? Infinity)) throw new Error('ENOSPC: no space left on device')
      return inner.append(event)
    },
    close: () => (calls.close++, inner.close()),
    ...(options.fence === undefined ? {} : { fence: () => (calls.fence++, options.fence?.() ?? Promise.resolve()) }),
  }))
  return { log, calls }
}

function guard(log: EventLog) {
  const failures: string[] = []
  const clock = { now: () => 5_000 }
  return { guarded: new GuardedLog(log, clock, (reason) => failures.push(reason)), failures }
}

describe('GuardedLog: appends', () => {
  it('passes appends through to the store while it takes them', () => {
    const { log } = store()
    const { guarded, failures } = guard(log)
    const event = guarded.append(turnStarted('t1'))
    expect(event).toMatchObject({ seq: 0, type: 'turn.started' })
    expect(guarded.read()).toBe(log.read())
    expect(guarded.failure).toBeUndefined()
    expect(failures).toEqual([])
  })

  it('keeps the first failure, says it once, and stamps what the store did not take after its last seq', () => {
    const { log } = store({ appends: 2 })
    const { guarded, failures } = guard(log)
    guarded.append(turnStarted('t1'))
    guarded.append(turnStarted('t2'))
    const third = guarded.append(turnStarted('t3'))
    const fourth = guarded.append(turnStarted('t4'))
    const reason =
      'the event log could not be written (ENOSPC: no space left on device); events from seq 2 on were not recorded'
    expect(failures).toEqual([reason])
    expect(guarded.failure).toBe(reason)
    expect(third).toEqual({ v: 2, seq: 2, at: 5_000, ...turnStarted('t3') })
    expect(fourth).toMatchObject({ seq: 3, at: 5_000 })
    expect(log.read().map((e) => e.seq)).toEqual([0, 1])
    expect(guarded.read().map((e) => [e.seq, (e as KernelEvent & { turnId: string }).turnId])).toEqual([
      [0, 't1'],
      [1, 't2'],
      [2, 't3'],
      [3, 't4'],
    ])
  })

  it("the lost events start after the store's last event, however many it holds", () => {
    const { log } = store({ appends: 3 })
    const { guarded, failures } = guard(log)
    for (const id of ['t1', 't2', 't3', 't4']) guarded.append(turnStarted(id))
    expect(failures).toEqual([expect.stringContaining('events from seq 3 on were not recorded')])
  })

  it('an empty store that fails at once: the lost events start at seq 0', () => {
    const { log } = store({ appends: 0 })
    const { guarded, failures } = guard(log)
    expect(guarded.append(turnStarted('t1')).seq).toBe(0)
    expect(guarded.append(turnStarted('t2')).seq).toBe(1)
    expect(failures).toEqual([expect.stringContaining('events from seq 0 on were not recorded')])
  })

  it('events the store did not take are still seen live', () => {
    const { log } = store({ appends: 1 })
    const { guarded } = guard(log)
    const seen: number[] = []
    guarded.events$.subscribe((event) => seen.push(event.seq))
    guarded.append(turnStarted('t1'))
    guarded.append(turnStarted('t2'))
    expect(seen).toEqual([0, 1])
  })

  it('close closes the store and ends the live events', () => {
    const { log, calls } = store()
    const { guarded } = guard(log)
    let completed = false
    guarded.events$.subscribe({ complete: () => (completed = true) })
    guarded.close()
    expect(calls.close).toBe(1)
    expect(completed).toBe(true)
  })
})

describe('GuardedLog: fences', () => {
  it('has no fence over a store without one (the hot path stays synchronous)', () => {
    expect(guard(store().log).guarded.fence).toBeUndefined()
  })

  it("awaits the store's fence while it works", async () => {
    const { log, calls } = store({ fence: () => Promise.resolve() })
    const { guarded, failures } = guard(log)
    await expect(guarded.fence?.()).resolves.toBeUndefined()
    await expect(guarded.fence?.()).resolves.toBeUndefined()
    expect(calls.fence).toBe(2)
    expect(failures).toEqual([])
  })

  it('a fence that fails is the store failing: kept, said once, and every later fence fails without asking the store', async () => {
    const { log, calls } = store({ fence: () => Promise.reject(new Error('lease lost to b')) })
    const { guarded, failures } = guard(log)
    const reason =
      'the event log could not be made durable (lease lost to b); events since the last durable point may be missing from the store, and later ones were not recorded'
    await expect(guarded.fence?.()).rejects.toThrow(reason)
    await expect(guarded.fence?.()).rejects.toThrow(reason)
    expect(calls.fence).toBe(1)
    expect(failures).toEqual([reason])
    // Appends after it are held, not sent to a store that is gone.
    expect(guarded.append(turnStarted('t1')).seq).toBe(0)
    expect(log.read()).toEqual([])
  })

  it('after an append failed, a fence fails with that failure without asking the store', async () => {
    const { log, calls } = store({ appends: 0, fence: () => Promise.resolve() })
    const { guarded, failures } = guard(log)
    guarded.append(turnStarted('t1'))
    await expect(guarded.fence?.()).rejects.toThrow(/could not be written \(ENOSPC/)
    expect(calls.fence).toBe(0)
    expect(failures).toHaveLength(1)
  })

  it('two fences failing at once: the failure is said once', async () => {
    let fail: (error: Error) => void = () => undefined
    const pending = new Promise<void>((_, reject) => (fail = reject))
    const { log } = store({ fence: () => pending })
    const { guarded, failures } = guard(log)
    const first = guarded.fence?.()
    const second = guarded.fence?.()
    fail(new Error('connection reset'))
    await expect(first).rejects.toThrow(/connection reset/)
    await expect(second).rejects.toThrow(/connection reset/)
    expect(failures).toHaveLength(1)
  })
})
