/**
 * Checks the read-only table is built from: forbidden options (as getopt would read them),
 * operand counts, and whether a path could name a process environment.
 */

/** One forbidden option: `--pre`, `-o` (a letter in any short cluster) or `-exec` (a whole word). */
export interface Forbidden {
  readonly option: string
  readonly reason: string
}

/** How a program reads its options. */
export interface OptionStyle {
  /** GNU getopt_long and git accept unambiguous prefixes of long options (`--comp` for `--compress-program`). */
  readonly abbreviations?: boolean
  /** Options are whole words with one dash (find's `-exec`): matched exactly, `--` ends nothing. */
  readonly singleDashWords?: boolean
  /** Short options that take an argument: the rest of a cluster after one is its value (`-Iseconds`). */
  readonly shortWithArg?: string
}

/** Returns the reason of the first forbidden option among `args`, if any. */
export function findForbidden(
  args: readonly string[],
  forbidden: readonly Forbidden[],
  style: OptionStyle = {},
): string | undefined {
  // Every word is looked at, past `--` too: `--` may be the value of an option that takes one
  // (`git grep -e -- -O'sh'` runs sh), and refusing a literal `-o` after it only asks.
  for (const arg of args) {
    const hit = forbidden.find((rule) => optionMatches(arg, rule.option, style))
    if (hit !== undefined) return hit.reason
  }
  return undefined
}

function optionMatches(arg: string, option: string, style: OptionStyle): boolean {
  if (style.singleDashWords === true) return arg === option
  if (option.startsWith('--')) {
    if (!arg.startsWith('--')) return false
    const given = arg.slice(2).split('=')[0] ?? ''
    const name = option.slice(2)
    return given === name || (style.abbreviations === true && given.length > 0 && name.startsWith(given))
  }
  // A short option: any cluster (`-Ocat`, `-uz`) containing the letter before a letter that takes
  // an argument. Where those letters are not listed the whole cluster is read: that only refuses more.
  if (!arg.startsWith('-') || arg.startsWith('--')) return false
  for (const letter of arg.slice(1)) {
    if (letter === option.slice(1)) return true
    if (style.shortWithArg?.includes(letter) === true) return false
  }
  return false
}

/** Short and long options that take an argument, for counting operands. */
export interface ArgOptions {
  readonly short?: string
  readonly long?: readonly string[]
}

/** The operands of a GNU-style command line (options may follow operands; `--` ends options). */
export function operands(args: readonly string[], withArg: ArgOptions = {}): string[] {
  const found: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    if (arg === '--') return [...found, ...args.slice(i + 1)]
    if (arg.startsWith('--')) {
      const name = arg.slice(2)
      if (!name.includes('=') && withArg.long?.some((long) => long.startsWith(name)) === true) i++
    } else if (arg.startsWith('-') && arg !== '-') {
      const at = [...arg.slice(1)].findIndex((letter) => withArg.short?.includes(letter) === true)
      if (at >= 0 && at === arg.length - 2) i++
    } else found.push(arg)
  }
  return found
}

const ENVIRON_PATHS = [
  '/proc/self/environ',
  '/proc/1/environ',
  '/proc/thread-self/environ',
  '/proc/self/task/1/environ',
]

/**
 * Whether a glob (or brace) pattern could match a process environment file. A pattern with no
 * slash matches only in the working directory, which `cd` into /proc cannot reach (see `cd`).
 */
export function globMayNameEnviron(raw: string): boolean {
  const pattern = raw.replace(/^(\.\.?\/)+/, '')
  if (!pattern.includes('/')) return false
  const regex = new RegExp(`^${globToRegex(pattern)}$`)
  const candidates = pattern.startsWith('/') ? ENVIRON_PATHS : ENVIRON_PATHS.map((path) => path.slice(1))
  return candidates.some((path) => regex.test(path))
}

function globToRegex(pattern: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern.charAt(i)
    if (ch === '*') out += '[^/]*'
    else if (ch === '?' || ch === '[') {
      out += '[^/]'
      if (ch === '[') i = Math.max(i, pattern.indexOf(']', i + 1))
    } else if (ch === '{') {
      out += '.*' // a brace expansion could produce anything
      i = Math.max(i, pattern.indexOf('}', i + 1))
    } else if (ch === "'" || ch === '"' || ch === '\\') continue
    else out += ch.replace(/[.+^()|\]]/g, '\\$&')
  }
  return out
}
