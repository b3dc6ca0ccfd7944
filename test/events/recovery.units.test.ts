/**
 * recover, case by case on hand-built logs: what the model is told for a call in each position
 * (never started, started without end, ended with output, errored, persisted, too large), and the
 * exact events appended, in order, per open turn.
 */
import { describe, expect, it } from 'vitest'
import { toolResultBlock, type KernelEventInput } from '../../src/events/event.schema.js'
import { RECOVERY_REASON, recover } from '../../src/events/recovery.js'
import { cancelledText, interruptedText, ranUnrecordedText } from '../../src/events/unfinished-text.js'
import { requested, result, stamp } from '../projections/events.js'

const T = 'turn_1'
const ev = (input: Record<string, unknown>, turnId = T): KernelEventInput => ({ turnId, ...input }) as KernelEventInput
const started = (turnId = T): KernelEventInput => ({ type: 'turn.started', turnId, mode: 'batch', maxConcurrency: 4 })
const step = (type: string, toolUseId: string, more: Record<string, unknown> = {}) => ev({ type, toolUseId, ...more })
/** A call that got as far as its tool being called. */
const running = (toolUseId: string, index = 0, name = 'Echo'): KernelEventInput[] => [
  requested(T, toolUseId, index, name),
  step('tool.parsed', toolUseId, { tool: name }),
  step('tool.validated', toolUseId),
  step('tool.permitted', toolUseId, { behavior: 'allow', source: 'tool' }),
  step('tool.started', toolUseId, { interrupt: 'block' }),
]

/** The text recovery gives the one open call of a log. */
function textFor(...inputs: KernelEventInput[]): string {
  const results = recover(stamp(started(), ...inputs)).filter((e) => e.type === 'tool.result')
  expect(results).toHaveLength(1)
  const [only] = results
  return only?.type === 'tool.result' ? String(only.block.content) : ''
}

const ran = (known: string) => ranUnrecordedText('Echo', RECOVERY_REASON, known)

describe('recover: what the model is told', () => {
  it('a call that never started had no effect', () => {
    expect(textFor(requested(T, 'a', 0))).toBe(cancelledText('Echo', RECOVERY_REASON))
    expect(textFor(...running('a').slice(0, 4))).toBe(cancelledText('Echo', RECOVERY_REASON))
    expect(cancelledText('Echo', RECOVERY_REASON)).toMatch(/^Echo was cancelled before it ran: .* It had no effect/)
  })

  it('a call that started without an end was interrupted, with its progress as it came', () => {
    expect(textFor(...running('a'))).toBe(interruptedText('Echo', RECOVERY_REASON, ''))
    const progress = [
      step('tool.progress', 'a', { data: 'one\n' }),
      step('tool.progress', 'a', { data: { step: 2 } }),
      step('tool.progress', 'a', { data: 3 }),
    ]
    expect(textFor(...running('a'), ...progress)).toBe(interruptedText('Echo', RECOVERY_REASON, 'one\n{"step":2}3'))
  })

  it('a call whose tool returned has taken effect, with the output the log knows', () => {
    const completed = (output: unknown) => step('tool.completed', 'a', { output })
    expect(textFor(...running('a'), completed('all done'))).toBe(ran('Its output was:\nall done'))
    expect(textFor(...running('a'), completed({ files: ['x'] }))).toBe(ran('Its output was:\n{"files":["x"]}'))
    expect(textFor(...running('a'), completed(null))).toBe(ran('Its output was:\nnull'))
    expect(textFor(...running('a'), completed({ persisted: false }))).toBe(ran('Its output was:\n{"persisted":false}'))
    expect(textFor(...running('a'), completed(''))).toBe(ran('It returned no output.'))
    // A tool that returned nothing: JSON has no text for it, so the log's word is `undefined`.
    expect(textFor(...running('a'), completed(undefined))).toBe(ran('Its output was:\nundefined'))
    expect(ran('x')).toMatch(/^Echo ran to its end, but .* It has taken effect; do not repeat it without checking\. x$/)
  })

  it('a call whose tool threw has taken effect too, with the error', () => {
    const errored = step('tool.errored', 'a', { message: 'Echo failed: disk on fire' })
    expect(textFor(...running('a'), errored)).toBe(ran('It reported an error: Echo failed: disk on fire'))
  })

  it('oversize output: where it was saved, or that it was not', () => {
    const persisted = step('tool.completed', 'a', { persisted: true })
    const budgeted = step('tool.budgeted', 'a', { path: '/results/a.txt', chars: 200_000 })
    expect(textFor(...running('a'), persisted, budgeted)).toBe(ran('Its full output was saved to /results/a.txt.'))
    expect(textFor(...running('a'), persisted)).toBe(
      ran('Its output was too large to keep in the log and was not saved.'),
    )
  })
})

