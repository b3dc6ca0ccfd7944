/** The PostgreSQL event store against a real, throwaway server (skipped where PostgreSQL is not installed). */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresEventStore } from '../../src/adapters/postgres-event.store.js'
import type { EventStore, StoredEvent } from '../../src/ports/event-store.port.js'
import { postgres } from '../programs.js'
import { startTestServer, type TestServer } from '../postgres-server.js'
import { freshStream, lastPosition, sampleEvent, sampleEvents, storeContract, until } from './contract.js'

describe.skipIf(postgres === undefined)('postgres', () => {
  let server: TestServer
  let url: string
  beforeAll(async () => {
    server = await startTestServer(postgres as string)
    url = await server.createDatabase('contract')
  }, 60_000)
  afterAll(() => server?.stop())

  let open: EventStore[] = []
  const make = (): EventStore => {
    const store = createPostgresEventStore({ connection: url, pollMs: 50 })
    open.push(store)
    return store
  }
  storeContract(
    'postgres',
    () =>
      Promise.resolve({ store: make(), reopen: () => Promise.resolve(createPostgresEventStore({ connection: url })) }),
    async () => {
      for (const store of open) await store.close()
      open = []
    },
  )
})

describe.skipIf(postgres === undefined)('postgres: the global order', () => {
  let server: TestServer
  let url: string
  beforeAll(async () => {
    server = await startTestServer(postgres as string)
    url = await server.createDatabase('order')
  }, 60_000)
  afterAll(() => server?.stop())

  it('never skips a late commit: a position taken first and committed last is delivered first, both once', async () => {
    const store = createPostgresEventStore({ connection: url, pollMs: 50 })
    await store.version('warm-up')
    const seen: StoredEvent[] = []
    const start = await lastPosition(store)
    const sub = store.subscribe(start, (batch) => void seen.push(...batch), { pollMs: 50 })
    // Connection 1 takes its position (and transaction id) and holds its commit.
    const late = new pg.Client({ connectionString: url })
    await late.connect()
    await late.query('BEGIN')
    await late.query(`INSERT INTO toolkernel_events (stream, version, event) VALUES ('race-late', 1, $1)`, [
      JSON.stringify(sampleEvent(0, 'late')),
    ])
    // Connection 2 (the store's) appends and commits after it; the subscriber polls past it.
    expect(await store.append('race-early', [sampleEvent(0, 'early')], { expectedVersion: 0 })).toMatchObject({
      ok: true,
    })
    // A reader after both positions (as the feed's next poll is) must not go past the open one.
    expect(await store.readAll(start)).toEqual([])
    expect(await sub.lag()).toBe(1)
    expect(seen).toEqual([])
    await late.query('COMMIT')
    await late.end()
    await until(async () => seen.length >= 2, 'both events')
    expect(seen.map((e) => e.stream)).toEqual(['race-late', 'race-early'])
    await until(async () => (await sub.lag()) === 0, 'lag 0')
    await sub.close()
    expect(seen.length).toBe(2)
    await store.close()
  })

  it('many processes opening a fresh database at once: one migrates (under the advisory lock), all work', async () => {
    const db = await server.createDatabase('migrate')
    const stores = Array.from({ length: 6 }, () => createPostgresEventStore({ connection: db }))
    const versions = await Promise.all(
      stores.map((store, i) => store.append(`m${i}`, sampleEvents(0, 1), { expectedVersion: 0 })),
    )
    expect(versions.every((r) => r.ok)).toBe(true)
    for (const store of stores) await store.close()
  })

  it('a subscriber whose connections are terminated reconnects, re-reads, and misses nothing', async () => {
    const store = createPostgresEventStore({ connection: url, pollMs: 100 })
    const s = freshStream()
    const seen: StoredEvent[] = []
    const sub = store.subscribe(
      await lastPosition(store),
      (batch) => void seen.push(...batch.filter((e) => e.stream === s)),
    )
    await store.append(s, sampleEvents(0, 2), { expectedVersion: 0 })
    await until(async () => seen.length === 2, 'the first events')
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = $1',
      ['order'],
    )
    await admin.end()
    let appended = false
    await until(async () => {
      if (!appended)
        appended = await store.append(s, sampleEvents(2, 2), { expectedVersion: 2 }).then(
          (r) => r.ok,
          () => false,
        )
      return appended && seen.length === 4
    }, 'the events after the terminations')
    expect(seen.map((e) => e.version)).toEqual([1, 2, 3, 4])
    await sub.close()
    await store.close()
  })
})
