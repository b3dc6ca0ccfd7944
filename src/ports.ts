/**
 * The kernel's ports: every capability that touches time, identity, storage or the outside
 * world. Types only. The kernel wires real adapters (src/actors/adapters); tests and replay
 * supply their own.
 */
import type { Observable } from 'rxjs'
import type { KernelEvent, KernelEventInput } from './events/event.schema.js'

/** Wall-clock time in milliseconds since the epoch. */
export interface Clock {
  now(): number
}

/** Produces ids for turns (and anything else the kernel must name). */
export interface IdGenerator {
  next(prefix: string): string
}

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

/** Where oversize tool output goes (the budget step). */
export interface ResultStore {
  /** Saves `content` under a name derived from `toolUseId` and returns its path. */
  save(toolUseId: string, content: string): Promise<string>
}

/** The ports a tool receives in its context. */
export interface ToolPorts {
  readonly clock: Clock
  readonly ids: IdGenerator
}
