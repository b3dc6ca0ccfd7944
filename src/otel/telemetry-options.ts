/**
 * The telemetry projection as `toolkernel/otel` exports it: the same functions, refusing an
 * option they do not know, naming the ones they take (decision 118). The projection itself stays
 * pure (it imports only events); the check lives here, at the public entry.
 */
import {
  createTelemetryReducer as reducerOf,
  projectTelemetry as projectionOf,
  type TelemetryOptions,
  type TelemetryRecords,
  type TelemetryReducer,
} from '../projections/telemetry.projection.js'
import type { KernelEvent } from '../events/event.schema.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

/** Every option of `TelemetryOptions`. */
export const TELEMETRY_OPTIONS = optionNames<TelemetryOptions>()(
  'captureContent',
  'maxContentChars',
  'descriptions',
  'toolType',
  'replayed',
)

/**
 * The telemetry of a whole log.
 *
 * @example
 * const { spans, metrics } = projectTelemetry(parseJsonl(text).events)
 */
export function projectTelemetry(events: readonly KernelEvent[], options: TelemetryOptions = {}): TelemetryRecords {
  checkOptionsObject('projectTelemetry', options, TELEMETRY_OPTIONS)
  return projectionOf(events, options)
}

/** Creates a reducer. Pure: its records depend only on the events it was given, in order. */
export function createTelemetryReducer(options: TelemetryOptions = {}): TelemetryReducer {
  checkOptionsObject('createTelemetryReducer', options, TELEMETRY_OPTIONS)
  return reducerOf(options)
}
