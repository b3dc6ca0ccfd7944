import { randomUUID } from 'node:crypto'
import type { Clock, IdGenerator } from '../ports/index.js'

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() }

/** Random ids: `turn_3f2a…`. */
export const randomIds: IdGenerator = { next: (prefix) => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 20)}` }
