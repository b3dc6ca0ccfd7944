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

/**
 * Whether a glob (or brace) pattern could match a process environment (/proc/<pid>/environ or a
 * thread's). Where a path leads cannot be read from its letters: `//`, `..` and symbolic links
 * (/dev/fd, /proc/self/root, /dev/fd/N for a directory a redirection opened) all reach /proc. So a
 * pattern whose last name could be `environ` may, unless it stays below the working directory
 * (see `mayLeaveWorkingDirectory`). One with no slash matches only in the working directory, which
 * `cd` into /proc cannot reach (see `pathMayEnterProc`).
 */
export function globMayNameEnviron(raw: string): boolean {
  const pattern = withoutBraces(raw.replace(/['"\\]/g, ''))
  if (pattern === undefined) return true
  const names = pattern.split('/')
  const last = names.at(-1) ?? ''
  if (names.length === 1 || !nameMayBe(last, 'environ')) return false
  return pattern.startsWith('/') || pattern.startsWith('~') || mayLeaveWorkingDirectory(names.slice(0, -1))
}

/**
 * Whether `cd` to this operand could enter /proc, where a slash-less glob reads a process's files:
 * a glob, `..`, or a path through /dev (a link such as /dev/fd/N) or with proc in it.
 */
export function pathMayEnterProc(path: string): boolean {
  return /[*?[{]/.test(path) || path.includes('proc') || mayLeaveWorkingDirectory(path.split('/'))
}

/**
 * Whether relative directory names could lead out of the working directory into /proc: a name
 * that could be `..` (`.*` is where globskipdots is off), or a first name proc or dev (from /).
 */
function mayLeaveWorkingDirectory(names: readonly string[]): boolean {
  const named = names.filter((name) => name !== '' && name !== '.')
  const first = named[0]
  if (first !== undefined && (nameMayBe(first, 'proc') || nameMayBe(first, 'dev'))) return true
  return named.some((name) => nameMayBe(name, '..'))
}

/**
 * The pattern with each brace group replaced by `*`, which stands for any run of characters but a
 * slash; undefined when a group could make a slash (`{a/,b}`, the character sequence `{+..z}`).
 */
function withoutBraces(pattern: string): string | undefined {
  let out = pattern
  for (let group = /\{([^{}]*)\}/.exec(out); group !== null; group = /\{([^{}]*)\}/.exec(out)) {
    const body = group[1] ?? ''
    const sequence = /^(.)\.\.(.)(\.\.-?\d+)?$/.exec(body)
    if (body.includes('/') || (sequence !== null && spans(sequence[1] ?? '', sequence[2] ?? '', '/'))) return undefined
    out = out.slice(0, group.index) + '*' + out.slice(group.index + group[0].length)
  }
  return out
}

/** Whether the character sequence from `a` to `b` (either way) holds `ch`. */
function spans(a: string, b: string, ch: string): boolean {
  return (a <= ch && ch <= b) || (b <= ch && ch <= a)
}

/** Whether one name of a glob pattern could match `name` (a bracket expression is one character). */
function nameMayBe(glob: string, name: string): boolean {
  if (/[@!+*?]\(/.test(glob)) return true // an extglob pattern
  let out = ''
  for (let i = 0; i < glob.length; i++) {
    const ch = glob.charAt(i)
    const close = ch === '[' ? bracketClose(glob, i) : -1
    if (ch === '*') out += '.*'
    else if (ch === '?') out += '.'
    else if (close > 0) {
      out += '.'
      i = close
    } else out += ch.replace(/[.+^$()|[\]{}\\]/g, '\\$&')
  }
  return new RegExp(`^${out}$`, 's').test(name)
}

/** Where the bracket expression opened at `open` closes: `[]x]`, `[!]x]` and `[[:alpha:]]` too; -1 if not. */
function bracketClose(glob: string, open: number): number {
  let at = open + 1
  if (glob.charAt(at) === '!' || glob.charAt(at) === '^') at++
  if (glob.charAt(at) === ']') at++
  for (; at < glob.length; at++) {
    const ch = glob.charAt(at)
    if (ch === ']') return at
    if (ch === '[' && /[:.=]/.test(glob.charAt(at + 1))) {
      const end = glob.indexOf(`${glob.charAt(at + 1)}]`, at + 2)
      if (end < 0) return -1
      at = end + 1
    }
  }
  return -1
}
