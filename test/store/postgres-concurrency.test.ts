/**
 * Many processes on one database, with and without chaos: 8 worker processes append random
 * batches with random expected versions and lease takeovers to shared sessions; afterwards
 * every stream is 1…k without holes or duplicates, every acknowledged append is there, none was
 * acknowledged to a superseded epoch, and one subscriber saw every event once, in order.
 * Chaos: a worker killed with SIGKILL, backends terminated, the server restarted `-m immediate`.
 * (The workers run the compiled build: `npm test` builds first.)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresEventStore } from '../../src/adapters/postgres-event.store.js'
import type { EventStore, StoredEvent } from '../../src/ports/event-store.port.js'
import { postgres } from '../programs.js'
import { startTestServer, type TestServer } from '../postgres-server.js'
import { sampleEvent, until } from './contract.js'

interface Line {
  worker: string
  t: 'acquired' | 'ack' | 'refused' | 'unknown' | 'error' | 'done'
  stream: string
  id: string
  count: number
  epoch: number
  version: number
  sent: number
  received: number
}

const WORKER = new URL('./fixtures/pg-worker.mjs', import.meta.url).pathname
const STOPPER = new URL('./fixtures/pg-stopper.mjs', import.meta.url).pathname

function startWorker(url: string, worker: number, seed: number, onLine: (line: Line) => void): ChildProcess {
  const child = spawn(process.execPath, [WORKER, url, String(worker), '5', '40', String(seed)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) =>
    onLine(JSON.parse(text) as Line),
  )
  return child
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((r) => child.once('exit', () => r()))

/** Checks every invariant over what the store holds, what the workers were told, and what the subscriber saw. */
async function checkInvariants(
  store: EventStore,
  lines: readonly Line[],
  seen: readonly StoredEvent[],
): Promise<number> {
  const streams = [...new Set(lines.filter((l) => l.stream !== undefined).map((l) => l.stream))]
  let total = 0
  for (const stream of streams) {
    const events = await store.read(stream)
    total += events.length
    expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i + 1))
    const at = new Map<string, number[]>()
    for (const e of events) at.set(e.event.turnId, [...(at.get(e.event.turnId) ?? []), e.version])
    for (const line of lines.filter((l) => l.stream === stream)) {
      const versions = at.get(line.id)
      if (line.t === 'ack') {
        const first = line.version - line.count + 1
        expect(versions, `acknowledged ${line.id}`).toEqual(Array.from({ length: line.count }, (_, i) => first + i))
      }
      if (line.t === 'refused') expect(versions, `refused ${line.id}`).toBeUndefined()
      if (line.t === 'unknown') expect([0, line.count]).toContain(versions?.length ?? 0)
    }
    const epochs = events.map((e) => (e.event.type === 'turn.completed' ? e.event.results : 0)).filter((x) => x > 0)
    expect(epochs).toEqual([...epochs].sort((a, b) => a - b))
    // No append sent after a takeover was acknowledged was accepted with the epoch it superseded.
    const acquired = lines.filter((l) => l.stream === stream && l.t === 'acquired')
    for (const ack of lines.filter((l) => l.stream === stream && l.t === 'ack' && l.epoch > 0)) {
      const stale = acquired.find((a) => a.epoch > ack.epoch && a.received < ack.sent)
      expect(stale, `${ack.id} (epoch ${ack.epoch}) after epoch ${stale?.epoch} was taken`).toBeUndefined()
    }
  }
  const mine = seen.filter((e) => streams.includes(e.stream))
  expect(mine.length).toBe(total)
  expect(new Set(mine.map((e) => e.position)).size).toBe(mine.length)
  const last = new Map<string, number>()
  for (const e of mine) {
    expect(e.version).toBe((last.get(e.stream) ?? 0) + 1)
    last.set(e.stream, e.version)
  }
  return total
}

