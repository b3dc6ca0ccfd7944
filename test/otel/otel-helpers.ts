/** In-memory OpenTelemetry providers (the 2.x SDK) and a kernel run instrumented live. */
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import type { KernelEvent, KernelOptions, Tool, TurnOptions } from '../../src/index.js'
import {
  createTelemetryExporter,
  instrumentKernel,
  projectTelemetry,
  telemetryIdGenerator,
} from '../../src/otel/index.js'
import type { TelemetryOptions } from '../../src/otel/index.js'
import { assistant, testKernel } from '../helpers.js'

export function tracing(options: { deterministic?: boolean } = {}) {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    ...(options.deterministic === false ? {} : { idGenerator: telemetryIdGenerator() }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  return { exporter, provider, tracer: provider.getTracer('test') }
}

export function metering() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  const provider = new MeterProvider({ readers: [reader] })
  return {
    meter: provider.getMeter('test'),
    /** Each histogram's points: name → [{ attributes, count, sum }]. */
    async points() {
      await reader.forceFlush()
      const out = new Map<
        string,
        Array<{ attributes: Record<string, unknown>; count: number; sum: number; unit: string }>
      >()
      for (const resource of exporter.getMetrics())
        for (const scope of resource.scopeMetrics)
          for (const metric of scope.metrics) {
            const points = metric.dataPoints.map((p) => {
              const value = p.value as { count: number; sum: number }
              return { attributes: p.attributes, count: value.count, sum: value.sum, unit: metric.descriptor.unit }
            })
            out.set(metric.descriptor.name, points)
          }
      await provider.shutdown()
      return out
    },
  }
}

/** What a span is, for comparing two exports: everything but the SDK's own bookkeeping. */
export function shape(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parent: span.parentSpanContext?.spanId,
    start: span.startTime,
    end: span.endTime,
    attributes: span.attributes,
    events: span.events.map((e) => ({ name: e.name, time: e.time, attributes: e.attributes })),
    status: span.status,
    links: span.links.map((l) => l.context.spanId),
  }
}

export const byName = (spans: readonly ReadableSpan[], name: string) => spans.filter((s) => s.name === name)

/** One instrumented batch turn: the live spans, metrics and the kernel's log. */
export async function liveTurn(
  tools: readonly Tool[],
  uses: Array<[id: string, name: string, input: unknown]>,
  kernelOptions: Partial<KernelOptions> = {},
  turnOptions: TurnOptions & { telemetry?: TelemetryOptions } = {},
) {
  const { exporter, tracer } = tracing()
  const metrics = metering()
  const kernel = testKernel(tools, kernelOptions)
  const { telemetry, ...runOptions } = turnOptions
  const instrumentation = instrumentKernel(kernel, { tracer, meter: metrics.meter, ...telemetry })
  const result = await kernel.runTurn(assistant(...uses), runOptions)
  instrumentation.stop()
  return { spans: exporter.getFinishedSpans(), events: kernel.log.read(), result, metrics }
}

/** A stored log's spans, exported anew (the path `toolkernel export` takes). */
export function reexport(events: readonly KernelEvent[], options: TelemetryOptions = {}) {
  const { exporter, tracer } = tracing()
  const telemetry = createTelemetryExporter({ tracer })
  telemetry.export(projectTelemetry(events, options))
  telemetry.end()
  return exporter.getFinishedSpans()
}
