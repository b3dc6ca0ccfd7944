/**
 * `toolkernel/otel`: tool calls as OpenTelemetry spans and metrics (GenAI conventions), live or
 * from a stored log. Needs `@opentelemetry/api` (an optional peer dependency, `>=1.9 <2`); the
 * kernel itself never imports it.
 */
export {
  instrumentKernel,
  toolDescriptions,
  type InstrumentOptions,
  type Instrumentation,
  type EventSource,
} from './instrument.js'
export { createTelemetryExporter, hrTime, type TelemetryExporter, type TelemetryExporterOptions } from './exporter.js'
export { telemetryIdGenerator, deriveIds, type SpanIdGenerator, type DerivedIds } from './ids.js'
export { classifyToolError, TelemetrySafeError } from './classify-error.js'
export { chromeTrace, type ChromeTrace, type TraceEvent } from './chrome-trace.js'
export { projectTelemetry, createTelemetryReducer } from './telemetry-options.js'
export {
  METRICS,
  FAILURE_ERROR_TYPES,
  ERRNO_CODES,
  type TelemetryOptions,
  type TelemetryRecords,
  type TelemetryReducer,
  type SpanRecord,
  type SpanEventRecord,
  type MetricRecord,
  type MetricName,
  type Attributes,
  type AttributeValue,
} from '../projections/telemetry.projection.js'