describe.skipIf(postgres === undefined)('postgres: many processes', () => {
  let server: TestServer
  let url: string
  beforeAll(async () => {
    server = await startTestServer(postgres as string)
    url = await server.createDatabase('concurrency')
  }, 60_000)
  afterAll(() => server?.stop())

  async function run(label: string, chaos: (lines: Line[], workers: ChildProcess[]) => void): Promise<number> {
    const db = await server.createDatabase(label)
    const store = createPostgresEventStore({ connection: db, pollMs: 100 })
    await store.version('warm-up')
    const seen: StoredEvent[] = []
    const sub = store.subscribe('', (batch) => void seen.push(...batch), { pollMs: 100 })
    const lines: Line[] = []
    const seed = Date.now() % 100_000
    const workers: ChildProcess[] = []
    for (let w = 0; w < 8; w++)
      workers.push(
        startWorker(db, w, seed + w, (line) => {
          lines.push(line)
          chaos(lines, workers)
        }),
      )
    await Promise.all(workers.map(exited))
    const streams = new Set(lines.map((l) => l.stream).filter((s) => s !== undefined))
    let total = 0
    for (const s of streams) total += await store.version(s)
    await until(
      async () => seen.filter((e) => streams.has(e.stream)).length >= total,
      `the subscriber (seed ${seed})`,
      400,
    )
    const checked = await checkInvariants(store, lines, seen)
    expect(lines.filter((l) => l.t === 'ack').length, `seed ${seed}`).toBeGreaterThan(20)
    const owners = (s: string) =>
      new Set(lines.filter((l) => l.t === 'acquired' && l.stream === s).map((l) => l.worker))
    expect(
      [...streams].some((s) => owners(s).size > 1),
      `a takeover happened (seed ${seed})`,
    ).toBe(true)
    await sub.close()
    await store.close()
    return checked
  }

  it('8 processes × 5 sessions: random batches, expected versions and takeovers keep every invariant', async () => {
    expect(await run('plain', () => undefined)).toBeGreaterThan(0)
  }, 60_000)

  it('chaos: SIGKILL a writer, terminate random backends, restart the server -m immediate; the invariants hold', async () => {
    let ops = 0
    let restarted = false
    let killed = false
    const admin = async (): Promise<void> => {
      const client = new pg.Client({ connectionString: server.url() })
      // The restart may end this connection too: an error without a listener would end the test run.
      client.on('error', () => undefined)
      await client.connect().catch(() => undefined)
      await client
        .query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = 'chaos' AND pid <> pg_backend_pid() ORDER BY random() LIMIT 3`,
        )
        .catch(() => undefined)
      await client.end().catch(() => undefined)
    }
    const total = await run('chaos', (lines, workers) => {
      const line = lines.at(-1) as Line
      // Counted by operations done, whatever their outcome (8 workers × 40): the chaos happens
      // early in every run, however many appends the seed, conflicts and the outage let through.
      if (line.t !== 'ack' && line.t !== 'refused' && line.t !== 'error') return
      ops++
      if (ops % 10 === 0) void admin()
      if (!killed && ops >= 10) {
        killed = true
        workers[0]?.kill('SIGKILL')
      }
      if (!restarted && ops >= 25) {
        restarted = true
        server.restartImmediate()
      }
    })
    expect(restarted && killed).toBe(true)
    expect(total).toBeGreaterThan(0)
  }, 60_000)

  it('a lease owner stopped past its lease (SIGSTOP), then continued: its next append fails as a lost lease', async () => {
    const child = spawn(process.execPath, [STOPPER, url, 'stopped-owner', '300'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    const answers: Array<{ t: string; epoch?: number; result?: { ok: boolean; reason?: string; message?: string } }> =
      []
    createInterface({ input: child.stdout }).on('line', (text) => answers.push(JSON.parse(text) as (typeof answers)[0]))
    await until(async () => answers.length === 1, 'the stopper to hold the lease')
    child.stdin.write('append\n')
    await until(async () => answers.length === 2, 'its first append')
    expect(answers[1]?.result?.ok).toBe(true)
    child.kill('SIGSTOP')
    const store = createPostgresEventStore({ connection: url })
    let taken: Awaited<ReturnType<EventStore['acquire']>> | undefined
    await until(async () => (taken = await store.acquire('stopped-owner', 'successor', 60_000)).ok, 'the takeover')
    if (taken?.ok !== true) throw new Error('no takeover')
    expect(
      await store.append('stopped-owner', [sampleEvent(1)], { expectedVersion: 1, epoch: taken.lease.epoch }),
    ).toMatchObject({
      ok: true,
    })
    child.kill('SIGCONT')
    child.stdin.write('append\n')
    await until(async () => answers.length === 3, 'its append after SIGCONT')
    expect(answers[2]?.result).toMatchObject({ ok: false, reason: 'lease' })
    expect(answers[2]?.result?.message).toMatch(/lease lost/)
    expect((await store.read('stopped-owner')).map((e) => e.event.turnId)).toEqual(['stopper', 'turn_1'])
    child.stdin.end()
    await exited(child)
    await store.close()
  }, 120_000)
})
