/**
 * The contract every event store keeps, run against memory, JSONL and PostgreSQL: versions,
 * expected-version conflicts, the global order, subscriptions, and leases with fencing epochs.
 */
import { describe, expect, it } from 'vitest'
import type { KernelEvent } from '../../src/events/event.schema.js'
import type { EventStore, StoredEvent } from '../../src/ports/event-store.port.js'

export interface StoreUnderTest {
  store: EventStore
  /** A second store over the same data (another process's view), when the store has one. */
  reopen?: () => Promise<EventStore>
}

/** A valid event the store can hold (its content is irrelevant here). */
export function sampleEvent(seq: number, turnId = 'turn_1'): KernelEvent {
  return { v: 2, seq, at: 1000 + seq, type: 'turn.completed', turnId, results: seq }
}

export const sampleEvents = (from: number, count: number, turnId?: string): KernelEvent[] =>
  Array.from({ length: count }, (_, i) => sampleEvent(from + i, turnId))

let unique = 0
/** A stream name no other test uses (the PostgreSQL database is shared by a file's tests). */
export const freshStream = (label = 's'): string => `${label}-${process.pid}-${++unique}`

/** Waits for `check` to hold, re-checking after each `step` (an event the test can await), bounded. */
export async function until(check: () => Promise<boolean>, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`timed out waiting for ${what}`)
}

