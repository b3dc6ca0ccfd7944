/**
 * The kernel's view of the app's log: an append that throws (disk full, a dead database) must
 * not throw out of a step and orphan the calls that are running. The first failure is kept; from
 * then on events are stamped here and held in memory, so every call still gets its result and
 * the turn its message, and the kernel stops what runs and refuses new turns. Nothing that was
 * appended goes missing: what the store took stays there, and what it did not is never claimed.
 * A store with durability fences fails the same way when a fence fails (a lost lease, a store
 * out of reach): the kernel awaits fences before a tool runs and before a turn's result.
 */
import { merge, Subject, type Observable } from 'rxjs'
import { EVENT_VERSION, type KernelEvent, type KernelEventInput } from '../../events/event.schema.js'
import type { Clock, EventLog } from '../../ports/index.js'
import { describeError } from '../../tools/result-text.js'

export class GuardedLog implements EventLog {
  readonly #unrecorded: KernelEvent[] = []
  readonly #subject = new Subject<KernelEvent>()
  readonly events$: Observable<KernelEvent>
  #failure: string | undefined
  /** Present when the store has fences: a log without them (memory) keeps the hot path synchronous. */
  readonly fence?: () => Promise<void>
  /** The store's stream (a store-backed session's id), when the app's log has one. */
  readonly stream?: string

  constructor(
    private readonly inner: EventLog,
    private readonly clock: Clock,
    private readonly onFailure: (reason: string) => void,
  ) {
    this.events$ = merge(inner.events$, this.#subject)
    const fence = inner.fence?.bind(inner)
    if (fence !== undefined) this.fence = () => this.#fence(fence)
    if (inner.stream !== undefined) this.stream = inner.stream
  }

  /** A fence that fails is the store failing: from then on, as for an append that throws. */
  async #fence(fence: () => Promise<void>): Promise<void> {
    if (this.#failure === undefined) {
      try {
        return await fence()
      } catch (error) {
        if (this.#failure === undefined) {
          this.#failure = `the event log could not be made durable (${describeError(error)}); events since the last durable point may be missing from the store, and later ones were not recorded`
          this.onFailure(this.#failure)
        }
      }
    }
    throw new Error(this.#failure)
  }

  /** Why the store stopped taking events, once it has; with the seq of the first event it lost. */
  get failure(): string | undefined {
    return this.#failure
  }

  /** Child turns (docs/subagents.md): each of their events is stamped with the parent call's id. */
  readonly #nested = new Map<string, string>()

  /** From now on, every event of `turnId` carries `parentToolUseId`. */
  nest(turnId: string, parentToolUseId: string): void {
    this.#nested.set(turnId, parentToolUseId)
  }

  append(given: KernelEventInput): KernelEvent {
    const parent = this.#nested.size === 0 ? undefined : this.#nested.get(given.turnId)
    const input = parent === undefined ? given : { ...given, parentToolUseId: parent }
    if (this.#failure === undefined) {
      try {
        return this.inner.append(input)
      } catch (error) {
        const seq = (this.inner.read().at(-1)?.seq ?? -1) + 1
        this.#failure = `the event log could not be written (${describeError(error)}); events from seq ${seq} on were not recorded`
        this.onFailure(this.#failure)
      }
    }
    const last = this.#unrecorded.at(-1) ?? this.inner.read().at(-1)
    const event = { v: EVENT_VERSION, seq: (last?.seq ?? -1) + 1, at: this.clock.now(), ...input } as KernelEvent
    this.#unrecorded.push(event)
    this.#subject.next(event)
    return event
  }

  /** What the store holds, then (after a failure) what it could not take. */
  read(): readonly KernelEvent[] {
    return this.#unrecorded.length === 0 ? this.inner.read() : [...this.inner.read(), ...this.#unrecorded]
  }

  close(): void {
    this.#subject.complete()
    this.inner.close()
  }
}
