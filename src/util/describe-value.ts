/** A short description of a value that is not what was expected, for error messages: its shape, never its content. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value !== 'object') return typeof value
  return `an object with keys ${Object.keys(value).slice(0, 5).join(', ') || '(none)'}`
}
