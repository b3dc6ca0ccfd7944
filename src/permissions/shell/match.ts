/**
 * Matching `Bash(specifier)` permission rules against an analysis. An allow rule covers a command
 * line only if it covers every simple command in it; a deny or ask rule catches a line if it
 * catches any one of them, or — for a line that could not be analysed — if the line mentions
 * the rule's words at all (fail-closed: an `unknown` line never escapes a deny rule by hiding).
 */
import { redirectWrites } from './redirects.js'
import { isSystemProgram } from './scope.js'
import type { ShellAnalysis, SimpleCommand } from './shell.types.js'

/** A simple command as the rules see it. */
export interface RuleCommand {
  readonly command: SimpleCommand
  /** Name and arguments joined by single spaces: what allow rules compare with. */
  readonly line: string
  /** What deny and ask rules compare with: the line, its basename form, and each wrapper's line. */
  readonly denyLines: readonly string[]
  /** Why no allow rule can cover this command, if none can. */
  readonly notAllowable: string | undefined
}

export type RuleCommands =
  | { readonly kind: 'known'; readonly commands: readonly RuleCommand[] }
  | { readonly kind: 'unknown'; readonly reason: string; readonly source: string }

/** Assignments an allow rule may look past: they select behaviour, they do not name programs. */
const SAFE_ASSIGNMENTS =
  /^(NODE_ENV|CI|FORCE_COLOR|NO_COLOR|TZ|LANG|LANGUAGE|LC_[A-Z]+|RUST_BACKTRACE|RUST_LOG|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|DEBUG|VERBOSE|TERM|COLUMNS|GOOS|GOARCH|CGO_ENABLED)$/

/** Wrappers an allow rule for the wrapped command may look past: they do not change who runs it or with what. */
const TRANSPARENT = new Set([
  'timeout',
  'time',
  'nice',
  'nohup',
  'stdbuf',
  'ionice',
  'command',
  'builtin',
  'exec',
  'nocorrect',
  'noglob',
  'setsid',
  'env',
  'bash -c',
  'sh -c',
  'dash -c',
  'zsh -c',
  'ksh -c',
])

/**
 * The commands of an analysis prepared for rule matching, with why each cannot be allowed by a
 * rule (if so); `unknown` analyses stay unknown.
 */
export function commandsForRules(analysis: ShellAnalysis): RuleCommands {
  if (analysis.kind === 'unknown') return analysis
  const hit = prepared.get(analysis)
  if (hit !== undefined) return hit
  // Frozen: every rule of every call of this (cached) analysis reads the same prepared commands.
  const commands = Object.freeze(analysis.commands.map((command) => Object.freeze(ruleCommand(command))))
  const rules: RuleCommands = Object.freeze({ kind: 'known', commands })
  prepared.set(analysis, rules)
  return rules
}

/** Prepared commands by analysis: a pure function of it, kept as long as the analysis is. */
const prepared = new WeakMap<ShellAnalysis, RuleCommands>()

function ruleCommand(command: SimpleCommand): RuleCommand {
  // `/tmp/x/git status` is not the git an allow rule means; `/usr/bin/git status` is.
  const allowName = isSystemProgram(command.writtenName) ? command.name : command.writtenName
  const line = [allowName, ...command.args].join(' ')
  const base = command.name.includes('/') ? command.name.slice(command.name.lastIndexOf('/') + 1) : command.name
  const baseLine = [base, ...command.args].join(' ')
  const denyLines = Object.freeze([...new Set([lineOf(command), line, baseLine, ...command.wrapperLines])])
  return { command, line, denyLines, notAllowable: notAllowable(command) }
}

function lineOf(command: SimpleCommand): string {
  return [command.name, ...command.args].join(' ')
}

function notAllowable(command: SimpleCommand): string | undefined {
  if (command.name === '') return `${command.text} is not a command a rule can allow`
  const write = command.redirects.find(redirectWrites)
  if (write !== undefined) return `${command.name} writes ${write.target} through ${write.op}`
  const assignment = command.assignments.find((candidate) => !SAFE_ASSIGNMENTS.test(candidate.name))
  if (assignment !== undefined) return `${command.name} runs with ${assignment.name} set`
  const wrapper = command.via.find((via) => !TRANSPARENT.has(via))
  if (wrapper !== undefined) return `${command.name} runs through ${wrapper}`
  return undefined
}

type Specifier =
  | { readonly kind: 'prefix'; readonly prefix: string }
  | { readonly kind: 'exact'; readonly line: string }
  | { readonly kind: 'wildcard'; readonly regex: RegExp }

/** Specifiers come from the rule set, a few per kernel: parsed once (bounded, oldest out first). */
const specifiers = new Map<string, Specifier>()
const SPECIFIER_CACHE_SIZE = 512

