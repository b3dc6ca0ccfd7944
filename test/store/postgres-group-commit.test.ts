/**
 * Group commit in the PostgreSQL store (docs/decisions/stores.md, 162): appends from many sessions
 * of one process share one statement and one commit, and every guarantee of a lone append holds —
 * per-session order, the fence checked in the same transaction, an append acknowledged only after
 * its commit, a failed commit acknowledging nothing of it. Against a real, throwaway server
 * (skipped where PostgreSQL is not installed). `GROUPED` runs each test with group commit off as
 * well: the rows that can only hold with it say so.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresEventStore } from '../../src/adapters/postgres-event.store.js'
import type { AppendResult, EventStore, StoredEvent } from '../../src/ports/event-store.port.js'
import { postgres } from '../programs.js'
import { startTestServer, type TestServer } from '../postgres-server.js'
import { freshStream, sampleEvent, sampleEvents, until } from './contract.js'

/** The transaction that stored an event: a PostgreSQL store's position is `txid/global position`. */
const txOf = (event: StoredEvent): string => event.position.split('/')[0] as string

/** The events of `turnId` the store holds in `stream`. */
async function storedOf(store: EventStore, stream: string, turnId: string): Promise<StoredEvent[]> {
  return (await store.read(stream)).filter((e) => e.event.turnId === turnId)
}

