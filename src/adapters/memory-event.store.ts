/**
 * The event store in memory: what tests use. One process; the global order is the order appends
 * were taken. Its checks and lease rules are shared with the JSONL store (jsonl-event.store.ts).
 */
import type { KernelEvent } from '../events/event.schema.js'
import type { Clock } from '../ports/clock.port.js'
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
import { startFeed } from './subscribe-event.store.js'
import { systemClock } from './system.js'

const STREAM_NAME = /^[A-Za-z0-9_.:@-]{1,128}$/

/**
 * Throws for a stream name no store can hold: 1–128 of letters, digits and `_ . : @ -` (a name
 * is a file name in the JSONL store, so it may not hold a path).
 */
export function assertStreamName(stream: string): void {
  if (typeof stream !== 'string' || !STREAM_NAME.test(stream) || stream === '.' || stream === '..')
    throw new TypeError(
      `stream name ${JSON.stringify(stream)} is not valid: use 1–128 letters, digits or _ . : @ - (a session id)`,
    )
}

/** Throws for an append of no events: it would move no version and hide a caller's bug. */
export function assertBatch(events: readonly unknown[]): void {
  if (!Array.isArray(events) || events.length === 0)
    throw new TypeError('append needs at least one event: an empty batch stores nothing and moves no version')
}

/** What a lease row holds, whether or not someone holds it now. */
export interface LeaseState {
  owner: string | undefined
  epoch: number
  expiresAt: number
}

interface StreamState {
  events: StoredEvent[]
  lease: LeaseState
}

/** Checks whether `options` may append to `state` now; undefined when it may. */
export function appendRefusal(
  state: { version: number; lease: LeaseState },
  options: AppendOptions,
  now: number,
): Exclude<AppendResult, { ok: true }> | undefined {
  const held = state.lease.owner !== undefined && state.lease.expiresAt > now
  if (options.epoch === undefined ? held : !held || state.lease.epoch !== options.epoch) {
    return { ok: false, reason: 'lease', message: leaseRefusal(state.lease, options.epoch, held) }
  }
  if (state.version !== options.expectedVersion) {
    return {
      ok: false,
      reason: 'version',
      actualVersion: state.version,
      message: `expected version ${options.expectedVersion} but the stream is at ${state.version}: another writer appended first`,
    }
  }
  return undefined
}

function leaseRefusal(lease: LeaseState, epoch: number | undefined, held: boolean): string {
  if (epoch === undefined) return `the stream is leased to ${lease.owner} (epoch ${lease.epoch}): append with its epoch`
  if (lease.epoch !== epoch) return `lease lost: epoch ${epoch} was taken over (the stream is at epoch ${lease.epoch})`
  if (!held) return `lease lost: the lease of epoch ${epoch} expired; acquire the stream again`
  return 'lease refused'
}

export class MemoryEventStore implements EventStore {
  readonly #streams = new Map<string, StreamState>()
  readonly #all: StoredEvent[] = []
  readonly #wakes = new Set<() => void>()

  constructor(private readonly clock: Clock = systemClock) {}

