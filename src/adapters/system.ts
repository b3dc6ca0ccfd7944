import { randomUUID } from 'node:crypto'
import type { Clock, IdGenerator } from '../ports/index.js'

/** The real clock, with the platform's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const timer = setTimeout(fn, ms)
    return () => clearTimeout(timer)
  },
}

/** Random ids: `turn_3f2a…`. */
export const randomIds: IdGenerator = { next: (prefix) => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 20)}` }
