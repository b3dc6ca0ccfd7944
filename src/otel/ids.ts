/**
 * Span ids derived from the log, so exporting the same log twice gives the same trace. The
 * OpenTelemetry API does not let a caller choose a span's id: the SDK asks its `IdGenerator`.
 * So the exporter places the ids it wants in a slot just before `tracer.startSpan` (synchronous,
 * so nothing else runs in between) and {@link telemetryIdGenerator}, registered on the app's
 * provider, hands them out; every other span of the app gets random ids as before.
 */
import { createHash, randomBytes } from 'node:crypto'

/** The SDK's `IdGenerator` shape (structural: this module needs no SDK import). */
export interface SpanIdGenerator {
  generateTraceId(): string
  generateSpanId(): string
}

export interface DerivedIds {
  traceId: string
  spanId: string
}

/** A span's ids from the session and its record key: sha256, cut to 16 and 8 bytes. */
export function deriveIds(session: string, key: string): DerivedIds {
  const hex = createHash('sha256').update(`${session}\u0000${key}`).digest('hex')
  return { traceId: nonZero(hex.slice(0, 32)), spanId: nonZero(hex.slice(32, 48)) }
}

/** An all-zero id is invalid in OpenTelemetry; sha256 will not produce one, but a cut could in theory. */
function nonZero(id: string): string {
  return /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id
}

let pending: DerivedIds | undefined

/** Runs `start` (one `tracer.startSpan`) with `ids` in the slot the generator reads. */
export function withIds<T>(ids: DerivedIds, start: () => T): T {
  pending = ids
  try {
    return start()
  } finally {
    pending = undefined
  }
}

const random: SpanIdGenerator = {
  generateTraceId: () => randomBytes(16).toString('hex'),
  generateSpanId: () => randomBytes(8).toString('hex'),
}

/**
 * The `IdGenerator` to register on the app's tracer provider so toolkernel's spans get ids
 * derived from the log (re-exporting is idempotent, and a live run and its stored log give the
 * same ids). Spans that are not toolkernel's get ids from `fallback` (random by default).
 *
 * @example
 * const provider = new BasicTracerProvider({ idGenerator: telemetryIdGenerator(), spanProcessors })
 * // or: new NodeSDK({ idGenerator: telemetryIdGenerator(), … })
 */
export function telemetryIdGenerator(fallback: SpanIdGenerator = random): SpanIdGenerator {
  return {
    generateTraceId: () => pending?.traceId ?? fallback.generateTraceId(),
    generateSpanId: () => pending?.spanId ?? fallback.generateSpanId(),
  }
}
