/**
 * The event store on PostgreSQL (node-postgres), for many processes and machines. The rules (see
 * docs/decisions/stores.md, 63):
 *
 * - An append is one statement: it moves the stream's row from the expected version (row lock:
 *   two writers of a session serialise, the second finds the version moved) and inserts the batch.
 *   It also requires the lease epoch, unexpired on the server's clock, so a former owner is fenced.
 * - The global order is (transaction id, position), read only below the oldest transaction still
 *   running (`pg_snapshot_xmin(pg_current_snapshot())`): a transaction that took its position early
 *   and commits late is never skipped, only waited for. A stream's appends carry growing
 *   transaction ids (the row remembers the last), so the global order keeps each stream's order.
 * - NOTIFY carries the position as a wake-up; readers poll as well and re-read after a reconnect.
 * - Group commit (docs/decisions/stores.md, 162): the appends of many sessions that arrive together
 *   go out as one statement and one commit, each stream's version and fence checked in it.
 */
import pg from 'pg'
import { JsonlLineParser } from '../events/jsonl.js'
import type { KernelEvent } from '../events/event.schema.js'
import type {
  AppendOptions,
  AppendResult,
  Checkpoint,
  EventStore,
  Lease,
  LeaseResult,
  StoreSubscription,
  StoredEvent,
  SubscribeOptions,
} from '../ports/event-store.port.js'
import { appendRefusal, assertBatch, assertStreamName, heldText, lostText } from './memory-event.store.js'
import { migrate, SNAPSHOT_ROW } from './postgres-schema.js'
import { CHANNEL, PostgresListener } from './postgres-listener.js'
import { startFeed } from './subscribe-event.store.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

export interface PostgresEventStoreOptions {
  /** `postgres://user@host:port/db`, or a node-postgres pool configuration. */
  connection: string | pg.PoolConfig
  /** Most connections this process opens for appends and reads. Default 10. */
  maxConnections?: number
  /** A session idle inside a transaction longer than this is ended by the server. Default 10,000 ms. */
  idleInTransactionTimeoutMs?: number
  /** Default poll interval of subscriptions (NOTIFY usually wakes them sooner). Default 1,000 ms. */
  pollMs?: number
  /**
   * Appends from many sessions share one statement and one commit (docs/decisions/stores.md, 162).
   * Default true; false sends each append alone (one round trip each), as before.
   */
  groupCommit?: boolean
}

const APPEND = `
WITH s AS (
  UPDATE toolkernel_streams
     SET version = version + cardinality($4::text[]), last_xid = pg_current_xact_id()
   WHERE stream = $1 AND version = $2
     AND (last_xid IS NULL OR last_xid < pg_current_xact_id())
     AND CASE WHEN $3::bigint IS NULL THEN lease_owner IS NULL OR lease_expires <= now()
              ELSE epoch = $3::bigint AND lease_owner IS NOT NULL AND lease_expires > now() END
  RETURNING version
), ins AS (
  INSERT INTO toolkernel_events (stream, version, event)
  SELECT $1, $2 + t.ord, t.e FROM s, unnest($4::text[]) WITH ORDINALITY AS t(e, ord)
  RETURNING transaction_id, global_position
), p AS (
  SELECT (array_agg(transaction_id::text))[1] || '/' || max(global_position)::text AS position FROM ins
)
SELECT s.version::text AS version, p.position, pg_notify('${CHANNEL}', p.position) FROM s, p`

/**
 * Many sessions' appends in one statement, one commit (docs/decisions/stores.md, 162). $1…$4 are
 * one entry per append (each stream once): stream, expected version, epoch (null: no lease), count;
 * $5…$7 one entry per event: stream, place in its append (1…n), text. The rows are locked in
 * stream order (two processes never wait on each other in a cycle), then each moves only if its
 * own version and fence hold — the same test as APPEND; a stream that fails it inserts nothing and
 * returns no row, and the others commit.
 */