describe('recover: the appended events', () => {
  it('turn.recovered, then per open call in index order its step and result, then turn.completed', () => {
    const events = stamp(
      started(),
      // Requested out of index order (a stream may), each left in another step.
      requested(T, 'c', 2, 'Later'),
      requested(T, 'a', 0),
      requested(T, 'b', 1, 'Slow'),
      step('tool.parsed', 'a', { tool: 'Echo', hooks: { pre: true, post: false } }),
      step('tool.validated', 'a'),
      ...running('b', 1, 'Slow').slice(1),
      requested(T, 'd', 3),
      step('tool.rejected', 'd', { step: 'parse', code: 'unknown_tool', message: 'No such tool' }),
      step('tool.mapped', 'd', { isError: true }),
      result(T, 'd', 'No such tool', 'error'),
    )
    const cancelled = (toolUseId: string, at: string) => ({
      type: 'tool.cancelled',
      turnId: T,
      toolUseId,
      step: at,
      reason: RECOVERY_REASON,
    })
    const answer = (toolUseId: string, text: string) => ({
      type: 'tool.result',
      turnId: T,
      toolUseId,
      outcome: 'cancelled',
      block: toolResultBlock(toolUseId, text, true),
    })
    expect(recover(events)).toStrictEqual([
      { type: 'turn.recovered', turnId: T, reason: RECOVERY_REASON, open: ['a', 'b', 'c'] },
      cancelled('a', 'preHook'),
      answer('a', cancelledText('Echo', RECOVERY_REASON)),
      cancelled('b', 'call'),
      answer('b', interruptedText('Slow', RECOVERY_REASON, '')),
      cancelled('c', 'parse'),
      answer('c', cancelledText('Later', RECOVERY_REASON)),
      { type: 'turn.completed', turnId: T, results: 4 },
    ])
    expect(answer('a', 'x').block.is_error).toBe(true)
  })

  it('names the step the step table puts each call in', () => {
    const stepOf = (...inputs: KernelEventInput[]) => {
      const cancelled = recover(stamp(started(), ...inputs)).find((e) => e.type === 'tool.cancelled')
      return cancelled?.type === 'tool.cancelled' ? cancelled.step : undefined
    }
    expect(stepOf(...running('a').slice(0, 1))).toBe('parse')
    expect(stepOf(...running('a').slice(0, 2))).toBe('validate')
    expect(stepOf(...running('a').slice(0, 3))).toBe('permission')
    expect(stepOf(...running('a'))).toBe('call')
    expect(stepOf(...running('a'), step('tool.completed', 'a', { output: 'x' }))).toBe('map')
    expect(stepOf(...running('a'), step('tool.completed', 'a', { persisted: true }))).toBe('budget')
  })

  it('leaves completed turns alone and closes each open one, in the order they appear', () => {
    const whole = stamp(started('done'), ev({ type: 'turn.completed', results: 0 }, 'done'))
    expect(recover(whole)).toStrictEqual([])
    const events = stamp(
      started('one'),
      started('two'),
      { type: 'tool.requested', turnId: 'two', toolUseId: 'x', index: 0, name: 'Echo', input: {} },
      started('three'),
      ev({ type: 'turn.completed', results: 0 }, 'three'),
    )
    expect(recover(events).map((e) => [e.type, e.turnId])).toStrictEqual([
      ['turn.recovered', 'one'],
      ['turn.completed', 'one'],
      ['turn.recovered', 'two'],
      ['tool.cancelled', 'two'],
      ['tool.result', 'two'],
      ['turn.completed', 'two'],
    ])
  })

  it('a turn whose calls all have results is completed with nothing cancelled', () => {
    const events = stamp(started(), requested(T, 'a', 0), result(T, 'a', 'ok'))
    expect(recover(events)).toStrictEqual([
      { type: 'turn.recovered', turnId: T, reason: RECOVERY_REASON, open: [] },
      { type: 'turn.completed', turnId: T, results: 1 },
    ])
  })

  it("skips a call's events when its tool.requested is not in the log (a log that lost its start)", () => {
    const events = stamp(started(), step('tool.started', 'ghost', { interrupt: 'block' }), requested(T, 'a', 0))
    expect(recover(events).map((e) => (e.type === 'tool.cancelled' ? e.toolUseId : e.type))).toStrictEqual([
      'turn.recovered',
      'a',
      'tool.result',
      'turn.completed',
    ])
  })
})