export function storeContract(name: string, open: () => Promise<StoreUnderTest>, close: () => Promise<void>): void {
  describe(`${name} event store: the contract`, () => {
    it('appends batches with consecutive versions and reads a stream from a version', async () => {
      const { store } = await open()
      const s = freshStream()
      expect(await store.version(s)).toBe(0)
      const first = await store.append(s, sampleEvents(0, 3), { expectedVersion: 0 })
      expect(first).toMatchObject({ ok: true, version: 3 })
      expect(await store.append(s, sampleEvents(3, 9), { expectedVersion: 3 })).toMatchObject({ ok: true, version: 12 })
      const all = await store.read(s)
      // Past 9: versions are numbers, not text (10 sorts before 2 as text).
      expect(all.map((e) => e.version)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
      expect(all.map((e) => e.event)).toEqual(sampleEvents(0, 12))
      expect((await store.read(s, 10)).map((e) => e.version)).toEqual([10, 11, 12])
      expect(await store.version(s)).toBe(12)
      await close()
    })

    it('refuses an append at the wrong expected version, storing none of it', async () => {
      const { store } = await open()
      const s = freshStream()
      await store.append(s, sampleEvents(0, 2), { expectedVersion: 0 })
      const stale = await store.append(s, sampleEvents(2, 2), { expectedVersion: 1 })
      expect(stale).toMatchObject({ ok: false, reason: 'version', actualVersion: 2 })
      expect(await store.append(s, sampleEvents(2, 1), { expectedVersion: 5 })).toMatchObject({ ok: false })
      expect((await store.read(s)).length).toBe(2)
      await close()
    })

    it('rejects stream names that are no session id (a path, empty), and empty batches', async () => {
      const { store } = await open()
      for (const bad of ['', '../x', 'a/b', 'x'.repeat(200)])
        await expect(async () => store.read(bad)).rejects.toThrow(/stream name/)
      await expect(async () => store.append(freshStream(), [], { expectedVersion: 0 })).rejects.toThrow(/at least one/)
      await close()
    })

    it('readAll: a global order across streams that keeps each stream in order, continued from a checkpoint', async () => {
      const { store } = await open()
      const [a, b] = [freshStream('a'), freshStream('b')]
      const start = await lastPosition(store)
      await store.append(a, sampleEvents(0, 2), { expectedVersion: 0 })
      await store.append(b, sampleEvents(0, 1), { expectedVersion: 0 })
      await store.append(a, sampleEvents(2, 1), { expectedVersion: 2 })
      const mine = (await store.readAll(start)).filter((e) => e.stream === a || e.stream === b)
      expect(mine.map((e) => `${e.stream === a ? 'a' : 'b'}${e.version}`)).toEqual(['a1', 'a2', 'b1', 'a3'])
      const rest = await store.readAll((mine[1] as StoredEvent).position)
      expect(rest.filter((e) => e.stream === a || e.stream === b).map((e) => e.version)).toEqual([1, 3])
      expect((await store.readAll(start, 2)).length).toBe(2)
      await close()
    })

    it('subscribe: every event after the checkpoint once, in order, history then live; lag falls to 0', async () => {
      const { store } = await open()
      const s = freshStream()
      const start = await lastPosition(store)
      await store.append(s, sampleEvents(0, 2), { expectedVersion: 0 })
      const seen: StoredEvent[] = []
      const sub = store.subscribe(start, (batch) => void seen.push(...batch.filter((e) => e.stream === s)), {
        pollMs: 50,
      })
      await store.append(s, sampleEvents(2, 3), { expectedVersion: 2 })
      await until(async () => seen.length >= 5, 'the subscriber to see 5 events')
      expect(seen.map((e) => e.version)).toEqual([1, 2, 3, 4, 5])
      await until(async () => (await sub.lag()) === 0, 'lag 0')
      await sub.close()
      await store.append(s, sampleEvents(5, 1), { expectedVersion: 5 })
      expect(seen.length).toBe(5)
      await close()
    })

    it('lease: one owner at a time, appends need its epoch, a new acquisition raises the epoch', async () => {
      const { store } = await open()
      const s = freshStream()
      const a = await store.acquire(s, 'owner-a', 60_000)
      if (!a.ok) throw new Error(a.message)
      expect(a.lease.epoch).toBeGreaterThanOrEqual(1)
      const b = await store.acquire(s, 'owner-b', 60_000)
      expect(b).toMatchObject({ ok: false, holder: 'owner-a' })
      expect(await store.append(s, sampleEvents(0, 1), { expectedVersion: 0 })).toMatchObject({
        ok: false,
        reason: 'lease',
      })
      const wrong = await store.append(s, sampleEvents(0, 1), { expectedVersion: 0, epoch: a.lease.epoch + 1 })
      expect(wrong).toMatchObject({ ok: false, reason: 'lease' })
      expect(await store.append(s, sampleEvents(0, 1), { expectedVersion: 0, epoch: a.lease.epoch })).toMatchObject({
        ok: true,
      })
      const renewed = await store.renew(a.lease, 60_000)
      expect(renewed.ok).toBe(true)
      await store.release(a.lease)
      const c = await store.acquire(s, 'owner-b', 60_000)
      if (!c.ok) throw new Error(c.message)
      expect(c.lease.epoch).toBeGreaterThan(a.lease.epoch)
      const fenced = await store.append(s, sampleEvents(1, 1), { expectedVersion: 1, epoch: a.lease.epoch })
      expect(fenced).toMatchObject({ ok: false, reason: 'lease' })
      expect((await store.renew(a.lease, 60_000)).ok).toBe(false)
      await close()
    })

    it('lease expiry on the store clock: another owner takes over; the former one can neither renew nor append', async () => {
      const { store } = await open()
      const s = freshStream()
      const a = await store.acquire(s, 'owner-a', 150)
      if (!a.ok) throw new Error(a.message)
      let taken: Awaited<ReturnType<EventStore['acquire']>> | undefined
      await until(async () => (taken = await store.acquire(s, 'owner-b', 60_000)).ok, 'the lease to expire')
      expect(taken).toMatchObject({ ok: true })
      expect((await store.renew(a.lease, 60_000)).ok).toBe(false)
      const late = await store.append(s, sampleEvents(0, 1), { expectedVersion: 0, epoch: a.lease.epoch })
      expect(late).toMatchObject({ ok: false, reason: 'lease' })
      expect(late.ok === false && late.message).toMatch(/lease lost/)
      await close()
    })

    it('another view of the same data sees the appends, versions and epochs', async () => {
      const { store, reopen } = await open()
      if (reopen === undefined) return void (await close())
      const s = freshStream()
      const a = await store.acquire(s, 'owner-a', 60_000)
      if (!a.ok) throw new Error(a.message)
      await store.append(s, sampleEvents(0, 2), { expectedVersion: 0, epoch: a.lease.epoch })
      await store.release(a.lease)
      const other = await reopen()
      expect((await other.read(s)).map((e) => e.event)).toEqual(sampleEvents(0, 2))
      const b = await other.acquire(s, 'owner-b', 60_000)
      expect(b.ok && b.lease.epoch).toBeGreaterThan(a.lease.epoch)
      await other.close()
      await close()
    })
  })
}

/** The position of the last event in the store ('' when empty). */
export async function lastPosition(store: EventStore): Promise<string> {
  let at = ''
  for (;;) {
    const page = await store.readAll(at, 1000)
    if (page.length === 0) return at
    at = (page.at(-1) as StoredEvent).position
  }
}