const APPEND_MANY = `
WITH b AS (
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::int[]) AS b(stream, expected, epoch, n)
), locked AS (
  SELECT t.stream FROM toolkernel_streams t JOIN b USING (stream) ORDER BY t.stream FOR UPDATE OF t
), s AS (
  UPDATE toolkernel_streams t
     SET version = t.version + b.n, last_xid = pg_current_xact_id()
    FROM b JOIN locked USING (stream)
   WHERE t.stream = b.stream AND t.version = b.expected
     AND (t.last_xid IS NULL OR t.last_xid < pg_current_xact_id())
     AND CASE WHEN b.epoch IS NULL THEN t.lease_owner IS NULL OR t.lease_expires <= now()
              ELSE t.epoch = b.epoch AND t.lease_owner IS NOT NULL AND t.lease_expires > now() END
  RETURNING t.stream, t.version, b.expected
), ins AS (
  INSERT INTO toolkernel_events (stream, version, event)
  SELECT e.stream, s.expected + e.ord, e.event
    FROM unnest($5::text[], $6::int[], $7::text[]) WITH ORDINALITY AS e(stream, ord, event, i)
    JOIN s USING (stream)
   ORDER BY e.i
  RETURNING stream, transaction_id, global_position
), p AS (
  SELECT stream, min(transaction_id::text) || '/' || max(global_position)::text AS position FROM ins GROUP BY stream
), w AS (
  SELECT pg_notify('${CHANNEL}', min(transaction_id::text) || '/' || max(global_position)::text) AS woke FROM ins
)
SELECT s.stream, s.version::text AS version, p.position FROM s JOIN p USING (stream) CROSS JOIN w`

const READ_ALL = `
SELECT stream, version::text, transaction_id::text AS tx, global_position::text AS pos, event
  FROM toolkernel_events
 WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
   AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY transaction_id, global_position
 LIMIT $3`

const LEASE_ROW = `
SELECT version::text, epoch::text, lease_owner, (extract(epoch FROM lease_expires) * 1000)::float8 AS expires,
       (extract(epoch FROM now()) * 1000)::float8 AS now
  FROM toolkernel_streams WHERE stream = $1`

interface EventRow {
  stream: string
  version: string
  tx: string
  pos: string
  event: string
}

/**
 * A grouped append's answer: its row, undefined when its version or fence failed, 'alone' to send
 * it by itself, or the commit's error.
 */
type GroupAnswer = { version: string; position: string } | undefined | 'alone' | Error

/** An append waiting for its group commit; settles with its row (undefined: refused) or the commit's error. */
interface Pending {
  readonly stream: string
  readonly expected: number
  readonly epoch: number | null
  readonly lines: readonly string[]
  readonly settle: (row: GroupAnswer) => void
}

/** Group commits in flight at once (each on its own connection): one fills while one commits. */
const GROUP_IN_FLIGHT = 2
/** Most events in one group commit; more wait for the next. */
const GROUP_MAX_EVENTS = 5000

interface LeaseRow {
  version: string
  epoch: string
  lease_owner: string | null
  expires: number | null
  now: number
}

class PostgresEventStore implements EventStore {
  readonly #pool: pg.Pool
  readonly #listener: PostgresListener
  readonly #known = new Set<string>()
  readonly #pollMs: number
  readonly #group: boolean
  #schema: Promise<void> | undefined
  /** Appends waiting for a group commit, in arrival order. */
  #queue: Pending[] = []
  /** Streams with an append in a commit in flight: their next append waits (one per stream per commit). */
  readonly #busy = new Set<string>()
  #inFlight = 0
  #pumpScheduled = false

  constructor(options: PostgresEventStoreOptions) {
    const base: pg.PoolConfig =
      typeof options.connection === 'string' ? { connectionString: options.connection } : options.connection
    const idle = options.idleInTransactionTimeoutMs ?? 10_000
    const config: pg.PoolConfig = { ...base, options: `-c idle_in_transaction_session_timeout=${idle}` }
    this.#pool = new pg.Pool({ max: options.maxConnections ?? 10, ...config })
    // A connection the server ended (restart, pg_terminate_backend) is dropped from the pool; the
    // query on it has already failed. Without a listener the error would end the process.
    this.#pool.on('error', () => undefined)
    // And a client the pool has handed out (a query, the migration) has only the query's one-shot
    // listener: the server's FATAL message and then the connection's end are two errors, and the
    // second would end the process. The query in flight gets the first either way.
    this.#pool.on('connect', (client) => client.on('error', () => undefined))
    this.#listener = new PostgresListener(base)
    this.#pollMs = options.pollMs ?? 1000
    this.#group = options.groupCommit ?? true
  }

