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
 *   (forced) and its queued siblings voided; later batches run as usual.
 *
 * With all calls present at once this is exactly batch semantics (consecutive safe calls in
 * parallel, each unsafe call alone, batches in order); with calls trickling in, it is the
 * streaming rule. The queue is an array with a moving head: O(1) per call at any length.
 */
import { Observable, type OperatorFunction } from 'rxjs'
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
  const cap = options.maxConcurrency
  return (source) =>
    new Observable<ScheduledCall>((subscriber) => {
      const queue: Array<Entry | undefined> = []
      let head = 0
      const running = new Set<Running>()
      let runningUnsafe = 0
      let pending = 0
      let ended = false
      let stopped: string | undefined
      let batch = -1
      let lastSafe = false

      const track = (entry: Entry, handle: CallHandle, slot: Running | undefined): void => {
        pending++
        void handle.done.then((outcome) => {
          pending--
          if (slot !== undefined) {
            running.delete(slot)
            if (!entry.call.safe) runningUnsafe--
            if (outcome.toolFailed && entry.call.cascades) cascade(entry)
          }
          subscriber.next(entry.call)
          pump()
        })
      }

      const voidEntry = (entry: Entry, reason: string): void => track(entry, entry.call.void(reason), undefined)

      const pump = (): void => {
        while (head < queue.length && stopped === undefined && running.size < cap) {
          const entry = queue[head] as Entry
          if (!ended && !entry.call.early) break
          if (running.size > 0 && !(entry.call.safe && runningUnsafe === 0)) break
          queue[head++] = undefined
          if (!entry.call.safe) runningUnsafe++
          const slot = { entry, handle: undefined as unknown as CallHandle }
          running.add(slot)
          slot.handle = entry.call.start({ batch: entry.batch, running: running.size })
          track(entry, slot.handle, slot)
        }
        if (head > 1024 && head * 2 > queue.length) {
          queue.splice(0, head)
          head = 0
        }
        if (ended && head >= queue.length && pending === 0) subscriber.complete()
      }

      const voidQueued = (reason: string, only?: (entry: Entry) => boolean): string[] => {
        const voided: string[] = []
        for (let i = head; i < queue.length; i++) {
          const entry = queue[i]
          if (entry === undefined || (only !== undefined && !only(entry))) continue
          queue[i] = undefined
          voided.push(entry.call.toolUseId)
          voidEntry(entry, reason)
        }
        compact()
        return voided
      }

      // Voided entries leave holes; the head skips them so the queue stays in order.
      const compact = (): void => {
        while (head < queue.length && queue[head] === undefined) head++
      }

      const cascade = (failed: Entry): void => {
        const siblings = (e: Entry): boolean => e.batch === failed.batch
        const reason = options.cascadeReason?.(failed.call) ?? `a parallel call (${failed.call.toolUseId}) failed`
        const affected = [...running].filter((r) => siblings(r.entry)).map((r) => r.entry.call.toolUseId)
        for (const r of [...running]) if (siblings(r.entry)) r.handle.abort(reason, true)
        affected.push(...voidQueued(reason, siblings))
        if (affected.length > 0) options.onCascade?.(failed.call, affected)
      }

      const onInput = (input: SchedulerInput): void => {
        switch (input.type) {
          case 'call': {
            const { call } = input
            if (stopped !== undefined || ended) {
              const entry = { call, batch: batch + 1 }
              voidEntry(entry, stopped ?? 'the message had already ended')
              return
            }
            batch = call.safe && lastSafe && batch >= 0 ? batch : batch + 1
            lastSafe = call.safe
            queue.push({ call, batch })
            break
          }
          case 'end':
            ended = true
            if (input.voidReason !== undefined) voidQueued(input.voidReason)
            break
          case 'abort':
            if (stopped !== undefined) {
              // Already stopped; a forced abort (discard) still stops the 'block' calls left running.
              if (input.force === true) for (const r of [...running]) r.handle.abort(input.reason, true)
              return
            }
            stopped = input.reason
            ended = true
            voidQueued(input.reason)
            for (const r of [...running]) r.handle.abort(input.reason, input.force === true)
            break
        }
        pump()
      }

      const subscription = source.subscribe({
        next: onInput,
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          ended = true
          pump()
        },
      })
      return () => subscription.unsubscribe()
    })
}
