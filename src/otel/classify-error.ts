/** `error.type` for what a tool throws: see src/events/error-class.ts, where the log's class is made. */
export { classifyToolError, TelemetrySafeError } from '../events/error-class.js'
