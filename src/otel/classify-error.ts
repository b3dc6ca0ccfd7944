/**
 * `error.type` for what a tool throws, as the seeds' `classifyToolError` does it: a class from a
 * closed set, never the error's free text (which may hold paths, input or secrets).
 */
import { ERRNO_CODES, isErrorClass, isErrorName } from '../projections/telemetry.projection.js'

/**
 * An error whose telemetry class the tool's author vouches for: `telemetryClass` goes to
 * `error.type` as is (letters, digits, `_ . : -`, at most 64 characters), `message` to the model.
 *
 * @example
 * throw new TelemetrySafeError('rate_limited', 'the API refused: too many requests; wait a minute')
 */
export class TelemetrySafeError extends Error {
  readonly telemetryClass: string
  constructor(telemetryClass: string, message: string = telemetryClass, options?: ErrorOptions) {
    super(message, options)
    this.telemetryClass = isErrorClass(telemetryClass) ? telemetryClass : 'TelemetrySafeError'
  }
}

/**
 * The class of a thrown value: a {@link TelemetrySafeError}'s class, an errno code (`ENOENT`), the
 * error's name (`TypeError`, `AbortError`), `Error` for a plain one, else `unknown`.
 */
export function classifyToolError(error: unknown): string {
  if (error instanceof TelemetrySafeError) return error.telemetryClass
  if (!(error instanceof Error)) return 'unknown'
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && ERRNO_CODES.has(code)) return code
  if (error.name !== 'Error' && isErrorName(error.name)) return error.name
  return 'Error'
}
