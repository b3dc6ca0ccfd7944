/**
 * What the demo prints for a turn by default: one line for the turn (calls, batches, outcomes,
 * time) and one per call (its tool, outcome, time, and why when it did not succeed). The full
 * listing — batches, every event, the tool_result message — is `--verbose`.
 */
import type { KernelEvent } from '../events/event.schema.js'
import { projectTimeline } from '../projections/timeline.projection.js'

interface CallLine {
  id: string
  name: string
  outcome: string
  ms: number
  why: string | undefined
}

/**
 * @example
 * summarizeTurn(result.events)
 * // ['4 calls in 2 batches, 38 ms: 2 success, 2 error',
 * //  '  toolu_01_grep    Grep   success     12 ms', …]
 */
export function summarizeTurn(events: readonly KernelEvent[]): string[] {
  const rows = projectTimeline(events)
  const calls = new Map<string, CallLine>()
  const batches = new Set<number>()
  for (const [i, event] of events.entries()) {
    const row = rows[i]
    if (event.type === 'tool.requested')
      calls.set(event.toolUseId, { id: event.toolUseId, name: event.name, outcome: '?', ms: 0, why: undefined })
    if (event.type === 'tool.dispatched') batches.add(event.batch)
    const call = 'toolUseId' in event && typeof event.toolUseId === 'string' ? calls.get(event.toolUseId) : undefined
    if (call === undefined || row === undefined) continue
    if (['tool.rejected', 'tool.errored', 'tool.cancelled', 'tool.cascaded'].includes(event.type)) call.why = row.detail
    if (event.type === 'tool.result') {
      call.outcome = event.outcome
      call.ms = row.t
    }
  }
  const list = [...calls.values()]
  const counts = new Map<string, number>()
  for (const call of list) counts.set(call.outcome, (counts.get(call.outcome) ?? 0) + 1)
  const total = rows.at(-1)?.t ?? 0
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`
  const head = `${plural(list.length, 'call', 'calls')} in ${plural(batches.size, 'batch', 'batches')}, ${total} ms: ${[
    ...counts,
  ]
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(', ')}`
  const width = Math.max(0, ...list.map((call) => call.id.length))
  const nameWidth = Math.max(0, ...list.map((call) => call.name.length))
  return [
    head,
    ...list.map(
      (call) =>
        `  ${call.id.padEnd(width)}  ${call.name.padEnd(nameWidth)}  ${call.outcome.padEnd(9)} ${String(call.ms).padStart(5)} ms${call.why === undefined ? '' : `  ${call.why}`}`,
    ),
  ]
}
