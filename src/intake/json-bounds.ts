/**
 * Whether a tool input is plain JSON the log can hold: what an app hands `runTurn` is a JavaScript
 * value, and a cycle, a BigInt or 100,000 levels of nesting would make the log's serialisation
 * throw mid-turn. Checked once at intake, without recursion, so the check itself cannot overflow.
 */

/** Deepest nesting accepted: far beyond any real tool input, far below the JSON serialiser's stack. */
export const MAX_INPUT_DEPTH = 256
/** Most values accepted in one input: shared references could otherwise serialise exponentially. */
export const MAX_INPUT_VALUES = 1_000_000

/** Why `value` is not plain JSON the log can hold, or undefined when it is. */
export function jsonProblem(value: unknown): string | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }]
  const open = new Set<object>()
  const exits: Array<{ object: object; at: number }> = []
  let seen = 0
  while (stack.length > 0) {
    if (++seen > MAX_INPUT_VALUES) return `it holds more than ${MAX_INPUT_VALUES} values`
    // Objects whose children have all been walked are no longer on the path: leave the set.
    while (exits.length > 0 && (exits.at(-1)?.at ?? -1) >= stack.length) {
      open.delete((exits.pop() as { object: object }).object)
    }
    const { value: item, depth } = stack.pop() as { value: unknown; depth: number }
    const kind = typeof item
    if (kind === 'bigint' || kind === 'function' || kind === 'symbol') return `a ${kind} is not JSON`
    if (kind === 'number' && !Number.isFinite(item)) return `${String(item)} is not a JSON number`
    if (item === null || kind !== 'object') continue
    if (depth >= MAX_INPUT_DEPTH) return `it is nested more than ${MAX_INPUT_DEPTH} levels deep`
    const object = item as object
    if (open.has(object)) return 'it refers to itself (a cycle), which JSON cannot express'
    open.add(object)
    exits.push({ object, at: stack.length })
    const children = Array.isArray(object) ? object : Object.values(object)
    for (const child of children) stack.push({ value: child, depth: depth + 1 })
  }
  return undefined
}