describe.skipIf(postgres === undefined)('postgres: group commit', () => {
  let server: TestServer
  let url: string
  let admin: pg.Client
  const open: EventStore[] = []
  const make = (groupCommit = true): EventStore => {
    const store = createPostgresEventStore({ connection: url, pollMs: 50, groupCommit })
    open.push(store)
    return store
  }

  beforeAll(async () => {
    server = await startTestServer(postgres as string)
    url = await server.createDatabase('group')
    await make().version('schema')
    admin = new pg.Client({ connectionString: url })
    await admin.connect()
    // A test's way to fail one event inside a commit: the server refuses it, or holds it until
    // the test ends the connection.
    await admin.query(`
      CREATE FUNCTION toolkernel_test_trap() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.event LIKE '%"poison"%' THEN RAISE EXCEPTION 'the test refuses this event'; END IF;
        IF NEW.event LIKE '%"held"%' THEN PERFORM pg_sleep(600); END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER toolkernel_test_trap BEFORE INSERT ON toolkernel_events
        FOR EACH ROW EXECUTE FUNCTION toolkernel_test_trap();`)
  }, 60_000)
  afterAll(async () => {
    for (const store of open) await store.close().catch(() => undefined)
    await admin?.end()
    server?.stop()
  })

  /** Streams that already hold one acknowledged event each (so the next appends go out in the same tick). */
  async function streamsWithOne(store: EventStore, count: number, label: string): Promise<string[]> {
    const streams = Array.from({ length: count }, () => freshStream(label))
    for (const stream of streams)
      expect(await store.append(stream, [sampleEvent(0, 'first')], { expectedVersion: 0 })).toMatchObject({ ok: true })
    return streams
  }

  it('many sessions appending at once: each stream in order, every acknowledgement stored, commits shared', async () => {
    const store = make()
    const sessions = 40
    const appends = 12
    const streams = Array.from({ length: sessions }, () => freshStream('many'))
    // Each session appends its batches one after the other (as the committing log does), all at once.
    const acks = await Promise.all(
      streams.map(async (stream, s) => {
        const mine: Array<{ turnId: string; result: AppendResult; count: number }> = []
        let version = 0
        for (let a = 0; a < appends; a++) {
          const count = 1 + ((s + a) % 4)
          const turnId = `${stream}-${a}`
          const result = await store.append(stream, sampleEvents(version, count, turnId), { expectedVersion: version })
          expect(result, `${turnId}`).toMatchObject({ ok: true, version: version + count })
          version += count
          mine.push({ turnId, result, count })
        }
        return { stream, mine, version }
      }),
    )
    const transactions = new Set<string>()
    for (const { stream, mine, version } of acks) {
      const events = await store.read(stream)
      expect(events.map((e) => e.version)).toEqual(Array.from({ length: version }, (_, i) => i + 1))
      expect(events.map((e) => e.event.seq)).toEqual(events.map((_, i) => i))
      expect(events.map((e) => e.event.turnId)).toEqual(mine.flatMap((m) => Array<string>(m.count).fill(m.turnId)))
      for (const e of events) transactions.add(txOf(e))
    }
    // The global order keeps each stream's order.
    const all = await store.readAll('', 100_000)
    for (const stream of streams) {
      const versions = all.filter((e) => e.stream === stream).map((e) => e.version)
      expect(versions).toEqual([...versions].sort((a, b) => a - b))
    }
    // 480 appends, one per session per round: with group commit a round's appends share commits.
    expect(transactions.size).toBeLessThan((sessions * appends) / 4)
  })

  it("a fenced-out session's append in a shared commit is refused, and the others' commit", async () => {
    const store = make()
    const [fenced, ...others] = await streamsWithOne(store, 5, 'fence')
    const stream = fenced as string
    const first = await store.acquire(stream, 'worker-1', 60_000)
    if (!first.ok) throw new Error(first.message)
    await store.release(first.lease)
    const second = await store.acquire(stream, 'worker-2', 60_000)
    expect(second).toMatchObject({ ok: true, lease: { epoch: first.lease.epoch + 1 } })
    // One tick: the former owner's append (its old epoch) and four others.
    const results = await Promise.all([
      store.append(stream, [sampleEvent(1, 'stale')], { expectedVersion: 1, epoch: first.lease.epoch }),
      ...others.map((s) => store.append(s, [sampleEvent(1, 'shared')], { expectedVersion: 1 })),
    ])
    expect(results[0]).toMatchObject({ ok: false, reason: 'lease' })
    expect(results[0]?.ok === false && results[0].message).toMatch(/lease|epoch/)
    for (const result of results.slice(1)) expect(result).toMatchObject({ ok: true, version: 2 })
    expect(await storedOf(store, stream, 'stale')).toEqual([])
    expect(await store.version(stream)).toBe(1)
    const shared = await Promise.all(
      others.map(async (s) => txOf((await storedOf(store, s, 'shared'))[0] as StoredEvent)),
    )
    // The four went out as one commit.
    expect(new Set(shared).size).toBe(1)
  })

  it('an event the server refuses fails only its own append; the rest of the commit is stored', async () => {
    const store = make()
    const streams = await streamsWithOne(store, 6, 'poison')
    const results = await Promise.allSettled(
      streams.map((s, i) => store.append(s, [sampleEvent(1, i === 2 ? 'poison' : 'fine')], { expectedVersion: 1 })),
    )
    results.forEach((result, i) => {
      if (i === 2) {
        expect(result.status).toBe('rejected')
        expect(String((result as PromiseRejectedResult).reason)).toMatch(/the test refuses this event/)
      } else expect(result).toMatchObject({ status: 'fulfilled', value: { ok: true, version: 2 } })
    })
    expect(await store.version(streams[2] as string)).toBe(1)
    expect(await storedOf(store, streams[2] as string, 'poison')).toEqual([])
    for (const [i, s] of streams.entries()) if (i !== 2) expect(await storedOf(store, s, 'fine')).toHaveLength(1)
  })

  it('a commit whose connection is lost mid-way rejects every append in it, stores none, keeps what was acknowledged', async () => {
    const store = make()
    const streams = await streamsWithOne(store, 5, 'lost')
    const pending = Promise.allSettled(
      streams.map((s, i) => store.append(s, [sampleEvent(1, i === 3 ? 'held' : 'waiting')], { expectedVersion: 1 })),
    )
    // The commit is inside the trigger's sleep: end its connection, as a crash of the server's backend would.
    let terminated = 0
    await until(async () => {
      const { rows } = await admin.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
          WHERE wait_event = 'PgSleep' AND pid <> pg_backend_pid()`,
      )
      terminated = rows.length
      return terminated > 0
    }, 'the held commit')
    const results = await pending
    for (const result of results) {
      expect(result.status).toBe('rejected')
      expect(String((result as PromiseRejectedResult).reason)).toMatch(
        /the commit of 5 append\(s\) \(.*\) failed, so none of them is acknowledged: .*terminat/,
      )
    }
    for (const s of streams) {
      expect(await store.version(s)).toBe(1)
      expect((await store.read(s)).map((e) => e.event.turnId)).toEqual(['first'])
    }
    // The store goes on: the same appends, without the held one, commit now.
    const again = await Promise.all(
      streams.map((s) => store.append(s, [sampleEvent(1, 'again')], { expectedVersion: 1 })),
    )
    for (const result of again) expect(result).toMatchObject({ ok: true, version: 2 })
  })
})
