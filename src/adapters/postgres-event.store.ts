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

export interface PostgresEventStoreOptions {
  /** `postgres://user@host:port/db`, or a node-postgres pool configuration. */
  connection: string | pg.PoolConfig
  /** Most connections this process opens for appends and reads. Default 10. */
  maxConnections?: number
  /** A session idle inside a transaction longer than this is ended by the server. Default 10,000 ms. */
  idleInTransactionTimeoutMs?: number
  /** Default poll interval of subscriptions (NOTIFY usually wakes them sooner). Default 1,000 ms. */
  pollMs?: number
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
  #schema: Promise<void> | undefined

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
    let rows: Array<{ version: string; position: string }>
    try {
      rows = await this.#query(APPEND, [stream, options.expectedVersion, options.epoch ?? null, lines])
    } catch (error) {
      if ((error as { code?: string }).code === '23505') return this.#refusal(stream, options, true)
      throw error
    }
    const row = rows[0]
    if (row === undefined) return this.#refusal(stream, options, false)
    return { ok: true, version: Number(row.version), position: row.position }
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
export function createPostgresEventStore(options: PostgresEventStoreOptions): EventStore {
  return new PostgresEventStore(options)
}

const READ_ATTEMPTS = 5

/** SQLSTATE classes and socket errors of a connection the server ended or could not yet take. */
function connectionLost(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && /^(57P0[1-3]|08\d\d[0-9A-Z]?|ECONNRESET|ECONNREFUSED|EPIPE)$/.test(code)) return true
  return typeof message === 'string' && /Connection terminated|terminating connection/i.test(message)
}
