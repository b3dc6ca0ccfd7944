import type { Observable } from 'rxjs'
import type { KernelEvent, KernelEventInput } from '../events/event.schema.js'

/**
 * An append-only event log. `append` stamps the envelope (`v`, `seq`, `at`) and returns the
 * stored event; nothing is ever rewritten. Seqs grow by one per append and never repeat.
 */
export interface EventLog {
  append(event: KernelEventInput): KernelEvent
  /**
   * The events the log holds, in seq order: every event appended so far, unless the store keeps
   * only recent turns (the memory log's `retainTurns`): then the retained part, whose seqs have
   * gaps. Read events by seq, never by index; the last event appended is always there.
   */
  read(): readonly KernelEvent[]
  /** Every event as it is appended, retained or not (live only; use `read()` for history). */
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
  /**
   * The store's stream this log appends to — a store-backed session's id (`createKernel({ store,
   * session })`); absent for a log of its own (memory, JSONL file). Telemetry names the
   * conversation after it (docs/telemetry.md).
   */
  readonly stream?: string
}
