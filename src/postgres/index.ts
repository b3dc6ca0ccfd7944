/**
 * `toolkernel/postgres`: the event store on PostgreSQL, for many workers and machines sharing
 * sessions. Needs the optional peer dependency `pg` (node-postgres).
 *
 * @example
 * import { createKernel } from 'toolkernel'
 * import { createPostgresEventStore } from 'toolkernel/postgres'
 *
 * const store = createPostgresEventStore({ connection: process.env.DATABASE_URL })
 * const kernel = createKernel({ tools, store, session: 'session-42' })
 * await kernel.ready()
 */
export { createPostgresEventStore, type PostgresEventStoreOptions } from '../adapters/postgres-event.store.js'
export { MIGRATIONS } from '../adapters/postgres-schema.js'
