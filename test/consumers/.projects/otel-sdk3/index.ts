// An app on the OpenTelemetry SDK 3 line (its tracing package is @opentelemetry/sdk-trace, the
// 2.x line's @opentelemetry/sdk-trace-base renamed; BasicTracerProvider is TracerProvider) wiring
// `toolkernel/otel` as docs/telemetry.md shows: strict, exactOptionalPropertyTypes, no casts,
// skipLibCheck: false. SDK 3 needs Node 22 at run time, so this consumer is type-checked only.
// package.json pins one release of the line (3.1.0, the OTLP exporter's 0.301.0 depends on
// exactly it), so npm installs one copy of each package.
import { context, trace, type Tracer } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type IdGenerator,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace'
import { builtinTools, createKernel, createMemoryEventStore, type KernelEvent } from 'toolkernel'
import {
  chromeTrace,
  createTelemetryExporter,
  instrumentKernel,
  projectTelemetry,
  telemetryIdGenerator,
  toolDescriptions,
  type Instrumentation,
  type SpanIdGenerator,
} from 'toolkernel/otel'

// toolkernel's id generator is an SDK 3 IdGenerator, and SDK 3's RandomIdGenerator-shaped
// generators are its fallback.
const ids: IdGenerator = telemetryIdGenerator()
const fallback: SpanIdGenerator = { generateTraceId: () => '1'.repeat(32), generateSpanId: () => '1'.repeat(16) }
const spans = new InMemorySpanExporter()
export const provider = new TracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'my-agent' }),
  idGenerator: telemetryIdGenerator(fallback),
  // SDK 3's processors take an options object (2.x: the exporter itself).
  spanProcessors: [
    new SimpleSpanProcessor({ exporter: spans }),
    new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: 'http://127.0.0.1:4318/v1/traces' }) }),
  ],
})
trace.setGlobalTracerProvider(provider)
const reader = new PeriodicExportingMetricReader({
  exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
})
const meters = new MeterProvider({ readers: [reader] })

export async function instrumented(assistantMessage: Parameters<ReturnType<typeof createKernel>['runTurn']>[0]) {
  const kernel = createKernel({ tools: builtinTools, cwd: process.cwd() })
  const tracer: Tracer = provider.getTracer('my-agent')
  const telemetry: Instrumentation = instrumentKernel(kernel, {
    tracer,
    meter: meters.getMeter('my-agent'),
    descriptions: toolDescriptions(kernel.tools),
    captureContent: true,
    parentOf: () => context.active(),
  })
  const message = await tracer.startActiveSpan('invoke_agent my-agent', async (span) => {
    const { message } = await kernel.runTurn(assistantMessage)
    span.end()
    return message
  })
  telemetry.stop()
  const finished: ReadableSpan[] = spans.getFinishedSpans()
  return { message, finished, ids }
}

// A kernel over a store names the conversation itself (its session).
export async function overAStore(): Promise<void> {
  const kernel = createKernel({ tools: builtinTools, store: createMemoryEventStore(), session: 'session-1' })
  await kernel.ready()
  instrumentKernel(kernel).stop()
  await kernel.close()
}

// A stored log exported anew with an SDK 3 tracer, and as a Chrome trace.
export function exported(events: readonly KernelEvent[]) {
  const exporter = createTelemetryExporter({ tracer: provider.getTracer('export'), session: 'session-1' })
  const records = projectTelemetry(events, { captureContent: false })
  exporter.export(records)
  exporter.end()
  return chromeTrace(records)
}
