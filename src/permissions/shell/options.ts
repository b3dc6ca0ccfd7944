/**
 * Reading command-line options the way getopt does, for the wrappers (which must find where the
 * wrapped command starts) and the read-only table (which must find forbidden options).
 */
import type { Word } from './words.js'
import { isDynamic } from './words.js'

/** The options a program accepts. Anything else makes the scan fail: unknown means unknown. */
export interface OptionSpec {
  /** Short options without an argument, e.g. `'iv0'`. */
  readonly flags?: string
  /** Short options with an argument (attached, `-n5`, or the next word, `-n 5`). */
  readonly withArg?: string
  /** Long options without an argument. */
  readonly long?: readonly string[]
  /** Long options with an argument (`--name=v` or `--name v`). */
  readonly longArg?: readonly string[]
  /** Long options whose argument is optional and only ever attached (`--name[=v]`). */
  readonly longOptional?: readonly string[]
}

/** One option found, by its canonical name (`n`, `adjustment`). */
export interface FoundOption {
  readonly name: string
  readonly value: string | undefined
}

export type OptionScan =
  | { readonly ok: true; readonly options: readonly FoundOption[]; readonly operand: number }
  | { readonly ok: false; readonly reason: string }

/**
 * Scans options from `words[from]` up to the first operand (or past `--`), as a wrapper's
 * getopt does: the first word that is not an option starts the wrapped command.
 */
export function scanOptions(words: readonly Word[], from: number, spec: OptionSpec, who: string): OptionScan {
  const options: FoundOption[] = []
  let i = from
  while (i < words.length) {
    const word = words[i]
    if (word === undefined) break
    if (isDynamic(word)) return { ok: false, reason: `an option of ${who} is computed at run time (${word.raw})` }
    const text = word.value
    if (text === '--') return { ok: true, options, operand: i + 1 }
    if (!text.startsWith('-') || text === '-') break
    const step = text.startsWith('--') ? readLong(words, i, spec, who) : readShort(words, i, spec, who)
    if (!step.ok) return step
    options.push(...step.found)
    i = step.next
  }
  return { ok: true, options, operand: i }
}

type Step = { ok: true; found: FoundOption[]; next: number } | { ok: false; reason: string }

function readShort(words: readonly Word[], i: number, spec: OptionSpec, who: string): Step {
  const text = words[i]?.value ?? ''
  const found: FoundOption[] = []
  for (let at = 1; at < text.length; at++) {
    const letter = text.charAt(at)
    if (spec.flags?.includes(letter) === true) {
      found.push({ name: letter, value: undefined })
      continue
    }
    if (spec.withArg?.includes(letter) !== true)
      return { ok: false, reason: `${who}: option -${letter} is not understood` }
    const attached = text.slice(at + 1)
    if (attached !== '') return { ok: true, found: [...found, { name: letter, value: attached }], next: i + 1 }
    return takeNext(words, i, letter, found, who)
  }
  return { ok: true, found, next: i + 1 }
}

function takeNext(words: readonly Word[], i: number, name: string, found: FoundOption[], who: string): Step {
  const next = words[i + 1]
  if (next === undefined) return { ok: false, reason: `${who}: option ${name} needs an argument` }
  if (isDynamic(next)) return { ok: false, reason: `an option of ${who} is computed at run time (${next.raw})` }
  return { ok: true, found: [...found, { name, value: next.value }], next: i + 2 }
}

function readLong(words: readonly Word[], i: number, spec: OptionSpec, who: string): Step {
  const text = words[i]?.value ?? ''
  const eq = text.indexOf('=')
  const given = eq < 0 ? text.slice(2) : text.slice(2, eq)
  const value = eq < 0 ? undefined : text.slice(eq + 1)
  const name = canonicalLong(given, spec)
  if (name === undefined) return { ok: false, reason: `${who}: option --${given} is not understood` }
  if (spec.longArg?.includes(name) === true) {
    return value !== undefined ? { ok: true, found: [{ name, value }], next: i + 1 } : takeNext(words, i, name, [], who)
  }
  if (value !== undefined && spec.longOptional?.includes(name) !== true) {
    return { ok: false, reason: `${who}: option --${name} takes no value` }
  }
  return { ok: true, found: [{ name, value }], next: i + 1 }
}

/** GNU getopt_long accepts any unambiguous prefix of a long option: `--sig` for `--signal`. */
export function canonicalLong(given: string, spec: OptionSpec): string | undefined {
  const all = [...(spec.long ?? []), ...(spec.longArg ?? []), ...(spec.longOptional ?? [])]
  if (all.includes(given)) return given
  const candidates = all.filter((name) => given !== '' && name.startsWith(given))
  return candidates.length === 1 ? candidates[0] : undefined
}
