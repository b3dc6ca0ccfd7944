/**
 * The state of one analysis: the commands found so far and the context the walker is in
 * (inside `bash -c`, under a redirection, after which wrappers).
 */
import type { Assignment, BashParser, Redirect, ShellNode, SimpleCommand } from './shell.types.js'
import { fail } from './unknown.js'
import { isDynamic, wordText } from './words.js'
import type { Word } from './words.js'

/** Nested scripts (`bash -c "bash -c …"`, backticks, `EDITOR=…`) deeper than this are unknown. */
export const MAX_NESTING = 8
/** More simple commands than this are unknown: nobody reviews a thousand-command line. */
export const MAX_COMMANDS = 1000

/** What the whole analysis shares, however deep the walker is. */
export interface Shared {
  readonly parser: BashParser
  readonly commands: SimpleCommand[]
  /** Variables the script sets other than by arithmetic (`x=…`, `read x`, `for x in`). */
  readonly assigned: Set<string>
  /** Variables whose value bash evaluates as code: arithmetic, `${!x}`, `${x@P}`, subscripts. */
  readonly evaluated: Set<string>
  /** Parses and walks a nested script in the given scope (a callback: it keeps imports acyclic). */
  readonly analyzeSource: (source: string, scope: Scope) => void
  /** Walks a node (the walker's entry point, passed in for the same reason). */
  readonly visit: (node: ShellNode, scope: Scope) => void
}

/** Where the walker is. Commands found here inherit the wrappers, assignments and redirections. */
export interface Scope {
  readonly shared: Shared
  readonly depth: number
  readonly via: readonly string[]
  readonly wrapperLines: readonly string[]
  readonly assignments: readonly Assignment[]
  readonly redirects: readonly Redirect[]
}

/** The parts of one simple command, before the scope's inheritance is added. */
export interface CommandParts {
  readonly words: readonly Word[]
  readonly assignments: readonly Assignment[]
  readonly redirects: readonly Redirect[]
  readonly text: string
  readonly via: readonly string[]
  readonly wrapperLines: readonly string[]
  readonly openArgs: boolean
}

/** The scope for commands under extra redirections (`{ a; b; } > f` redirects both). */
export function withRedirects(scope: Scope, redirects: readonly Redirect[]): Scope {
  return redirects.length === 0 ? scope : { ...scope, redirects: [...redirects, ...scope.redirects] }
}

/** The scope of a nested script, one level deeper; fails past the nesting limit. */
export function deeper(scope: Scope, extra: Partial<Omit<Scope, 'shared' | 'depth'>> = {}): Scope {
  if (scope.depth + 1 > MAX_NESTING) fail(`scripts nested more than ${MAX_NESTING} deep are not analysed`)
  return {
    shared: scope.shared,
    depth: scope.depth + 1,
    via: [...scope.via, ...(extra.via ?? [])],
    wrapperLines: [...scope.wrapperLines, ...(extra.wrapperLines ?? [])],
    assignments: [...scope.assignments, ...(extra.assignments ?? [])],
    redirects: [...(extra.redirects ?? []), ...scope.redirects],
  }
}

/** `/bin/rm` is `rm` and `~/bin/x` is `x`; a relative path such as `./x` stays as written. */
export function matchingName(written: string): string {
  if (!written.startsWith('/') && !written.startsWith('~')) return written
  const base = written.slice(written.lastIndexOf('/') + 1)
  return base === '' ? written : base
}

/** Directories of system programs: a path there names the program a bare name finds. */
const SYSTEM_DIRECTORIES = new Set(['/bin', '/usr/bin', '/sbin', '/usr/sbin'])

/**
 * Whether a command word names a program where only the system installs programs, so that
 * `/usr/bin/git` may be treated as `git`; a bare name is found through the kernel's own PATH.
 */
export function isSystemProgram(written: string): boolean {
  if (!written.includes('/')) return true
  return SYSTEM_DIRECTORIES.has(written.slice(0, written.lastIndexOf('/')))
}

/** One line of words as rules compare them: the words' values joined by single spaces. */
export function wordsLine(words: readonly Word[]): string {
  return words.map(wordText).join(' ')
}

/** Records a simple command with what its scope adds. */
export function pushCommand(scope: Scope, parts: CommandParts): void {
  const [first, ...args] = parts.words
  scope.shared.commands.push({
    name: first === undefined ? '' : matchingName(first.value),
    writtenName: first?.value ?? '',
    args: args.map(wordText),
    assignments: [...scope.assignments, ...parts.assignments].map(({ name, value }) => ({ name, value })),
    redirects: [...parts.redirects, ...scope.redirects],
    text: parts.text,
    via: [...scope.via, ...parts.via],
    wrapperLines: [...scope.wrapperLines, ...parts.wrapperLines],
    dynamic: args.some(isDynamic),
    openArgs: parts.openArgs,
    argExpansions: args.map((arg) => arg.expansions),
  })
  if (scope.shared.commands.length > MAX_COMMANDS) fail(`more than ${MAX_COMMANDS} simple commands are not analysed`)
}
