/**
 * The scheduler: an RxJS operator from calls (in `tool_use` order, as they become complete) to
 * calls that have finished. It decides when each call may start:
 *
 * - the head of the queue starts if nothing runs, or if it is concurrency-safe and everything
 *   running is safe; calls start strictly in order, so a queued unsafe call is a barrier;
 * - never more than `maxConcurrency` run at once;
 * - a call that may not start early (`early: false`) waits for the end of the message (the
 *   source completing);
 * - on abort, queued calls are voided and running ones are told to abort.
 *
 * This is exactly batch semantics — consecutive safe calls in parallel, each unsafe call alone,
 * batches in order — when all calls arrive at once, and the streaming rule when they trickle in.
 * The queue is a plain array with a moving head: O(1) per call at any length.
 */
import { Observable, type OperatorFunction } from 'rxjs'
import type { CallHandle } from './tool-call.actor.js'

export interface ScheduledCall {
  readonly toolUseId: string
  /** Concurrency-safe for its input (fail-closed: false when unsure). */
  readonly safe: boolean
  /** May start before the message ends. */
  readonly early: boolean
  /** Starts the call for real; `batch` numbers the run of calls it belongs to. */
  start(slot: { batch: number; running: number }): CallHandle
  /** Ends the call without running it. */
  void(reason: string): CallHandle
}

export interface SchedulerOptions {
  maxConcurrency: number
  signal?: AbortSignal | undefined
  /** The reason given to calls voided or interrupted by the signal. */
  abortReason?: (signal: AbortSignal) => string
}

interface Entry {
  call: ScheduledCall
  batch: number
}

export function scheduleCalls(options: SchedulerOptions): OperatorFunction<ScheduledCall, ScheduledCall> {
  const cap = options.maxConcurrency
  return (source) =>
    new Observable<ScheduledCall>((subscriber) => {
      const queue: Entry[] = []
      let head = 0
      const running = new Set<CallHandle>()
      let runningUnsafe = 0
      let pending = 0
      let ended = false
      let aborted: string | undefined
      let batch = -1
      let lastSafe = false

      const finish = (call: ScheduledCall, handle: CallHandle, counted: boolean): void => {
        pending++
        if (counted) running.add(handle)
        void handle.done.then(() => {
          pending--
          if (counted) {
            running.delete(handle)
            if (!call.safe) runningUnsafe--
          }
          subscriber.next(call)
          pump()
        })
      }

      const pump = (): void => {
        while (head < queue.length && aborted === undefined && running.size < cap) {
          const entry = queue[head] as Entry
          if (!ended && !entry.call.early) break
          if (running.size > 0 && !(entry.call.safe && runningUnsafe === 0)) break
          queue[head++] = undefined as never
          if (!entry.call.safe) runningUnsafe++
          finish(entry.call, entry.call.start({ batch: entry.batch, running: running.size + 1 }), true)
        }
        if (head > 1024 && head * 2 > queue.length) {
          queue.splice(0, head)
          head = 0
        }
        if (ended && head >= queue.length && pending === 0) subscriber.complete()
      }

      const abort = (reason: string): void => {
        if (aborted !== undefined) return
        aborted = reason
        while (head < queue.length) {
          const entry = queue[head] as Entry
          queue[head++] = undefined as never
          finish(entry.call, entry.call.void(reason), false)
        }
        for (const handle of [...running]) handle.abort(reason)
        pump()
      }

      const signal = options.signal
      const reasonOf = (s: AbortSignal) => options.abortReason?.(s) ?? 'the turn was aborted'
      const onAbort = (): void => abort(reasonOf(signal as AbortSignal))
      // An already-aborted signal never fires 'abort': every call is voided as it arrives.
      if (signal?.aborted === true) aborted = reasonOf(signal)
      else signal?.addEventListener('abort', onAbort, { once: true })

      const subscription = source.subscribe({
        next: (call) => {
          if (aborted !== undefined) {
            finish(call, call.void(aborted), false)
            return
          }
          batch = call.safe && lastSafe && batch >= 0 ? batch : batch + 1
          lastSafe = call.safe
          queue.push({ call, batch })
          pump()
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          ended = true
          pump()
        },
      })

      return () => {
        signal?.removeEventListener('abort', onAbort)
        subscription.unsubscribe()
      }
    })
}
