/**
 * summarise alone: the counts, the tallies (most first, ties by name in code-unit order), the
 * slowest calls (ties by position, at most SLOWEST_SHOWN) and the time by segment kind.
 */
import { describe, expect, it } from 'vitest'
import type { SegmentKind } from '../../src/projections/timeline-segments.js'
import { SLOWEST_SHOWN, summarise } from '../../src/projections/timeline-summary.js'

type Call = Parameters<typeof summarise>[0][number]
/** Call `n`, taking `ms` from its request (at n) to its result; the rest is checked where a test reads it. */
const call = (n: number, ms: number, more: Partial<Call> = {}): Call => ({
  n,
  tool: 'Echo',
  start: n,
  end: n + ms,
  outcome: 'success',
  errorClass: null,
  segments: [],
  ...more,
})

describe('summarise: the tallies', () => {
  // Most first; ties by name, so the same log gives the same page whatever order the names came in
  // (code units, not the locale: upper case before lower case).
  it('counts outcomes, tools and error classes, most first, ties by name', () => {
    const tools = ['Write', 'Grep', 'Bash', 'Write', 'Read', 'Grep', 'Write', 'Read', 'mcp__a', 'Agent']
    const failures: Array<[string, string | null]> = [
      ['success', null],
      ['error', 'tool_error'],
      ['success', null],
      ['error', 'permission_denied'],
      ['cancelled', 'cancelled'],
      ['success', null],
      ['error', 'invalid_input'],
      ['error', 'tool_error'],
      ['cancelled', 'cancelled'],
      ['open', null],
    ]
    const calls = tools.map((tool, n) => {
      const [outcome, errorClass] = failures[n]!
      return call(n, 1, { tool, outcome, errorClass })
    })
    const summary = summarise(calls, 40, 3)
    expect([summary.events, summary.turns, summary.calls]).toEqual([40, 3, 10])
    expect(summary.byTool).toEqual([
      ['Write', 3],
      ['Grep', 2],
      ['Read', 2],
      ['Agent', 1],
      ['Bash', 1],
      ['mcp__a', 1],
    ])
    expect(summary.byOutcome).toEqual([
      ['error', 4],
      ['success', 3],
      ['cancelled', 2],
      ['open', 1],
    ])
    expect(summary.errorClasses).toEqual([
      ['cancelled', 2],
      ['tool_error', 2],
      ['invalid_input', 1],
      ['permission_denied', 1],
    ])
  })

  it('names that came in name order stay in it; in reverse order they are put back', () => {
    const forward = summarise(
      ['a', 'b', 'c'].map((tool, n) => call(n, 1, { tool })),
      0,
      0,
    )
    const backward = summarise(
      ['c', 'b', 'a'].map((tool, n) => call(n, 1, { tool })),
      0,
      0,
    )
    const expected = [
      ['a', 1],
      ['b', 1],
      ['c', 1],
    ]
    expect([forward.byTool, backward.byTool]).toEqual([expected, expected])
  })

  it('no calls: empty tallies, nothing slowest, no time in any kind', () => {
    expect(summarise([], 2, 1)).toEqual({
      events: 2,
      turns: 1,
      calls: 0,
      byOutcome: [],
      byTool: [],
      errorClasses: [],
      slowest: [],
      timeByKind: [
        ['queued', 0],
        ['checks', 0],
        ['hooks', 0],
        ['permission', 0],
        ['running', 0],
        ['budget', 0],
        ['finishing', 0],
      ],
    })
  })
})

describe('summarise: the slowest calls', () => {
  const durations = [5, 40, 12, 40, 3, 7, 90, 1, 12, 2, 60, 8]
  const slowest = [6, 10, 1, 3, 2, 8, 11, 5, 0, 4]

  // The page names the ten calls that took longest, slowest first; of two as slow, the earlier one.
  it('names the slowest calls by position, slowest first, ties by position, at most SLOWEST_SHOWN', () => {
    expect(SLOWEST_SHOWN).toBe(10)
    expect(
      summarise(
        durations.map((ms, n) => call(n, ms)),
        0,
        0,
      ).slowest,
    ).toEqual(slowest)
  })

  it('whatever order the calls are given in', () => {
    expect(summarise(durations.map((ms, n) => call(n, ms)).reverse(), 0, 0).slowest).toEqual(slowest)
  })

  it('fewer calls than SLOWEST_SHOWN are all named', () => {
    expect(summarise([call(0, 3), call(1, 9), call(2, 3)], 0, 0).slowest).toEqual([1, 0, 2])
  })
})

describe('summarise: the time by segment kind', () => {
  // Summed over every call, in the legend's order, a kind no call spent time in at 0.
  it('sums each kind over all calls, in the order of the kinds', () => {
    const seg = (kind: SegmentKind, start: number, end: number) => ({ kind, start, end })
    const calls = [
      call(0, 30, { segments: [seg('queued', 0, 4), seg('running', 4, 20), seg('finishing', 20, 30)] }),
      call(1, 50, { segments: [seg('checks', 1, 2), seg('permission', 2, 40), seg('running', 40, 45)] }),
      call(2, 9, { segments: [seg('queued', 2, 3), seg('hooks', 3, 11)] }),
    ]
    expect(summarise(calls, 0, 0).timeByKind).toEqual([
      ['queued', 5],
      ['checks', 1],
      ['hooks', 8],
      ['permission', 38],
      ['running', 21],
      ['budget', 0],
      ['finishing', 10],
    ])
  })
})
