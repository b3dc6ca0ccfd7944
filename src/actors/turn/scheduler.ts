/**
 * The scheduler: an RxJS operator from a turn's control stream (calls as they become complete,
 * the end of the message, aborts) to the calls as they finish. It decides when each call starts:
 *
 * - the head of the queue starts if nothing runs, or if it is concurrency-safe and everything
 *   running is safe; calls start strictly in order, so a queued unsafe call is a barrier;
 * - never more than `maxConcurrency` run at once;
 * - a call that may not start early (`early: false`) waits for the end of the message;
 * - an end that voids (a stop reason other than tool use) voids every call not yet started;
 * - an abort voids queued calls and tells running ones (forced: even 'block' tools stop);
 * - when a call that cascades fails inside a parallel batch, its running siblings are aborted
 *   (forced) and its queued siblings voided; later batches run as usual;
 * - a call parked for a person's answer keeps its place as if it ran (calls behind a parked unsafe
 *   call wait, and it holds a slot of the cap); once the message has ended and nothing else can
 *   move, the turn is told it is parked (`onParked`); an answer or an abort moves it on.
 *
 * With all calls present at once this is exactly batch semantics (consecutive safe calls in
 * parallel, each unsafe call alone, batches in order); with calls trickling in, it is the
 * streaming rule. The queue is an array with a moving head: O(1) per call at any length.
 */
import { Observable, type OperatorFunction, type Subscriber } from 'rxjs'
import type { CallHandle } from '../tool-call/tool-call.actor.js'

export interface ScheduledCall {
  readonly toolUseId: string
  /** The tool name the model used (for the reasons siblings are given). */
  readonly name: string
  /** Concurrency-safe for its input (fail-closed: false when unsure). */
  readonly safe: boolean
  /** May start before the message ends. */
  readonly early: boolean
  /** A failure of this call aborts its parallel siblings. */
  readonly cascades: boolean
  /** Starts the call for real; `batch` numbers the run of calls it belongs to. */
  start(slot: { batch: number; running: number }): CallHandle
  /** Ends the call without running it. */
  void(reason: string): CallHandle
}

export type SchedulerInput =
  | { type: 'call'; call: ScheduledCall }
  /** The message ended; with `voidReason`, calls not yet started are voided with it. */
  | { type: 'end'; voidReason?: string }
  | { type: 'abort'; reason: string; force?: boolean }

export interface SchedulerOptions {
  maxConcurrency: number
  /** Told when a failed call cascades to its siblings (for the log). */
  onCascade?: (failed: ScheduledCall, siblings: readonly string[]) => void
  /** The reason siblings are given when `failed` cascades. */
  cascadeReason?: (failed: ScheduledCall) => string
  /**
   * Hear of finished calls one microtask late, as toolkernel before 0.2 did: replay sets it for
   * logs that engine wrote, so their dispatch points replay as recorded (docs/decisions/scheduling.md, 29).
   */
  legacyDispatch?: boolean
  /**
   * Told when every call that could finish has, and the rest are parked (`pending`) or queued
   * behind them (`waiting`); told again each time that is so anew after an answer.
   */
  onParked?: (pending: readonly string[], waiting: readonly string[]) => void
  /** Told when a call moves on after the turn was told it is parked (a person answered below it). */
  onResumed?: (toolUseId: string) => void
}

interface Entry {
  call: ScheduledCall
  batch: number
}

interface Running {
  entry: Entry
  handle: CallHandle
}

export function scheduleCalls(options: SchedulerOptions): OperatorFunction<SchedulerInput, ScheduledCall> {
  return (source) =>
    new Observable<ScheduledCall>((subscriber) => {
      const queue = new CallQueue(options, subscriber)
      const subscription = source.subscribe({
        next: (input) => queue.onInput(input),
        error: (error: unknown) => subscriber.error(error),
        complete: () => queue.sourceEnded(),
      })
      return () => subscription.unsubscribe()
    })
}

/** One subscription's state: the queue with its moving head, what runs, and whether it ended. */
class CallQueue {
  readonly #queue: Array<Entry | undefined> = []
  #head = 0
  readonly #running = new Set<Running>()
  #runningUnsafe = 0
  #pending = 0
  /** Running calls parked for an answer, and whether the turn was told it is parked since one last moved. */
  readonly #parked = new Set<Running>()
  #toldParked = false
  #ended = false
  #stopped: string | undefined
  #batch = -1
  #lastSafe = false
  readonly #backlog: Array<() => void> = []
  #busy = false

  constructor(
    private readonly options: SchedulerOptions,
    private readonly subscriber: Subscriber<ScheduledCall>,
  ) {}

  onInput(input: SchedulerInput): void {
    this.#run(() => this.#take(input))
  }

  #take(input: SchedulerInput): void {
    switch (input.type) {
      case 'call':
        if (this.#stopped !== undefined || this.#ended) {
          const entry = { call: input.call, batch: this.#batch + 1 }
          this.#voidEntry(entry, this.#stopped ?? 'the message had already ended')
          return
        }
        this.#enqueue(input.call)
        break
      case 'end':
        this.#ended = true
        if (input.voidReason !== undefined) this.#voidQueued(input.voidReason)
        break
      case 'abort':
        this.#abort(input.reason, input.force === true)
        break
    }
    this.#pump()
  }