  async #query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    this.#schema ??= migrate(this.#pool).catch((error: unknown) => {
      this.#schema = undefined
      throw error
    })
    await this.#schema
    return (await this.#pool.query<R>(text, values)).rows
  }

  /**
   * A query that only reads: retried when the server dropped its connection (a restart,
   * pg_terminate_backend, a failover), since running it twice changes nothing. Writes are never
   * retried here: the committing log reads back what a lost answer had stored.
   */
  async #read<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#query<R>(text, values)
      } catch (error) {
        if (attempt >= READ_ATTEMPTS || !connectionLost(error)) throw error
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt))
      }
    }
  }

  async append(stream: string, events: readonly KernelEvent[], options: AppendOptions): Promise<AppendResult> {
    assertStreamName(stream)
    assertBatch(events)
    if (!this.#known.has(stream)) {
      await this.#query('INSERT INTO toolkernel_streams (stream) VALUES ($1) ON CONFLICT DO NOTHING', [stream])
      this.#known.add(stream)
    }
    const lines = events.map((event) => JSON.stringify(event))
    const epoch = options.epoch ?? null
    const grouped = this.#group ? await this.#enqueue(stream, options.expectedVersion, epoch, lines) : 'alone'
    if (grouped instanceof Error) throw grouped
    const answer =
      grouped === 'alone' ? await this.#appendAlone(stream, options.expectedVersion, epoch, lines) : grouped
    if (answer === 'raced') return this.#refusal(stream, options, true)
    if (answer === undefined) return this.#refusal(stream, options, false)
    return { ok: true, version: Number(answer.version), position: answer.position }
  }

  /** One append, one statement (APPEND): its row, undefined when its version or fence failed, or 'raced'. */
  async #appendAlone(
    stream: string,
    expected: number,
    epoch: number | null,
    lines: readonly string[],
  ): Promise<{ version: string; position: string } | 'raced' | undefined> {
    try {
      return (await this.#query<{ version: string; position: string }>(APPEND, [stream, expected, epoch, lines]))[0]
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return 'raced'
      throw error
    }
  }

  /**
   * Queues an append for the next group commit. Resolves with its row once that commit is done,
   * undefined when its version or fence failed (#refusal says why), 'alone' when the server
   * refused the commit as a whole (append then sends it by itself, see #commitGroup), or the
   * commit's error.
   */
  #enqueue(stream: string, expected: number, epoch: number | null, lines: readonly string[]): Promise<GroupAnswer> {
    return new Promise((settle) => {
      this.#queue.push({ stream, expected, epoch, lines, settle })
      if (this.#pumpScheduled) return
      this.#pumpScheduled = true
      // Every append the event loop's current phase makes joins this commit (the sessions' logs
      // flush at setImmediate too).
      setImmediate(() => {
        this.#pumpScheduled = false
        this.#pump()
      })
    })
  }

  /** Starts group commits while a slot is free and an append waits whose stream is not in flight. */
  #pump(): void {
    while (this.#inFlight < GROUP_IN_FLIGHT) {
      const group: Pending[] = []
      const taken = new Set<string>()
      let events = 0
      const rest: Pending[] = []
      for (const entry of this.#queue) {
        const fits = events === 0 || events + entry.lines.length <= GROUP_MAX_EVENTS
        if (fits && !this.#busy.has(entry.stream) && !taken.has(entry.stream)) {
          group.push(entry)
          taken.add(entry.stream)
          events += entry.lines.length
        } else rest.push(entry)
      }
      if (group.length === 0) return
      this.#queue = rest
      for (const stream of taken) this.#busy.add(stream)
      this.#inFlight++
      void this.#commitGroup(group).finally(() => {
        this.#inFlight--
        for (const stream of taken) this.#busy.delete(stream)
        this.#pump()
      })
    }
  }

  /**
   * One statement for the whole group (APPEND_MANY), committed on its own. Each append gets its
   * row, or undefined when its own version or fence failed. When the server refused the statement
   * (an error answer: it rolled back, nothing of it is stored), each append is sent again alone,
   * so one bad append fails only itself. When the connection was lost the commit may or may not
   * have happened: every append in it rejects, and the committing log reads back what is stored.
   */
  async #commitGroup(group: readonly Pending[]): Promise<void> {
    const events = group.flatMap((entry) => entry.lines.map((line, i) => [entry.stream, i + 1, line] as const))
    let rows: Array<{ stream: string; version: string; position: string }>
    try {
      rows = await this.#query(APPEND_MANY, [
        group.map((entry) => entry.stream),
        group.map((entry) => entry.expected),
        group.map((entry) => entry.epoch),
        group.map((entry) => entry.lines.length),
        events.map((event) => event[0]),
        events.map((event) => event[1]),
        events.map((event) => event[2]),
      ])
    } catch (error) {
      if (answered(error)) {
        for (const entry of group) entry.settle('alone')
        return
      }
      const streams = group.map((entry) => entry.stream)
      const shown = streams.length > 5 ? `${streams.slice(0, 5).join(', ')}, …` : streams.join(', ')
      const failed = new Error(
        `the commit of ${group.length} append(s) (${shown}) failed, so none of them is acknowledged: ${String(error)}`,
        { cause: error },
      )
      Object.assign(failed, { code: (error as { code?: unknown }).code })
      for (const entry of group) entry.settle(failed)
      return
    }
    const byStream = new Map(rows.map((row) => [row.stream, row]))
    for (const entry of group) entry.settle(byStream.get(entry.stream))
  }

  /** Why an append stored nothing, from the stream's row as it is now. */
  async #refusal(stream: string, options: AppendOptions, raced: boolean): Promise<Exclude<AppendResult, { ok: true }>> {
    const row = (await this.#query<LeaseRow>(LEASE_ROW, [stream]))[0]
    const state = {
      version: Number(row?.version ?? 0),
      lease: { owner: row?.lease_owner ?? undefined, epoch: Number(row?.epoch ?? 0), expiresAt: row?.expires ?? 0 },
    }
    const refused = raced ? undefined : appendRefusal(state, options, row?.now ?? 0)
    return (
      refused ?? {
        ok: false,
        reason: 'version',
        actualVersion: state.version,
        message: `a concurrent append to ${stream} committed first (the stream is at ${state.version}); read it and try again`,
      }
    )
  }

  async read(stream: string, fromVersion = 1): Promise<StoredEvent[]> {
    assertStreamName(stream)
    const rows = await this.#read<EventRow>(
      `SELECT stream, version::text, transaction_id::text AS tx, global_position::text AS pos, event
         FROM toolkernel_events e WHERE e.stream = $1 AND e.version >= $2 ORDER BY e.version`,
      [stream, fromVersion],
    )
    return parseRows(rows)
  }

  async lastSnapshot(stream: string): Promise<number | undefined> {
    assertStreamName(stream)
    const rows = await this.#read<{ version: string }>(
      `SELECT version::text FROM toolkernel_events WHERE stream = $1 AND ${SNAPSHOT_ROW} ORDER BY version DESC LIMIT 1`,
      [stream],
    )
    return rows[0] === undefined ? undefined : Number(rows[0].version)
  }

  async version(stream: string): Promise<number> {
    assertStreamName(stream)
    const rows = await this.#read<{ version: string }>(
      'SELECT version::text FROM toolkernel_streams WHERE stream = $1',
      [stream],
    )
    return Number(rows[0]?.version ?? 0)
  }

  async readAll(after: Checkpoint, limit = 1000): Promise<StoredEvent[]> {
    const [tx, pos] = splitCheckpoint(after)
    return parseRows(await this.#read<EventRow>(READ_ALL, [tx, pos, limit]))
  }

  /** Events committed after the checkpoint, including those still held back behind an older open transaction. */
  async countAfter(after: Checkpoint): Promise<number> {
    const [tx, pos] = splitCheckpoint(after)
    const rows = await this.#read<{ n: string }>(
      'SELECT count(*)::text AS n FROM toolkernel_events WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)',
      [tx, pos],
    )
    return Number(rows[0]?.n ?? 0)
  }

  subscribe(
    after: Checkpoint,
    handler: (events: readonly StoredEvent[]) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): StoreSubscription {
    return startFeed(
      {
        readAll: (cp, limit) => this.readAll(cp, limit),
        countAfter: (cp) => this.countAfter(cp),
        onWake: (wake) => this.#listener.onWake(wake),
      },
      after,
      handler,
      { ...options, defaultPollMs: this.#pollMs },
    )
  }

  async acquire(stream: string, owner: string, ttlMs: number): Promise<LeaseResult> {
    assertStreamName(stream)
    const rows = await this.#query<{ epoch: string; expires: number }>(
      `INSERT INTO toolkernel_streams AS s (stream, lease_owner, lease_expires, epoch)
       VALUES ($1, $2, now() + $3 * interval '1 millisecond', 1)
       ON CONFLICT (stream) DO UPDATE
         SET lease_owner = EXCLUDED.lease_owner, lease_expires = EXCLUDED.lease_expires, epoch = s.epoch + 1
         WHERE s.lease_owner IS NULL OR s.lease_expires <= now() OR s.lease_owner = EXCLUDED.lease_owner
       RETURNING epoch::text, (extract(epoch FROM lease_expires) * 1000)::float8 AS expires`,
      [stream, owner, ttlMs],
    )
    this.#known.add(stream)
    const row = rows[0]
    if (row !== undefined)
      return { ok: true, lease: { stream, owner, epoch: Number(row.epoch), expiresAt: row.expires } }
    const held = (await this.#query<LeaseRow>(LEASE_ROW, [stream]))[0]
    const holder = held?.lease_owner ?? ''
    return {
      ok: false,
      holder,
      message: heldText(stream, { owner: holder, expiresAt: held?.expires ?? 0 }, held?.now ?? 0),
    }
  }

  async renew(lease: Lease, ttlMs: number): Promise<LeaseResult> {
    const rows = await this.#query<{ expires: number }>(
      `UPDATE toolkernel_streams SET lease_expires = now() + $4 * interval '1 millisecond'
        WHERE stream = $1 AND lease_owner = $2 AND epoch = $3 AND lease_expires > now()
        RETURNING (extract(epoch FROM lease_expires) * 1000)::float8 AS expires`,
      [lease.stream, lease.owner, lease.epoch, ttlMs],
    )
    const row = rows[0]
    if (row !== undefined) return { ok: true, lease: { ...lease, expiresAt: row.expires } }
    const now = (await this.#query<LeaseRow>(LEASE_ROW, [lease.stream]))[0]
    const current = { owner: now?.lease_owner ?? undefined, epoch: Number(now?.epoch ?? 0) }
    return { ok: false, holder: current.owner ?? '', message: lostText(lease, current, now?.now ?? 0) }
  }

  async release(lease: Lease): Promise<void> {
    await this.#query(
      `UPDATE toolkernel_streams SET lease_owner = NULL, lease_expires = NULL
        WHERE stream = $1 AND lease_owner = $2 AND epoch = $3`,
      [lease.stream, lease.owner, lease.epoch],
    )
  }

  async close(): Promise<void> {
    await this.#listener.close()
    await this.#pool.end()
  }
}

