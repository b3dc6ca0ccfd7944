/** How much of a value from the log the timeline page keeps: enough to read, never enough to stall it. */

/** Longest text from the log kept per embedded value: the page stays openable, the log has the rest. */
export const MAX_EMBEDDED_CHARS = 20_000

/**
 * A value from the log, kept whole when its JSON is short; otherwise the start of its JSON text
 * and a note saying how much was cut.
 */
export function capped(value: unknown): unknown {
  if (typeof value === 'string') return value.length <= MAX_EMBEDDED_CHARS ? value : cut(value)
  if (value === null || typeof value !== 'object') return value
  const json = JSON.stringify(value)
  return json.length <= MAX_EMBEDDED_CHARS ? value : cut(json)
}

function cut(text: string): string {
  const rest = text.length - MAX_EMBEDDED_CHARS
  return `${text.slice(0, MAX_EMBEDDED_CHARS)}… (${rest} more characters; the log has them all)`
}
