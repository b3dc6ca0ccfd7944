// Replay walks a log at the engine's pace: each recorded answer is given once the engine has
// decided every event the log has before it (src/replay/replay.ts, followDecisions). An engine
// that stops short has diverged; a replay that then finds no divergence after all gave an answer
// later than the decision it starts, a bug of replay's. Every test's replays are held to it.
import { afterEach, beforeEach, expect } from 'vitest'
import { pacing } from '../src/replay/replay.js'

let before = 0
beforeEach(() => {
  before = pacing.okUnpaced
})
afterEach(() => {
  expect(pacing.okUnpaced - before, 'a replay that found no divergence walked part of a turn at quiet moments').toBe(0)
})