/** Empties the specifier cache (for clearShellCaches). */
export function clearParsedSpecifiers(): void {
  specifiers.clear()
}

function parseSpecifier(specifier: string): Specifier {
  const hit = specifiers.get(specifier)
  if (hit !== undefined) return hit
  const parsed = parseSpecifierText(specifier)
  if (specifiers.size >= SPECIFIER_CACHE_SIZE) specifiers.delete(specifiers.keys().next().value as string)
  specifiers.set(specifier, parsed)
  return parsed
}

function parseSpecifierText(specifier: string): Specifier {
  const normal = specifier.trim().replace(/\s+/g, ' ')
  if (normal.endsWith(':*')) return { kind: 'prefix', prefix: normal.slice(0, -2).trim() }
  if (normal.includes('*')) {
    const source = normal
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')
    return { kind: 'wildcard', regex: new RegExp(`^${source}$`, 's') }
  }
  return { kind: 'exact', line: normal }
}

function lineMatches(spec: Specifier, line: string, openArgs: boolean): boolean {
  switch (spec.kind) {
    case 'prefix':
      // On a word boundary: `npm run test:*` covers `npm run test -w` and `npm run test:unit`, not `npm run testify`.
      return line === spec.prefix || line.startsWith(`${spec.prefix} `) || line.startsWith(`${spec.prefix}:`)
    case 'exact':
      return !openArgs && line === spec.line
    case 'wildcard':
      return spec.regex.test(line)
  }
}

/**
 * Whether a `Bash(…)` specifier covers one simple command: `npm run test:*` is a prefix on a word
 * boundary, `git status` is exact, a `*` elsewhere matches any text. Compared with the command's
 * normalised words (name and arguments after unwrapping, joined by single spaces).
 */
export function matchesSpecifier(specifier: string, command: SimpleCommand): boolean {
  return covers(specifier, ruleCommand(command))
}

/** `matchesSpecifier` for a command `commandsForRules` already prepared. */
export function covers(specifier: string, rule: RuleCommand): boolean {
  return lineMatches(parseSpecifier(specifier), rule.line, rule.command.openArgs)
}

/**
 * Whether a deny (or ask) rule catches a command line: any simple command, or any wrapper around
 * one, matches. For an unknown analysis: whether the text mentions every word of the rule as a
 * word, before or after removing quotes and backslashes (`r""m`, `r\m`).
 */
export function denyMatches(specifier: string, analysis: ShellAnalysis): boolean {
  const rules = commandsForRules(analysis)
  if (rules.kind === 'unknown') return mentions(specifier, rules.source)
  const spec = parseSpecifier(specifier)
  return rules.commands.some((rule) => rule.denyLines.some((line) => lineMatches(spec, line, rule.command.openArgs)))
}

/**
 * Whether an allow rule covers a command line: it was analysed, every simple command matches,
 * none writes a file through a redirection, assigns a variable that names programs, or runs
 * through a wrapper that changes how it runs (`sudo`, `xargs`).
 */
export function allowMatches(specifier: string, analysis: ShellAnalysis): boolean {
  const rules = commandsForRules(analysis)
  if (rules.kind === 'unknown' || rules.commands.length === 0) return false
  const spec = parseSpecifier(specifier)
  return rules.commands.every(
    (rule) => rule.notAllowable === undefined && lineMatches(spec, rule.line, rule.command.openArgs),
  )
}

function mentions(specifier: string, source: string): boolean {
  const words = specifier
    .replace(/:\*$/, '')
    .split(/[\s*]+/)
    .filter((word) => word !== '')
  // A rule of only `*` has no words, and every spelling mentions all of none: it catches the line.
  return spellings(source).some((text) => words.every((word) => mentionsWord(text, word)))
}

const NUMERIC_ESCAPE = /\\+(?:x([0-9a-fA-F]{1,2})|([0-7]{1,3})|u([0-9a-fA-F]{1,4}))/g

/**
 * The text as written, with quotes and backslashes removed (`r""m`, `r\m`), and with every
 * numeric escape decoded wherever it stands (`$'\x72m'`, even inside another quoting level).
 * Decoding too much only makes a deny rule catch more.
 */
function spellings(source: string): string[] {
  const unquote = (text: string): string => text.replace(/["'\\]/g, '')
  const decoded = source.replace(NUMERIC_ESCAPE, (_, hex?: string, octal?: string, u?: string) =>
    String.fromCodePoint(
      hex !== undefined ? parseInt(hex, 16) : octal !== undefined ? parseInt(octal, 8) : parseInt(u ?? '0', 16),
    ),
  )
  return [source, unquote(source), unquote(decoded)]
}

function mentionsWord(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(^|[^A-Za-z0-9_.-])${escaped}($|[^A-Za-z0-9_.-])`).test(text)
}
