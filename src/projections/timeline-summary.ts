/**
 * The session summary the timeline opens with: counts, the slowest calls, error classes, and
 * where the time went by segment kind. Pure, over the timeline's calls.
 */
import { SEGMENT_KINDS, type SegmentKind } from './timeline-segments.js'

/** A tally as pairs, most first: names from the log are never object keys. */
export type Tally = Array<[name: string, count: number]>

/** What the page's summary shows, computed once here rather than in the browser. */
export interface TimelineSummary {
  events: number
  turns: number
  calls: number
  byOutcome: Tally
  byTool: Tally
  /** Why calls failed, by failure code: the same classes as `toolkernel stats`. */
  errorClasses: Tally
  /** The calls (their `n`) that took longest from request to result, slowest first. */
  slowest: number[]
  /** Milliseconds spent in each kind of segment, summed over all calls. */
  timeByKind: Array<[kind: SegmentKind, ms: number]>
}

/** How many of the slowest calls the summary names. */
export const SLOWEST_SHOWN = 10

interface SummarisedCall {
  n: number
  tool: string
  start: number
  end: number
  outcome: string
  errorClass: string | null
  segments: ReadonlyArray<{ kind: SegmentKind; start: number; end: number }>
}

/** The summary of a session's calls (`events` and `turns` are counted by the caller). */
export function summarise(calls: readonly SummarisedCall[], events: number, turns: number): TimelineSummary {
  const byOutcome = new Map<string, number>()
  const byTool = new Map<string, number>()
  const errorClasses = new Map<string, number>()
  const time = new Map<SegmentKind, number>(SEGMENT_KINDS.map((kind) => [kind, 0]))
  const add = <K>(map: Map<K, number>, key: K, by = 1) => map.set(key, (map.get(key) ?? 0) + by)
  for (const call of calls) {
    add(byOutcome, call.outcome)
    add(byTool, call.tool)
    if (call.errorClass !== null) add(errorClasses, call.errorClass)
    for (const segment of call.segments) add(time, segment.kind, segment.end - segment.start)
  }
  const slowest = [...calls]
    .sort((a, b) => b.end - b.start - (a.end - a.start) || a.n - b.n)
    .slice(0, SLOWEST_SHOWN)
    .map((call) => call.n)
  return {
    events,
    turns,
    calls: calls.length,
    byOutcome: tally(byOutcome),
    byTool: tally(byTool),
    errorClasses: tally(errorClasses),
    slowest,
    timeByKind: [...time],
  }
}

function tally(map: Map<string, number>): Tally {
  return [...map].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
}
