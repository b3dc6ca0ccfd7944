/**
 * The kernel's synchronous log over an asynchronous store: `append` stamps in memory (the hot
 * path stays a push), and a group commit sends what gathered since the last round trip as one
 * append — at the next turn of the event loop, or at a durability fence, which settles once every
 * event before it is stored. One round trip is in flight at a time; whatever arrives meanwhile
 * rides in the next one, so a parallel batch costs one append, not one per event.
 */
import type { Observable } from 'rxjs'
import type { KernelEvent, KernelEventInput } from '../events/event.schema.js'
import type { Clock } from '../ports/clock.port.js'
import type { EventLog } from '../ports/event-log.port.js'
import type { AppendResult, EventStore } from '../ports/event-store.port.js'
import { StampingLog } from './memory-log.store.js'

export interface StoreLogOptions {
  clock: Clock
  /** The stream's events so far (their versions are 1…n; the first new event gets seq n). */
  history: readonly KernelEvent[]
  /**
   * The stream's version the history ends at, when the history is not the whole stream (a
   * session opened from its last snapshot, issue 33). Default: the history's length.
   */
  version?: number
  /** The lease epoch appends carry (read at each append: a renewal keeps it, a takeover does not). */
  epoch?: () => number | undefined
  /** How long a store that cannot be reached is retried before the log fails. Default 15,000 ms. */
  retryMs?: number
}

/** A store-backed event log with fences; `fail` stops it from outside (a lost lease). */
export interface StoreLog extends EventLog {
  fence(): Promise<void>
  /** Makes every later fence reject with `reason` (nothing more is sent). */
  fail(reason: string): void
  /** The stream's version the store has acknowledged. */
  readonly committed: number
}

/** An append's answer, or that the store stayed out of reach. */
type Attempt = AppendResult | { readonly ok: false; readonly message: string }

class CommittingLog implements StoreLog {
  readonly #log: StampingLog
  readonly events$: Observable<KernelEvent>
  #buffer: KernelEvent[] = []
  #scheduled = false
  #inflight: Promise<void> | undefined
  #failed: Error | undefined
  #committed: number

  constructor(
    private readonly store: EventStore,
    readonly stream: string,
    private readonly options: StoreLogOptions,
  ) {
    this.#committed = options.version ?? options.history.length
    this.#log = new StampingLog(options.clock, (event) => this.#add(event), options.history)
    this.events$ = this.#log.events$
  }

  get committed(): number {
    return this.#committed
  }

  append(input: KernelEventInput): KernelEvent {
    return this.#log.append(input)
  }

  read(): readonly KernelEvent[] {
    return this.#log.read()
  }

  #add(event: KernelEvent): void {
    this.#buffer.push(event)
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      // A failure is kept in #failed: the next fence reports it.
      this.#drain(false).catch(() => undefined)
    })
  }

  fence(): Promise<void> {
    return this.#drain(true)
  }

  fail(reason: string): void {
    this.#failed ??= new Error(reason)
  }

  async #drain(sync: boolean): Promise<void> {
    for (;;) {
      if (this.#failed !== undefined) throw this.#failed
      if (this.#inflight !== undefined) {
        await this.#inflight
        continue
      }
      if (this.#buffer.length === 0) return
      const batch = this.#buffer
      this.#buffer = []
      this.#inflight = this.#commit(batch, sync).finally(() => (this.#inflight = undefined))
    }
  }

  async #commit(batch: KernelEvent[], sync: boolean): Promise<void> {
    const expectedVersion = this.#committed
    const result = await this.#appendRetrying(batch, expectedVersion, sync)
    if (result.ok) {
      this.#committed = result.version
      return
    }
    this.#failed ??= new Error(`${this.stream}: ${result.message}`)
  }

  /**
   * Retries while the store cannot be reached (a restart, a dropped connection). An attempt whose
   * answer was lost may have committed: a version conflict is then checked against what the
   * store holds, and the very same events there count as this batch's commit.
   */
  async #appendRetrying(batch: KernelEvent[], expectedVersion: number, sync: boolean): Promise<Attempt> {
    const deadline = Date.now() + (this.options.retryMs ?? 15_000)
    let attempt = 0
    let unsure = false
    for (let wait = 25; ; wait = Math.min(wait * 2, 1000)) {
      try {
        const epoch = this.options.epoch?.()
        const options = { expectedVersion, sync, ...(epoch === undefined ? {} : { epoch }) }
        const result = await this.store.append(this.stream, batch, options)
        if (!result.ok && result.reason === 'version' && unsure && (await this.#holds(batch, expectedVersion)))
          return { ok: true, version: expectedVersion + batch.length, position: '' }
        return result
      } catch (error) {
        unsure = true
        attempt++
        if (Date.now() + wait > deadline)
          return { ok: false, message: `the store could not be reached after ${attempt} attempts (${String(error)})` }
        await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }
  }

  async #holds(batch: readonly KernelEvent[], expectedVersion: number): Promise<boolean> {
    const stored = await this.store.read(this.stream, expectedVersion + 1)
    if (stored.length < batch.length) return false
    return batch.every((event, i) => JSON.stringify(stored[i]?.event) === JSON.stringify(event))
  }

  close(): void {
    this.#log.close()
  }
}

/**
 * A synchronous event log for the kernel over `stream` in `store`, group-committed, with fences.
 *
 * @example
 * const log = createStoreLog(store, 'session-1', { clock, history: [], epoch: () => lease.epoch })
 */
export function createStoreLog(store: EventStore, stream: string, options: StoreLogOptions): StoreLog {
  return new CommittingLog(store, stream, options)
}
