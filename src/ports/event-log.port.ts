import type { Observable } from 'rxjs'
import type { KernelEvent, KernelEventInput } from '../events/event.schema.js'

/**
 * An append-only event log. `append` stamps the envelope (`v`, `seq`, `at`) and returns the
 * stored event; nothing is ever rewritten or removed.
 */
export interface EventLog {
  append(event: KernelEventInput): KernelEvent
  /** Every event appended so far, in order. */
  read(): readonly KernelEvent[]
  /** Events as they are appended (live only; use `read()` for history). */
  readonly events$: Observable<KernelEvent>
  /** Flushes and releases resources (a file descriptor for the JSONL store). */
  close(): void
  /**
   * A durability fence: settles once every event appended so far is stored durably (written, and
   * synced as the store's policy says); rejects, with the reason, when that failed. The kernel
   * awaits it before a call's tool runs (write-ahead: what led to a side effect is stored before
   * it) and before a turn's result is returned; everything between is group-committed. A log
   * without it (memory) stores each event on `append`.
   */
  fence?(): Promise<void>
}
