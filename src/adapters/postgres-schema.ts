/**
 * The PostgreSQL store's schema, created and migrated on first use. Every process may start at
 * once: the migration runs in one transaction under a transaction-scoped advisory lock, so one
 * process migrates and the others wait, then find the work done (the lock ends with the transaction,
 * even if the process dies mid-way).
 */
import type pg from 'pg'

/** Arbitrary but fixed: the advisory lock key every toolkernel process agrees on. */
const MIGRATION_LOCK = 7_463_019_221

/**
 * A row holding a `session.snapshot` (issue 33): the envelope the log stamps (`v`, `seq`, `at`)
 * then the type, as `JSON.stringify` writes every event — anchored, so a snapshot's text inside
 * another event's data never matches. A row written otherwise is not found, and the session is
 * read whole (decision 167). The index and the query use this very text, so the planner takes the index.
 */
export const SNAPSHOT_ROW = `event ~ '^\\{"v":[0-9]+,"seq":[0-9]+,"at":[-0-9.eE+]+,"type":"session\\.snapshot"'`

/**
 * Each step moves the schema from its index to the next version; steps are never edited, only added.
 *
 * - streams: one row per session — its version, the last writing transaction, and the lease.
 * - events: the log; `transaction_id` (the writer's xid8) and `global_position` give the global order.
 * - 2: the snapshots' index (issue 33).
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE toolkernel_streams (
     stream        text PRIMARY KEY,
     version       bigint NOT NULL DEFAULT 0,
     last_xid      xid8,
     epoch         bigint NOT NULL DEFAULT 0,
     lease_owner   text,
     lease_expires timestamptz
   );
   CREATE TABLE toolkernel_events (
     global_position bigserial PRIMARY KEY,
     transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
     stream          text NOT NULL,
     version         bigint NOT NULL,
     event           text NOT NULL,
     UNIQUE (stream, version)
   );
   CREATE INDEX toolkernel_events_order ON toolkernel_events (transaction_id, global_position);`,
  // Issue 33: a session opens from its last snapshot; this partial index finds it without a scan.
  `CREATE INDEX toolkernel_events_snapshots ON toolkernel_events (stream, version) WHERE ${SNAPSHOT_ROW};`,
]

/** Creates or migrates the schema; safe to run from many processes at once. */
export async function migrate(pool: pg.Pool): Promise<void> {
  // The store's pool gives every client an error listener (a connection the server ends mid-
  // migration fails the query in flight, not the process) and drops a broken client on release.
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query('CREATE TABLE IF NOT EXISTS toolkernel_schema (version int NOT NULL)')
    const found = await client.query<{ version: number }>('SELECT version FROM toolkernel_schema')
    const at = found.rows[0]?.version ?? 0
    if (at > MIGRATIONS.length)
      throw new Error(
        `the database's toolkernel schema is version ${at}, newer than this toolkernel (${MIGRATIONS.length})`,
      )
    for (let v = at; v < MIGRATIONS.length; v++) await client.query(MIGRATIONS[v] as string)
    if (found.rows.length === 0) await client.query('INSERT INTO toolkernel_schema VALUES ($1)', [MIGRATIONS.length])
    else await client.query('UPDATE toolkernel_schema SET version = $1', [MIGRATIONS.length])
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}
