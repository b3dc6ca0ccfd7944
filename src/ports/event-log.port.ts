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
}
