/**
 * recover on a log whose calls interleave: what an interrupted call's text is built from is its
 * own progress, in order, and nothing else the log holds between its reports — the turn's own
 * events, a sibling's steps, events of a call the log never requested.
 */
import { describe, expect, it } from 'vitest'
import type { KernelEventInput } from '../../src/events/event.schema.js'
import { RECOVERY_REASON, recover } from '../../src/index.js'
import { cancelledText, interruptedText } from '../../src/events/unfinished-text.js'
import { requested, stamp } from '../projections/events.js'

const T = 'turn_1'
const step = (type: string, toolUseId: string, more: Record<string, unknown> = {}): KernelEventInput =>
  ({ type, turnId: T, toolUseId, ...more }) as KernelEventInput

describe('recover: an interrupted call among other events', () => {
  // Only tool.progress carries data; every other event between the reports (with a toolUseId or
  // without one) must add no text, not even "undefined", to what the model is told.
  it('its text is its own progress, whatever the log holds between the reports', () => {
    const events = stamp(
      { type: 'turn.started', turnId: T, mode: 'stream', maxConcurrency: 4 },
      requested(T, 'a', 0),
      requested(T, 'b', 1),
      step('tool.parsed', 'a', { tool: 'Echo' }),
      step('tool.validated', 'a'),
      step('tool.permitted', 'a', { behavior: 'allow', source: 'tool' }),
      step('tool.started', 'a', { interrupt: 'block' }),
      step('tool.progress', 'a', { data: 'one ' }),
      step('tool.parsed', 'b', { tool: 'Echo' }),
      { type: 'turn.ended', turnId: T, stopReason: 'tool_use' },
      step('tool.started', 'ghost', { interrupt: 'block' }),
      step('tool.progress', 'a', { data: { n: 2 } }),
    )
    const texts = recover(events).flatMap((e) => (e.type === 'tool.result' ? [[e.toolUseId, e.block.content]] : []))
    expect(texts).toStrictEqual([
      ['a', interruptedText('Echo', RECOVERY_REASON, 'one {"n":2}')],
      ['b', cancelledText('Echo', RECOVERY_REASON)],
    ])
  })
})