function splitCheckpoint(after: Checkpoint): [string, string] {
  if (after === '') return ['0', '0']
  const match = /^(\d+)\/(\d+)$/.exec(after)
  if (match === null)
    throw new TypeError(`checkpoint ${JSON.stringify(after)} is not a PostgreSQL store's (txid/position)`)
  return [match[1] as string, match[2] as string]
}

/** Rows back from the database are a trust boundary: each event is checked like a log line. */
function parseRows(rows: readonly EventRow[]): StoredEvent[] {
  const parser = new JsonlLineParser()
  for (const row of rows) parser.line(row.event)
  const { events, corrupt } = parser.end('')
  const bad = corrupt[0]
  if (bad !== undefined) {
    const row = rows[bad.line - 1]
    throw new Error(`the store holds an unreadable event (${row?.stream} version ${row?.version}): ${bad.message}`)
  }
  return rows.map((row, i) => ({
    stream: row.stream,
    version: Number(row.version),
    position: `${row.tx}/${row.pos}`,
    event: events[i] as KernelEvent,
  }))
}

/**
 * An event store on a PostgreSQL database; the schema is created on first use.
 *
 * @example
 * const store = createPostgresEventStore({ connection: 'postgres://app@db:5432/agents' })
 * const kernel = createKernel({ tools, store, session: 'session-42' })
 */
const POSTGRES_OPTIONS = optionNames<PostgresEventStoreOptions>()(
  'connection',
  'maxConnections',
  'idleInTransactionTimeoutMs',
  'pollMs',
  'groupCommit',
)

export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  checkOptionsObject('createPostgresEventStore', options, POSTGRES_OPTIONS)
  return new PostgresEventStore(options)
}

const READ_ATTEMPTS = 5

/** The server answered with an error: the statement rolled back (after a lost connection the outcome is unknown). */
function answered(error: unknown): boolean {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !connectionLost(error)
}

/** SQLSTATE classes and socket errors of a connection the server ended or could not yet take. */
function connectionLost(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && /^(57P0[1-3]|08\d\d[0-9A-Z]?|ECONNRESET|ECONNREFUSED|EPIPE)$/.test(code)) return true
  return typeof message === 'string' && /Connection terminated|terminating connection/i.test(message)
}
