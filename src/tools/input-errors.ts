/**
 * Turns zod issues and unknown names into text a model can act on: what was wrong with each
 * field, what the tool expects, and what it may have meant.
 */
import { type z } from 'zod'

type Issue = z.core.$ZodIssue

/**
 * What a schema says of a value: zod's `safeParse`, except that a refinement whose own code throws
 * (or an async one, under this synchronous parse), which throws out of `safeParse`, is an answer
 * of its own. Without a schema every value is taken as it is.
 */
export type Parsed =
  { ok: true; value: unknown } | { ok: false; issues: readonly Issue[] } | { ok: false; threw: unknown }

export function parseInput(schema: z.ZodType | undefined, value: unknown): Parsed {
  if (schema === undefined) return { ok: true, value }
  try {
    const result = schema.safeParse(value)
    return result.success ? { ok: true, value: result.data } : { ok: false, issues: result.error.issues }
  } catch (error) {
    return { ok: false, threw: error }
  }
}

/** Describes each issue in words: missing, unexpected, wrong type (expected and received), out of range. */
export function describeIssues(issues: readonly Issue[], input: unknown): string[] {
  return issues.map((issue) => describeIssue(issue, input))
}

function describeIssue(issue: Issue, input: unknown): string {
  const field = issue.path.length > 0 ? `\`${issue.path.map(String).join('.')}\`` : 'the input'
  switch (issue.code) {
    case 'invalid_type': {
      const value = valueAt(input, issue.path)
      if (value === undefined) return `missing required field ${field} (expected ${issue.expected})`
      return `${field} must be ${article(issue.expected)}, got ${typeName(value)}`
    }
    case 'unrecognized_keys':
      return issue.keys.map((key) => `unexpected field \`${[...issue.path.map(String), key].join('.')}\``).join('; ')
    case 'invalid_value':
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(valueAt(input, issue.path))}`
    case 'too_small':
    case 'too_big':
    case 'invalid_format':
    case 'not_multiple_of':
    default:
      return `${field}: ${lowerFirst(issue.message)}`
  }
}

/** The value at `path` inside `input`, or undefined where the path leaves the objects. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<PropertyKey, unknown>)[key]
  }
  return current
}

/** How an error names a value's type to the model: `null`, `an array`, `a string` … */
export function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return article(typeof value)
}

/** `a word` or `an word`. */
export function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1)
}

/**
 * A one-line summary of an object schema, e.g. `{ path: string, offset?: integer, mode: "a" | "b" }`.
 * Works from JSON Schema so zod and JSON-Schema tools get the same hint.
 */
export function schemaHint(schema: { properties?: Record<string, unknown>; required?: readonly string[] }): string {
  const required = new Set(schema.required ?? [])
  const fields = Object.entries(schema.properties ?? {}).map(
    ([key, value]) => `${key}${required.has(key) ? '' : '?'}: ${jsonTypeName(value)}`,
  )
  return `{ ${fields.join(', ')} }`
}

function jsonTypeName(schema: unknown): string {
  if (schema === null || typeof schema !== 'object') return 'unknown'
  const s = schema as { type?: unknown; enum?: unknown[]; items?: unknown; anyOf?: unknown[]; const?: unknown }
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ')
  if (s.const !== undefined) return JSON.stringify(s.const)
  if (Array.isArray(s.anyOf)) return s.anyOf.map(jsonTypeName).join(' | ')
  if (s.type === 'array') return `${jsonTypeName(s.items)}[]`
  if (Array.isArray(s.type)) return s.type.join(' | ')
  return typeof s.type === 'string' ? s.type : 'unknown'
}

/** Edit distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/** The candidate closest to `name` (case-insensitive), if it is close enough to be a plausible typo. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const wanted = name.toLowerCase()
  let best: { candidate: string; distance: number } | undefined
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase())
    if (best === undefined || distance < best.distance) best = { candidate, distance }
  }
  if (best === undefined) return undefined
  const limit = Math.max(2, Math.floor(Math.max(name.length, best.candidate.length) / 3))
  return best.distance <= limit ? best.candidate : undefined
}
