/**
 * Sends telemetry records to an OTLP/HTTP receiver with the OpenTelemetry SDK's own exporter
 * (JSON over HTTP): the records become spans on a private tracer provider that derives span ids
 * from the log, so exporting the same log twice sends the same trace. I/O, hence an adapter.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base'
import type { TelemetryRecords } from '../projections/telemetry.projection.js'
import { createTelemetryExporter } from '../otel/exporter.js'
import { telemetryIdGenerator } from '../otel/ids.js'
import { TOOLKERNEL_VERSION } from '../version.js'

export interface OtlpExportOptions {
  /** The receiver: a base URL (`http://127.0.0.1:4318`) or the full traces endpoint (`…/v1/traces`). */
  url: string
  headers?: Record<string, string>
  /** Per request (default 10 000 ms). */
  timeoutMillis?: number
  /** Mixed into the derived span ids. */
  session?: string
  /** `service.name` of the resource (default `toolkernel`). */
  serviceName?: string
}

/** Spans per request: receivers limit body sizes, and a log may hold 10⁵ calls. */
const BATCH = 512

/**
 * Exports the records' spans; resolves with how many were sent.
 *
 * @throws Error naming the endpoint and the reason when the receiver cannot be reached or refuses.
 */
export async function exportToOtlp(
  records: TelemetryRecords,
  options: OtlpExportOptions,
): Promise<{ spans: number; endpoint: string }> {
  const endpoint = tracesEndpoint(options.url)
  const spans = toReadableSpans(records, options)
  const exporter = new OTLPTraceExporter({
    url: endpoint,
    ...(options.headers !== undefined ? { headers: options.headers } : {}),
    timeoutMillis: options.timeoutMillis ?? 10_000,
  })
  try {
    for (let i = 0; i < spans.length; i += BATCH) {
      const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
        exporter.export(spans.slice(i, i + BATCH), resolve),
      )
      // ExportResultCode.SUCCESS is 0 (@opentelemetry/core, not a dependency of ours).
      if (result.code !== 0)
        throw new Error(
          `the OTLP receiver at ${endpoint} did not take the spans: ${result.error?.message ?? 'export failed'}`,
        )
    }
  } finally {
    await exporter.shutdown()
  }
  return { spans: spans.length, endpoint }
}

/** The records as the SDK's finished spans, made through the same exporter apps use live. */
function toReadableSpans(records: TelemetryRecords, options: OtlpExportOptions): ReadableSpan[] {
  const spans: ReadableSpan[] = []
  const collect: SpanProcessor = {
    onStart: () => {},
    onEnd: (span) => void spans.push(span),
    forceFlush: async () => {},
    shutdown: async () => {},
  }
  const provider = new BasicTracerProvider({
    idGenerator: telemetryIdGenerator(),
    spanProcessors: [collect],
    resource: resourceFromAttributes({
      'service.name': options.serviceName ?? 'toolkernel',
      'service.version': TOOLKERNEL_VERSION,
    }),
    // A call has as many span events as steps; the SDK's default limit (128) is enough, attributes too.
  })
  const exporter = createTelemetryExporter({
    tracer: provider.getTracer('toolkernel', TOOLKERNEL_VERSION),
    ...(options.session !== undefined ? { session: options.session } : {}),
  })
  exporter.export(records)
  exporter.end()
  return spans
}

/** `…/v1/traces` for a base URL; a URL that already names the endpoint stays as it is. */
export function tracesEndpoint(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error(`--otlp needs an http(s) URL such as http://127.0.0.1:4318, got ${JSON.stringify(url)}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`--otlp needs an http(s) URL such as http://127.0.0.1:4318, got ${JSON.stringify(url)}`)
  if (parsed.pathname.endsWith('/v1/traces')) return parsed.href
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/v1/traces`
  return parsed.href
}