  sourceEnded(): void {
    this.#run(() => {
      this.#ended = true
      this.#pump()
    })
  }

  /** Consecutive safe calls share a batch; an unsafe call is a batch of its own. */
  #enqueue(call: ScheduledCall): void {
    this.#batch = call.safe && this.#lastSafe && this.#batch >= 0 ? this.#batch : this.#batch + 1
    this.#lastSafe = call.safe
    this.#queue.push({ call, batch: this.#batch })
  }

  #abort(reason: string, force: boolean): void {
    if (this.#stopped !== undefined) {
      // Already stopped; a forced abort (discard) still stops the 'block' calls left running.
      if (force) for (const r of [...this.#running]) r.handle.abort(reason, true)
      return
    }
    this.#stopped = reason
    this.#ended = true
    this.#voidQueued(reason)
    for (const r of [...this.#running]) r.handle.abort(reason, force)
  }

  #track(entry: Entry, handle: CallHandle, slot: Running | undefined): void {
    this.#pending++
    const hear = (work: () => void): void =>
      this.options.legacyDispatch === true ? queueMicrotask(() => this.#run(work)) : this.#run(work)
    if (slot !== undefined)
      handle.onParked((parked) =>
        this.#run(() => {
          if (parked) this.#parked.add(slot)
          else if (this.#parked.delete(slot) && this.#toldParked) {
            this.#toldParked = false
            this.options.onResumed?.(slot.entry.call.toolUseId)
          }
          this.#pump()
        }),
      )
    handle.onDone((outcome) =>
      hear(() => {
        this.#pending--
        if (slot !== undefined) {
          if (this.#parked.delete(slot)) this.#toldParked = false
          this.#running.delete(slot)
          if (!entry.call.safe) this.#runningUnsafe--
          if (outcome.toolFailed && entry.call.cascades) this.#cascade(entry)
        }
        this.subscriber.next(entry.call)
        this.#pump()
      }),
    )
  }

  /**
   * Runs `work` now, or — when the queue is already busy (a call that finished synchronously
   * inside `start`, a voided call inside a loop) — right after the work in hand: never reentrant,
   * and never later than the current synchronous step, so decisions sit at fixed points of the log.
   */
  #run(work: () => void): void {
    this.#backlog.push(work)
    if (this.#busy) return
    this.#busy = true
    try {
      for (let next = this.#backlog.shift(); next !== undefined; next = this.#backlog.shift()) next()
    } finally {
      this.#busy = false
    }
  }

  #voidEntry(entry: Entry, reason: string): void {
    this.#track(entry, entry.call.void(reason), undefined)
  }

  #pump(): void {
    const queue = this.#queue
    while (
      this.#head < queue.length &&
      this.#stopped === undefined &&
      this.#running.size < this.options.maxConcurrency
    ) {
      const entry = queue[this.#head] as Entry
      if (!this.#ended && !entry.call.early) break
      if (this.#running.size > 0 && !(entry.call.safe && this.#runningUnsafe === 0)) break
      queue[this.#head++] = undefined
      this.#start(entry)
    }
    if (this.#head > 1024 && this.#head * 2 > queue.length) {
      queue.splice(0, this.#head)
      this.#head = 0
    }
    if (this.#ended && this.#head >= queue.length && this.#pending === 0) this.subscriber.complete()
    else if (this.#ended && this.#pending > 0 && this.#pending === this.#parked.size && !this.#toldParked) {
      this.#toldParked = true
      const pending = [...this.#parked].map((r) => r.entry.call.toolUseId)
      const waiting = this.#queue.slice(this.#head).flatMap((e) => (e === undefined ? [] : [e.call.toolUseId]))
      this.options.onParked?.(pending, waiting)
    }
  }

  #start(entry: Entry): void {
    if (!entry.call.safe) this.#runningUnsafe++
    const slot = { entry, handle: undefined as unknown as CallHandle }
    this.#running.add(slot)
    slot.handle = entry.call.start({ batch: entry.batch, running: this.#running.size })
    this.#track(entry, slot.handle, slot)
  }

  #voidQueued(reason: string, only?: (entry: Entry) => boolean): string[] {
    const voided: string[] = []
    for (let i = this.#head; i < this.#queue.length; i++) {
      const entry = this.#queue[i]
      if (entry === undefined || (only !== undefined && !only(entry))) continue
      this.#queue[i] = undefined
      voided.push(entry.call.toolUseId)
      this.#voidEntry(entry, reason)
    }
    // Voided entries leave holes; the head skips them so the queue stays in order.
    while (this.#head < this.#queue.length && this.#queue[this.#head] === undefined) this.#head++
    return voided
  }

  #cascade(failed: Entry): void {
    const siblings = (e: Entry): boolean => e.batch === failed.batch
    const reason = this.options.cascadeReason?.(failed.call) ?? `a parallel call (${failed.call.toolUseId}) failed`
    const hit = [...this.#running].filter((r) => siblings(r.entry))
    for (const r of hit) r.handle.abort(reason, true)
    const affected = [...hit.map((r) => r.entry.call.toolUseId), ...this.#voidQueued(reason, siblings)]
    if (affected.length > 0) this.options.onCascade?.(failed.call, affected)
  }
}
