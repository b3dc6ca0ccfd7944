import type { KernelEvent } from '../events/event.schema.js'

/**
 * A place in a store's global order, opaque to everyone but the store that issued it (PostgreSQL:
 * `transactionId/position`; memory and JSONL: a counter). `''` is before the first event.
 */
export type Checkpoint = string

/** When written events reach the disk itself, not only the OS: never, at durability fences, or at every write. */
export type FsyncPolicy = 'never' | 'fences' | 'every'

/** One event as a store holds it: its stream, its version there (1, 2, …) and its global place. */
export interface StoredEvent {
  readonly stream: string
  readonly version: number
  readonly position: Checkpoint
  readonly event: KernelEvent
}

export interface AppendOptions {
  /** The stream's version the batch follows (0 for a new stream): the batch gets versions from here + 1. */
  readonly expectedVersion: number
  /**
   * The epoch of the writer's lease. With it, the append succeeds only while that lease is the
   * current one and unexpired; without it, only while nobody holds a lease on the stream.
   */
  readonly epoch?: number
  /** This append is a durability fence: a store that defers syncing (JSONL `fsync: 'fences'`) syncs now. */
  readonly sync?: boolean
}

/** An append's answer. Conflicts are data; a store that cannot be reached throws. */
export type AppendResult =
  | { readonly ok: true; readonly version: number; readonly position: Checkpoint }
  | { readonly ok: false; readonly reason: 'version'; readonly actualVersion: number; readonly message: string }
  | { readonly ok: false; readonly reason: 'lease'; readonly message: string }

/** The right to append to a stream, until `expiresAt` on the store's clock. */
export interface Lease {
  readonly stream: string
  readonly owner: string
  /** Grows by one at every acquisition, never goes back: appends carry it (fencing). */
  readonly epoch: number
  /** When the lease ends, in milliseconds on the store's clock (PostgreSQL: the server's `now()`). */
  readonly expiresAt: number
}

export type LeaseResult =
  | { readonly ok: true; readonly lease: Lease }
  | { readonly ok: false; readonly holder: string; readonly message: string }

/** A live feed of the global order. */
export interface StoreSubscription {
  /** The position of the last event handed over. */
  checkpoint(): Checkpoint
  /** Events committed after the checkpoint that this subscriber has not been given yet. */
  lag(): Promise<number>
  /** Stops the feed; settles once no handler runs. */
  close(): Promise<void>
}

export interface SubscribeOptions {
  /** Called when the feed cannot read (a lost connection); it keeps retrying. */
  readonly onError?: (error: unknown) => void
  /** Longest wait between polls when no wake-up arrives. Default: the store's. */
  readonly pollMs?: number
}

/**
 * An asynchronous, shared event store: one stream per session, appends with an expected version
 * and a lease epoch, a global order that never skips a late commit, and a live subscription.
 * Memory, JSONL and PostgreSQL implement it (src/adapters/*-event.store.ts).
 *
 * @example
 * const got = await store.acquire('session-1', 'worker-a', 30_000)
 * if (got.ok) await store.append('session-1', events, { expectedVersion: 0, epoch: got.lease.epoch })
 */
export interface EventStore {
  /** Appends `events` as one unit: all get consecutive versions, or none is stored. */
  append(stream: string, events: readonly KernelEvent[], options: AppendOptions): Promise<AppendResult>
  /** The stream's events with version ≥ `fromVersion` (default 1), in version order. */
  read(stream: string, fromVersion?: number): Promise<StoredEvent[]>
  /**
   * The version of the stream's last `session.snapshot` event, undefined when it has none
   * (issue 33): a session opens from there (docs/stores.md §Snapshots). Optional: a store
   * without it is read whole.
   */
  lastSnapshot?(stream: string): Promise<number | undefined>
  /** The stream's current version (0 when it has no events). */
  version(stream: string): Promise<number>
  /** Up to `limit` events after `after` in the global order. Default limit 1000. */
  readAll(after: Checkpoint, limit?: number): Promise<StoredEvent[]>
  /** Hands every event after `after` to `handler`, in order, once each; a batch at a time. */
  subscribe(
    after: Checkpoint,
    handler: (events: readonly StoredEvent[]) => void | Promise<void>,
    options?: SubscribeOptions,
  ): StoreSubscription
  /** Takes the stream's lease when it is free or expired (or already `owner`'s): a new, higher epoch. */
  acquire(stream: string, owner: string, ttlMs: number): Promise<LeaseResult>
  /** Extends a lease that is still current and unexpired; `ok: false` once it was lost. */
  renew(lease: Lease, ttlMs: number): Promise<LeaseResult>
  /** Gives the lease up (its epoch stays spent). */
  release(lease: Lease): Promise<void>
  close(): Promise<void>
}
