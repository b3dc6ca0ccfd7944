/**
 * Turns telemetry records into real spans and histogram points through `@opentelemetry/api`:
 * `tracer.startSpan` with the record's start time, attributes and links, its steps as span
 * events, ended at the record's end time. Ids derive from the log (see `ids.ts`), so the same
 * log exported twice is the same trace.
 */
import {
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Context,
  type Histogram,
  type HrTime,
  type Link,
  type Meter,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import {
  METRICS,
  type MetricName,
  type SpanRecord,
  type TelemetryRecords,
} from '../projections/telemetry.projection.js'
import { deriveIds, withIds } from './ids.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

export interface TelemetryExporterOptions {
  tracer: Tracer
  /** Where the histograms go; none: spans only. */
  meter?: Meter
  /** Mixed into every derived id: the app's name for the session (default ''). */
  session?: string
  /**
   * The context a turn's spans hang from (the app's agent span). When it holds no valid span,
   * the turn gets a root span of its own, `toolkernel.turn`, and its calls hang from that.
   */
  parentOf?: (turnId: string) => Context | undefined
}

const EXPORTER_OPTIONS = optionNames<TelemetryExporterOptions>()('tracer', 'meter', 'session', 'parentOf')

export interface TelemetryExporter {
  /** Exports finished records (a reducer's output, in order). */
  export(records: TelemetryRecords): void
  /** Ends the turn spans still open (a log cut off mid-turn) at the last time seen in them. */
  end(): void
  /** False once a span came out with an id other than the derived one: the id generator is not registered. */
  readonly deterministic: boolean
}

/** Bucket boundaries in seconds, 1 ms to about 10 minutes: tool calls span that whole range. */
const BOUNDARIES = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]

const DESCRIPTIONS: Record<MetricName, string> = {
  [METRICS.duration]: 'Duration of a tool execution, from the tool_use arriving to its result (equals the span).',
  [METRICS.queueWait]:
    'Time a call waited in the queue (behind the concurrency cap or an exclusive call) before it started.',
  [METRICS.permissionWait]: 'Time a call waited for a person to answer a permission prompt.',
  [METRICS.runTime]: "Time the tool's own call ran, from start to return, throw or interruption.",
}

/**
 * Creates an exporter.
 *
 * @example
 * const exporter = createTelemetryExporter({ tracer: trace.getTracer('toolkernel'), meter })
 * exporter.export(projectTelemetry(events))
 * exporter.end()
 */