  #state(stream: string): StreamState {
    let state = this.#streams.get(stream)
    if (state === undefined) {
      state = { events: [], lease: { owner: undefined, epoch: 0, expiresAt: 0 } }
      this.#streams.set(stream, state)
    }
    return state
  }

  #push(state: StreamState, stream: string, event: KernelEvent): void {
    const stored = { stream, version: state.events.length + 1, position: String(this.#all.length + 1), event }
    state.events.push(stored)
    this.#all.push(stored)
  }

  append(stream: string, events: readonly KernelEvent[], options: AppendOptions): Promise<AppendResult> {
    assertStreamName(stream)
    assertBatch(events)
    const state = this.#state(stream)
    const refused = appendRefusal({ version: state.events.length, lease: state.lease }, options, this.clock.now())
    if (refused !== undefined) return Promise.resolve(refused)
    for (const event of events) this.#push(state, stream, event)
    for (const wake of this.#wakes) wake()
    return Promise.resolve({ ok: true, version: state.events.length, position: String(this.#all.length) })
  }

  read(stream: string, fromVersion = 1): Promise<StoredEvent[]> {
    assertStreamName(stream)
    return Promise.resolve(this.#streams.get(stream)?.events.slice(Math.max(0, fromVersion - 1)) ?? [])
  }

  /** Scans the stream back from its end (issue 33): the cost is the events after the snapshot. */
  lastSnapshot(stream: string): Promise<number | undefined> {
    assertStreamName(stream)
    const events = this.#streams.get(stream)?.events ?? []
    for (let i = events.length - 1; i >= 0; i--)
      if (events[i]?.event.type === 'session.snapshot') return Promise.resolve(i + 1)
    return Promise.resolve(undefined)
  }

  version(stream: string): Promise<number> {
    assertStreamName(stream)
    return Promise.resolve(this.#streams.get(stream)?.events.length ?? 0)
  }

  readAll(after: Checkpoint, limit = 1000): Promise<StoredEvent[]> {
    const from = after === '' ? 0 : Number(after)
    if (!Number.isSafeInteger(from) || from < 0) throw new TypeError(`checkpoint ${JSON.stringify(after)} is not ours`)
    return Promise.resolve(this.#all.slice(from, from + limit))
  }

  subscribe(
    after: Checkpoint,
    handler: (events: readonly StoredEvent[]) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): StoreSubscription {
    return startFeed(
      {
        readAll: (cp, limit) => this.readAll(cp, limit),
        countAfter: (cp) => Promise.resolve(this.#all.length - (cp === '' ? 0 : Number(cp))),
        onWake: (wake) => (this.#wakes.add(wake), () => void this.#wakes.delete(wake)),
      },
      after,
      handler,
      { ...options, defaultPollMs: 1000 },
    )
  }

  acquire(stream: string, owner: string, ttlMs: number): Promise<LeaseResult> {
    assertStreamName(stream)
    const state = this.#state(stream)
    const next = acquiredLease(stream, state.lease, owner, ttlMs, this.clock.now())
    return Promise.resolve('ok' in next ? next : this.#setLease(stream, state, next))
  }

  renew(held: Lease, ttlMs: number): Promise<LeaseResult> {
    const state = this.#state(held.stream)
    const next = renewedLease(held, state.lease, ttlMs, this.clock.now())
    return Promise.resolve('ok' in next ? next : this.#setLease(held.stream, state, next))
  }

  release(held: Lease): Promise<void> {
    const state = this.#state(held.stream)
    const next = releasedLease(held, state.lease)
    if (next !== undefined) this.#setLease(held.stream, state, next)
    return Promise.resolve()
  }

  #setLease(stream: string, state: StreamState, lease: LeaseState): LeaseResult {
    state.lease = lease
    return leaseResult(stream, lease)
  }

  close(): Promise<void> {
    this.#wakes.clear()
    return Promise.resolve()
  }
}

type LeaseRefusal = Extract<LeaseResult, { ok: false }>

/** The lease `acquire` sets on a stream whose lease is `lease`, or why it may not. */
export function acquiredLease(
  stream: string,
  lease: LeaseState,
  owner: string,
  ttlMs: number,
  now: number,
): LeaseState | LeaseRefusal {
  if (lease.owner !== undefined && lease.owner !== owner && lease.expiresAt > now)
    return { ok: false, holder: lease.owner, message: heldText(stream, lease, now) }
  return { owner, epoch: lease.epoch + 1, expiresAt: now + ttlMs }
}

/** The lease `renew` sets, or why `held` was lost. */
export function renewedLease(held: Lease, lease: LeaseState, ttlMs: number, now: number): LeaseState | LeaseRefusal {
  if (lease.owner !== held.owner || lease.epoch !== held.epoch || lease.expiresAt <= now)
    return { ok: false, holder: lease.owner ?? '', message: lostText(held, lease, now) }
  return { ...lease, expiresAt: now + ttlMs }
}

/** The lease `release` sets (its epoch stays spent), or undefined when `held` is no longer it. */
export function releasedLease(held: Lease, lease: LeaseState): LeaseState | undefined {
  if (lease.owner !== held.owner || lease.epoch !== held.epoch) return undefined
  return { owner: undefined, epoch: held.epoch, expiresAt: 0 }
}

/** A lease as the store answers it. */
export function leaseResult(stream: string, lease: LeaseState): LeaseResult {
  return { ok: true, lease: { stream, owner: lease.owner ?? '', epoch: lease.epoch, expiresAt: lease.expiresAt } }
}

/** Why a lease could not be taken: who holds it and for how long. */
export function heldText(
  stream: string,
  lease: { owner?: string | undefined; expiresAt: number },
  now: number,
): string {
  const left = Math.max(0, lease.expiresAt - now)
  return `session ${stream} is leased to ${lease.owner} for ${left} ms more; try again after it expires`
}

/** Why a renewal failed. */
export function lostText(held: Lease, lease: { owner?: string | undefined; epoch: number }, now: number): string {
  if (lease.epoch !== held.epoch)
    return `lease lost: ${lease.owner ?? 'another owner'} took over (epoch ${lease.epoch})`
  return `lease lost: epoch ${held.epoch} expired at ${held.expiresAt} (now ${now}); acquire the stream again`
}

/**
 * A fresh in-memory event store.
 *
 * @example
 * const store = createMemoryEventStore()
 * await store.append('s1', events, { expectedVersion: 0 })
 */
export function createMemoryEventStore(clock: Clock = systemClock): EventStore {
  return new MemoryEventStore(clock)
}
