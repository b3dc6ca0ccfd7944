/**
 * BashOutput's line filter: a regular expression the model writes, run over a background shell's
 * output. A backtracking regex can take exponential (or high-polynomial) time on a crafted line,
 * so only patterns whose matching cost stays small are taken (docs/decisions/processes.md
 * "Background shells"): no quantifier on a group (star height one), no backreference or
 * lookaround, at most {@link MAX_QUANTIFIERS} quantifiers of which one unbounded (`*`, `+`,
 * `{n,}`), bounded ones at most {@link MAX_BOUND}; and each line is matched on its first
 * {@link MATCHED_CHARS} characters. A pattern without special characters is a plain substring.
 */

export const MAX_PATTERN_CHARS = 200
export const MAX_QUANTIFIERS = 3
export const MAX_BOUND = 20
export const MATCHED_CHARS = 1_000

export type LineFilter = { ok: true; test: (line: string) => boolean } | { ok: false; message: string }

/** The filter for `pattern`, or why it is refused, in words for the model. */
export function lineFilter(pattern: string): LineFilter {
  if (pattern.length > MAX_PATTERN_CHARS)
    return refuse(`it is ${pattern.length} characters long (at most ${MAX_PATTERN_CHARS})`)
  const problem = costProblem(pattern)
  if (problem !== undefined) return refuse(problem)
  let regex: RegExp
  try {
    regex = new RegExp(pattern)
  } catch (error) {
    return { ok: false, message: `filter is not a valid regular expression: ${(error as Error).message}` }
  }
  return { ok: true, test: (line) => regex.test(line.length > MATCHED_CHARS ? line.slice(0, MATCHED_CHARS) : line) }
}

function refuse(why: string): LineFilter {
  return {
    ok: false,
    message: `filter ${why}. Use a plain substring or a simple regular expression: no quantifier after a group, no backreference or lookaround, at most ${MAX_QUANTIFIERS} quantifiers with one of them unbounded (* + {n,}), bounds at most ${MAX_BOUND}`,
  }
}

/** Why matching `pattern` could cost too much, or undefined when it cannot. */
function costProblem(pattern: string): string | undefined {
  let quantifiers = 0
  let unbounded = 0
  let afterGroup = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '\\') {
      const next = pattern[i + 1] ?? ''
      if (/[1-9k]/.test(next)) return 'uses a backreference'
      i++
      afterGroup = false
      continue
    }
    if (c === '[') {
      i = classEnd(pattern, i)
      afterGroup = false
      continue
    }
    if (c === '(') {
      afterGroup = false
      const rest = pattern.slice(i + 1)
      if (/^\?(=|!|<=|<!)/.test(rest)) return 'uses a lookaround'
      // A group's own marker (`?:`, `?<name>`) is not a quantifier.
      const marker = /^\?(:|<[A-Za-z_$][\w$]*>)/.exec(rest)
      if (marker !== null) i += marker[0].length
      continue
    }
    const bound = quantifierAt(pattern, i)
    if (bound === undefined) {
      afterGroup = c === ')'
      continue
    }
    if (afterGroup) return 'puts a quantifier on a group'
    quantifiers++
    if (bound.max === Infinity) unbounded++
    else if (bound.max > MAX_BOUND) return `has a bound of ${bound.max}`
    if (quantifiers > MAX_QUANTIFIERS) return `has more than ${MAX_QUANTIFIERS} quantifiers`
    if (unbounded > 1) return 'has more than one unbounded quantifier'
    i += bound.length - 1
    // A lazy or possessive marker belongs to the quantifier.
    if (pattern[i + 1] === '?') i++
    afterGroup = false
  }
  return undefined
}

/** The quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`): its largest count and length. */
function quantifierAt(pattern: string, i: number): { max: number; length: number } | undefined {
  const c = pattern[i]
  if (c === '*' || c === '+') return { max: Infinity, length: 1 }
  if (c === '?') return { max: 1, length: 1 }
  if (c !== '{') return undefined
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i))
  if (match === null) return undefined
  const max = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3])
  return { max, length: match[0].length }
}

/** The index of the `]` closing the class opened at `start` (escapes inside it skipped). */
function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++
    else if (pattern[i] === ']' && i > start + 1) return i
  }
  return pattern.length
}
