/**
 * The Trace Event format (what Perfetto and Chrome's trace viewer open) from telemetry records:
 * one process per turn, one thread per call (its index), the call a complete event with its
 * hooks and permission wait nested inside and its steps as instant events.
 */
import type { AttributeValue, SpanRecord, TelemetryRecords } from '../projections/telemetry.projection.js'

/** One event of the Trace Event format (the fields this writer uses). */
export interface TraceEvent {
  name: string
  ph: 'X' | 'i' | 'M'
  pid: number
  tid: number
  ts?: number
  dur?: number
  cat?: string
  s?: 't'
  args?: Record<string, AttributeValue>
}

export interface ChromeTrace {
  traceEvents: TraceEvent[]
  displayTimeUnit: 'ms'
  /** When the first turn started, in ms since the epoch: `ts` values count microseconds from it. */
  otherData: { origin: string; originMs: number }
}

/**
 * The records as a Chrome trace.
 *
 * @example
 * writeFileSync('trace.json', JSON.stringify(chromeTrace(projectTelemetry(events))))
 */
export function chromeTrace({ spans }: TelemetryRecords): ChromeTrace {
  const originMs = spans.reduce((min, span) => Math.min(min, span.turnStartMs), Infinity)
  const origin = Number.isFinite(originMs) ? originMs : 0
  const us = (ms: number) => Math.round((ms - origin) * 1000)
  const pids = new Map<string, number>()
  const threads = new Map<string, number>()
  const events: TraceEvent[] = []
  const pidOf = (span: SpanRecord): number => {
    let pid = pids.get(span.turnKey)
    if (pid === undefined) {
      pid = pids.size + 1
      pids.set(span.turnKey, pid)
      events.push({ name: 'process_name', ph: 'M', pid, tid: 0, args: { name: `turn ${span.turnId}` } })
      events.push({ name: 'process_sort_index', ph: 'M', pid, tid: 0, args: { sort_index: pid } })
    }
    return pid
  }
  for (const span of spans) {
    const pid = pidOf(span)
    const tid =
      span.kind === 'turn'
        ? 0
        : Number(span.attributes['toolkernel.call.index'] ?? threads.get(span.parentKey ?? '') ?? 0) + 1
    if (span.kind === 'call') {
      threads.set(span.key, tid - 1)
      const label = `#${tid - 1} ${String(span.attributes['gen_ai.tool.name'] ?? '')} ${String(span.attributes['gen_ai.tool.call.id'] ?? '')}`
      events.push({ name: 'thread_name', ph: 'M', pid, tid, args: { name: label } })
    }
    const dur = Math.max(0, us(span.endMs) - us(span.startMs))
    events.push({
      name: span.name,
      cat: span.kind,
      ph: 'X',
      pid,
      tid,
      ts: us(span.startMs),
      dur,
      args: span.attributes,
    })
    for (const step of span.events)
      events.push({ name: step.name, cat: 'step', ph: 'i', s: 't', pid, tid, ts: us(step.atMs), args: step.attributes })
  }
  return { traceEvents: events, displayTimeUnit: 'ms', otherData: { origin: 'toolkernel', originMs: origin } }
}
