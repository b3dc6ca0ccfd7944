/**
 * Opening a session on a shared store: take its lease, read its stream, and keep the lease
 * renewed while the session is open. What the kernel does with the history (recovery, grants,
 * the loaded tools) is the kernel's; this is the store side.
 */
import { hostname } from 'node:os'
import type { Clock } from '../ports/clock.port.js'
import type { EventStore, Lease } from '../ports/event-store.port.js'
import { createStoreLog, type StoreLog } from './committing-event.store.js'
import { historyFromSnapshot } from '../events/snapshot.js'
import type { KernelEvent } from '../events/event.schema.js'

export interface SessionLeaseOptions {
  /** Who holds the lease (shown to other workers). Default `<host>:<pid>:<random>`. */
  owner?: string
  /** How long the lease lasts unless renewed; renewed every third of it. Default 30,000 ms. */
  ttlMs?: number
  /** How long to wait for a lease another owner holds to expire (a crashed owner). Default 0: fail at once. */
  waitMs?: number
}

export interface OpenedSession {
  readonly log: StoreLog
  /** The lease as last renewed. */
  lease(): Lease
  /** Stops renewing, makes the log durable, and gives the lease up. */
  close(): Promise<void>
}

const defaultOwner = (): string => `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`

async function acquire(
  store: EventStore,
  session: string,
  owner: string,
  ttlMs: number,
  waitMs: number,
): Promise<Lease> {
  const deadline = Date.now() + waitMs
  for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
    const got = await store.acquire(session, owner, ttlMs)
    if (got.ok) return got.lease
    if (Date.now() + wait > deadline) throw new Error(`toolkernel: cannot open session ${session}: ${got.message}`)
    await new Promise((resolve) => setTimeout(resolve, wait))
  }
}

/**
 * Takes the session's lease and reads its stream into a log that appends under that lease.
 *
 * @throws Error when another owner holds the lease past `waitMs`, or the store cannot be read.
 */
export async function openSession(
  store: EventStore,
  session: string,
  clock: Clock,
  options: SessionLeaseOptions = {},
): Promise<OpenedSession> {
  const ttlMs = options.ttlMs ?? 30_000
  let lease = await acquire(store, session, options.owner ?? defaultOwner(), ttlMs, options.waitMs ?? 0)
  const { history, version } = await readSessionHistory(store, session)
  const log = createStoreLog(store, session, { clock, history, version, epoch: () => lease.epoch })
  let closed = false
  const renew = async (): Promise<void> => {
    const renewed = await store
      .renew(lease, ttlMs)
      .catch((error: unknown) => ({ ok: false as const, message: String(error) }))
    if (renewed.ok) lease = renewed.lease
    // A store out of reach is retried at the next tick; only a lease the store says is lost ends the session.
    else if ('holder' in renewed) {
      log.fail(`session ${session}: ${renewed.message}`)
      clearInterval(timer)
    }
  }
  const timer = setInterval(() => void renew(), Math.max(10, Math.floor(ttlMs / 3)))
  timer.unref()
  return {
    log,
    lease: () => lease,
    close: async () => {
      if (closed) return
      closed = true
      clearInterval(timer)
      try {
        await log.fence()
      } finally {
        log.close()
        await store.release(lease)
      }
    },
  }
}

/**
 * What a session opens with (issue 33): from the stream's last snapshot, its carried events and
 * everything from it on, when the store finds one and it reads back (decision 167); else the
 * whole stream. `version` is the stream's version the history ends at.
 */
export async function readSessionHistory(
  store: EventStore,
  session: string,
): Promise<{ history: KernelEvent[]; version: number }> {
  const at = await store.lastSnapshot?.(session)
  if (at !== undefined) {
    const tail = await store.read(session, at)
    const from = historyFromSnapshot(tail.map((stored) => stored.event))
    if (from.ok) return { history: from.history, version: tail.at(-1)?.version ?? at - 1 }
  }
  const all = await store.read(session)
  return { history: all.map((stored) => stored.event), version: all.at(-1)?.version ?? 0 }
}