export function createTelemetryExporter(options: TelemetryExporterOptions): TelemetryExporter {
  checkOptionsObject('createTelemetryExporter', options, EXPORTER_OPTIONS)
  const session = options.session ?? ''
  const turns = new Map<string, { span: Span; ctx: Context; lastMs: number }>()
  const histograms = options.meter === undefined ? undefined : createHistograms(options.meter)
  let deterministic = true

  const start = (record: SpanRecord, parent: Context): Span => {
    const ids = deriveIds(session, record.key)
    const links = record.links.map((key) => linkTo(session, record, key))
    // The GenAI conventions' conversation: the app's session, on every span it names one for.
    const attributes = session === '' ? record.attributes : { ...record.attributes, 'gen_ai.conversation.id': session }
    const span = withIds(ids, () =>
      options.tracer.startSpan(
        record.name,
        { kind: SpanKind.INTERNAL, startTime: hrTime(record.startMs), attributes, links },
        parent,
      ),
    )
    if (span.isRecording() && span.spanContext().spanId !== ids.spanId) deterministic = false
    return span
  }
  const finish = (span: Span, record: SpanRecord): void => {
    for (const event of record.events) span.addEvent(event.name, event.attributes, hrTime(event.atMs))
    if (record.status === 'error')
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(record.attributes['error.type'] ?? 'error') })
    span.end(hrTime(record.endMs))
  }
  /** The context a call hangs from: the app's, or its turn's own root span (opened on first use). */
  const turnContext = (record: SpanRecord): Context | undefined => {
    const app = options.parentOf?.(record.turnId)
    const appSpan = app === undefined ? undefined : trace.getSpanContext(app)
    if (app !== undefined && appSpan !== undefined && isSpanContextValid(appSpan)) return app
    let open = turns.get(record.turnKey)
    if (open === undefined) {
      const root: SpanRecord = { ...record, key: record.turnKey, name: 'toolkernel.turn', links: [], attributes: {} }
      const span = start({ ...root, startMs: record.turnStartMs }, turnParent(record))
      open = { span, ctx: trace.setSpan(ROOT_CONTEXT, span), lastMs: record.endMs }
      turns.set(record.turnKey, open)
    }
    open.lastMs = Math.max(open.lastMs, record.endMs)
    return undefined
  }

  /**
   * Where a turn's span hangs: nowhere (a trace of its own), or — a child turn (docs/subagents.md)
   * — from its parent call's span, whose ids are derived, so it may be exported before or after.
   */
  const turnParent = (record: SpanRecord): Context => {
    if (record.under === undefined) return ROOT_CONTEXT
    const parent = {
      traceId: deriveIds(session, record.under.traceKey).traceId,
      spanId: deriveIds(session, record.under.parentKey).spanId,
      traceFlags: TraceFlags.SAMPLED,
    }
    return trace.setSpanContext(ROOT_CONTEXT, parent)
  }

  return {
    get deterministic() {
      return deterministic
    },
    export({ spans, metrics }) {
      const parents = new Map<string, Context>()
      for (const record of spans) {
        if (record.kind === 'turn') {
          exportTurn(record)
          continue
        }
        const parent =
          record.parentKey !== undefined
            ? parents.get(record.parentKey)
            : (turnContext(record) ?? turns.get(record.turnKey)?.ctx)
        const span = start(record, parent ?? ROOT_CONTEXT)
        if (record.kind === 'call') parents.set(record.key, trace.setSpan(parent ?? ROOT_CONTEXT, span))
        finish(span, record)
      }
      if (histograms !== undefined)
        for (const point of metrics) histograms[point.name].record(point.value, point.attributes)
    },
    end() {
      for (const [key, open] of turns) {
        open.span.end(hrTime(open.lastMs))
        turns.delete(key)
      }
    },
  }

  function exportTurn(record: SpanRecord): void {
    const app = options.parentOf?.(record.turnId)
    const appSpan = app === undefined ? undefined : trace.getSpanContext(app)
    if (appSpan !== undefined && isSpanContextValid(appSpan)) return
    const open = turns.get(record.turnKey)
    turns.delete(record.turnKey)
    const span = open?.span ?? start(record, turnParent(record))
    span.setAttributes(record.attributes)
    for (const key of record.links) span.addLink(linkTo(session, record, key))
    finish(span, record)
  }
}

/** A link to an original span: in the original's turn trace (the trace a stored log exports to). */
function linkTo(session: string, record: SpanRecord, key: string): Link {
  const traceId = deriveIds(session, `turn|${record.turnId}`).traceId
  const spanId = deriveIds(session, key).spanId
  return { context: { traceId, spanId, traceFlags: TraceFlags.SAMPLED }, attributes: { 'toolkernel.link': 'original' } }
}

function createHistograms(meter: Meter): Record<MetricName, Histogram> {
  const make = (name: MetricName) =>
    meter.createHistogram(name, {
      unit: 's',
      description: DESCRIPTIONS[name],
      advice: { explicitBucketBoundaries: BOUNDARIES },
    })
  return {
    [METRICS.duration]: make(METRICS.duration),
    [METRICS.queueWait]: make(METRICS.queueWait),
    [METRICS.permissionWait]: make(METRICS.permissionWait),
    [METRICS.runTime]: make(METRICS.runTime),
  }
}

/** Milliseconds since the epoch as HrTime: explicit, so the API never reads a number as `performance.now()`. */
export function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000)
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)]
}
