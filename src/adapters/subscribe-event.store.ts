/**
 * The subscription loop every store shares: read a page after the checkpoint, hand it over,
 * repeat until a page comes back empty, then wait for a wake-up or the poll interval. A wake-up
 * only shortens the wait; the read decides what is new, so a lost or early wake-up loses nothing.
 */
import type { Checkpoint, StoreSubscription, StoredEvent, SubscribeOptions } from '../ports/event-store.port.js'

export interface FeedSource {
  readAll(after: Checkpoint, limit: number): Promise<StoredEvent[]>
  /** Events committed after `after` (for the lag figure). */
  countAfter(after: Checkpoint): Promise<number>
  /** Registers a wake-up; returns its removal. */
  onWake(wake: () => void): () => void
}

const PAGE = 500

/** Starts a feed over `source` from `after`. */
export function startFeed(
  source: FeedSource,
  after: Checkpoint,
  handler: (events: readonly StoredEvent[]) => void | Promise<void>,
  options: SubscribeOptions & { defaultPollMs: number },
): StoreSubscription {
  let checkpoint = after
  let closed = false
  let wakeUp: (() => void) | undefined
  let woken = false
  const wake = (): void => {
    woken = true
    wakeUp?.()
  }
  const unhook = source.onWake(wake)
  const pollMs = options.pollMs ?? options.defaultPollMs
  const sleep = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (woken || closed) return resolve()
      const timer = setTimeout(done, pollMs)
      function done(): void {
        clearTimeout(timer)
        wakeUp = undefined
        resolve()
      }
      wakeUp = done
    })
  const loop = async (): Promise<void> => {
    while (!closed) {
      woken = false
      try {
        const page = await source.readAll(checkpoint, PAGE)
        if (closed) return
        if (page.length > 0) {
          await handler(page)
          checkpoint = (page.at(-1) as StoredEvent).position
          if (page.length === PAGE) continue
        }
      } catch (error) {
        options.onError?.(error)
      }
      await sleep()
    }
  }
  const running = loop()
  return {
    checkpoint: () => checkpoint,
    lag: () => source.countAfter(checkpoint),
    close: async () => {
      closed = true
      unhook()
      wakeUp?.()
      await running
    },
  }
}
