import { Subject, type Observable } from 'rxjs'
import type { Clock, EventLog } from '../ports/index.js'
import { systemClock } from './system.js'
import { EVENT_VERSION, type KernelEvent, type KernelEventInput } from '../events/event.schema.js'

/**
 * Stamps events with the envelope and keeps them in order. The shared core of every store:
 * a store that persists adds a `sink` that sees each event once, after stamping.
 */
export class StampingLog implements EventLog {
  readonly #events: KernelEvent[]
  readonly #subject = new Subject<KernelEvent>()
  readonly events$: Observable<KernelEvent> = this.#subject.asObservable()

  constructor(
    private readonly clock: Clock,
    private readonly sink?: (event: KernelEvent) => void,
    history: readonly KernelEvent[] = [],
  ) {
    this.#events = [...history]
  }

  append(input: KernelEventInput): KernelEvent {
    // After the last seq, not the count: a history with gaps must never get a seq twice.
    const seq = (this.#events.at(-1)?.seq ?? -1) + 1
    const event = { v: EVENT_VERSION, seq, at: this.clock.now(), ...input } as KernelEvent
    this.sink?.(event)
    this.#events.push(event)
    this.#subject.next(event)
    return event
  }

  read(): readonly KernelEvent[] {
    return this.#events
  }

  close(): void {
    this.#subject.complete()
  }
}

/**
 * An event log held in memory: the default, and what tests use.
 *
 * @example
 * const log = createMemoryLog({ now: () => Date.now() })
 * log.events$.subscribe((e) => console.log(e.type))
 */
export function createMemoryLog(clock: Clock = systemClock, history: readonly KernelEvent[] = []): EventLog {
  return new StampingLog(clock, undefined, history)
}
