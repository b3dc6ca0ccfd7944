/**
 * The read-only verdict: a command line is read-only when every simple command it runs is on the
 * table below *with the options it uses*, nothing is written through a redirection, and nothing
 * is assigned. The table follows the shape of OpenAI Codex's `is_safe_command`: one row per
 * command, each with the options that make it write a file or run a program.
 */
import { analyzeShell } from './analyze.js'
import { gitVerdict } from './git-read-only.js'
import { findForbidden, globMayNameEnviron, operands, pathMayEnterProc } from './read-only.checks.js'
import type { Forbidden, OptionStyle } from './read-only.checks.js'
import { redirectWrites } from './redirects.js'
import { isSystemProgram } from './scope.js'
import type { BashParser, ShellAnalysis, SimpleCommand } from './shell.types.js'

/** The answer: read-only, or why not (a sentence the model can act on). */
export interface ReadOnlyVerdict {
  readonly readOnly: boolean
  readonly reason?: string
}

/** One row of the table. */
export interface ReadOnlyRow {
  readonly name: string
  /** Never read-only, for this reason (pagers that run commands, environment dumps). */
  readonly never?: string
  /** Reads the files its operands name: a name computed at run time could be /proc/self/environ. */
  readonly readsFiles?: boolean
  /** Its options are checked, so every argument must be literal: a computed word could be an option. */
  readonly checksOptions?: boolean
  /** Why this use is not read-only, if it is not. */
  readonly check?: (args: readonly string[]) => string | undefined
}

const forbid =
  (rules: readonly Forbidden[], style: OptionStyle = { abbreviations: true }) =>
  (args: readonly string[]): string | undefined =>
    findForbidden(args, rules, style)

const reader = (name: string): ReadOnlyRow => ({ name, readsFiles: true })
const plain = (name: string): ReadOnlyRow => ({ name })
const never = (name: string, reason: string): ReadOnlyRow => ({ name, never: reason })

const FIND_ACTIONS = ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']
const DATE_WITH_ARG = { short: 'dfr', long: ['date', 'file', 'reference', 'rfc-3339', 'resolution'] }

/** The table. A command that is not here is not read-only. */
export const READ_ONLY_TABLE: readonly ReadOnlyRow[] = [
  ...['cat', 'head', 'tail', 'wc', 'nl', 'od', 'strings', 'cut', 'tr', 'diff', 'cmp', 'comm', 'column'].map(reader),
  ...['grep', 'egrep', 'fgrep', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'shasum', 'b2sum', 'cksum'].map(reader),
  ...['ls', 'pwd', 'echo', 'which', 'type', 'stat', 'du', 'df', 'basename', 'dirname', 'realpath'].map(plain),
  ...['readlink', 'whoami', 'uname', 'id', 'true', 'false', 'test', '[', ':'].map(plain),
  {
    name: 'rg',
    readsFiles: true,
    checksOptions: true,
    check: forbid(
      [
        { option: '--pre', reason: 'rg --pre runs a program for each file it searches' },
        { option: '--pre-glob', reason: 'rg --pre-glob selects files for a --pre program' },
        { option: '--hostname-bin', reason: 'rg --hostname-bin runs a program to find the host name' },
        { option: '--search-zip', reason: 'rg --search-zip runs decompression programs' },
        { option: '-z', reason: 'rg -z runs decompression programs' },
      ],
      {},
    ),
  },
  {
    name: 'find',
    checksOptions: true,
    check: forbid(
      FIND_ACTIONS.map((option) => ({ option, reason: findReason(option) })),
      { singleDashWords: true },
    ),
  },
  { name: 'printf', check: forbid([{ option: '-v', reason: 'printf -v assigns a shell variable' }]) },
  {
    name: 'file',
    readsFiles: true,
    checksOptions: true,
    check: forbid([
      { option: '-C', reason: 'file -C writes a compiled magic file' },
      { option: '--compile', reason: 'file --compile writes a compiled magic file' },
    ]),
  },
  {
    name: 'tree',
    checksOptions: true,
    check: forbid(
      [
        { option: '-o', reason: 'tree -o writes its output to a file' },
        { option: '-R', reason: 'tree -R writes an 00Tree.html file into every directory' },
      ],
      {},
    ),
  },
  {
    name: 'sort',
    readsFiles: true,
    checksOptions: true,
    check: forbid(
      [
        { option: '-o', reason: 'sort -o writes its output to a file' },
        { option: '--output', reason: 'sort --output writes its output to a file' },
        { option: '--compress-program', reason: 'sort --compress-program runs a program' },
      ],
      { abbreviations: true, shortWithArg: 'kStT' },
    ),
  },
  {
    name: 'uniq',
    readsFiles: true,
    checksOptions: true,
    check: (args) =>
      operands(args, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars'] }).length > 1
        ? 'uniq writes its second operand (an output file)'
        : undefined,
  },
  {
    name: 'date',
    checksOptions: true,
    check: (args) =>
      forbid(
        [
          { option: '-s', reason: 'date -s sets the system clock' },
          { option: '--set', reason: 'date --set sets the system clock' },
        ],
        { abbreviations: true, shortWithArg: 'dfrI' },
      )(args) ??
      (operands(args, DATE_WITH_ARG).some((operand) => !operand.startsWith('+'))
        ? 'date with an operand other than +FORMAT sets the system clock'
        : undefined),
  },
  { name: 'jq', readsFiles: true, checksOptions: true, check: jqVerdict },
  { name: 'xxd', readsFiles: true, checksOptions: true, check: xxdVerdict },
  { name: 'hostname', checksOptions: true, check: hostnameVerdict },
  { name: 'git', checksOptions: true, check: gitVerdict },
  {
    name: 'command',
    checksOptions: true,
    check: (args) =>
      args.length === 0 || /^-p?[vV]/.test(args[0] ?? '') ? undefined : 'command runs a command that is not analysed',
  },
  {
    name: 'cd',
    checksOptions: true,
    check: (args) => {
      const into = args.find(pathMayEnterProc)
      return into === undefined ? undefined : `cd ${into} could enter /proc, which exposes process environments`
    },
  },
  never('less', 'less is a pager that can run shell commands (!cmd) and open an editor'),
  never('more', 'more is a pager that can run shell commands (!cmd) and open an editor'),
  never('most', 'most is a pager that can run shell commands'),
  never('env', 'env prints the whole environment, secrets included'),
  never('printenv', 'printenv prints environment variables, secrets included'),
  never('set', 'set prints every shell variable, secrets included'),
  never('declare', 'declare -p prints every shell variable; declare also assigns'),
  never('typeset', 'typeset -p prints every shell variable; typeset also assigns'),
  never('export', 'export -p prints the environment; export also assigns'),
  never('readonly', 'readonly assigns variables'),
  never('local', 'local assigns variables'),
]

function findReason(option: string): string {
  if (option === '-delete') return 'find -delete deletes files'
  if (option.startsWith('-f')) return `find ${option} writes to a file`
  return `find ${option} runs a program for each file`
}

/**
 * jq's lexer reads `$` and a name as two tokens, so blanks or a comment may part them (`$ ENV`,
 * `$#…` newline `ENV`); jq 1.6 finds a short option's letter anywhere in a cluster (`-nrf`).
 */
function jqVerdict(args: readonly string[]): string | undefined {
  if (args.some((arg) => /\$(\s|#[^\n]*\n)*ENV\b|(^|[^A-Za-z0-9_$])env\b/.test(arg))) {
    return 'jq env / $ENV prints the environment'
  }
  if (args.some((arg) => /^-[^-]*f/.test(arg) || arg.startsWith('--from-file'))) {
    return 'jq -f reads a program from a file, which is not checked'
  }
  if (args.some((arg) => /^-[^-]*L|^--library-path|(^|[^A-Za-z0-9_$.])(import|include)\b/.test(arg))) {
    return 'jq import/include/-L loads modules from files, which are not checked'
  }
  return undefined
}

const XXD_WITH_ARG = new Set(['-c', '-cols', '-g', '-groupsize', '-l', '-len', '-s', '-seek', '-o', '-n', '-name'])

/** xxd reads options up to its first operand (`--cols` is `-cols`); every word after it is an operand. */
function xxdVerdict(args: readonly string[]): string | undefined {
  let at = 0
  for (; at < args.length; at++) {
    const arg = args[at] ?? ''
    if (arg === '--') {
      at++
      break
    }
    if (!arg.startsWith('-') || arg === '-') break
    if (XXD_WITH_ARG.has(arg.startsWith('--') ? arg.slice(1) : arg)) at++
  }
  return args.length - at > 1 ? 'xxd writes its second operand (an output file)' : undefined
}

function hostnameVerdict(args: readonly string[]): string | undefined {
  const setter = args.find((arg) => /^(-[a-zA-Z]*[Fb]|--file|--boot)/.test(arg))
  if (setter !== undefined) return `hostname ${setter} sets the host name`
  return operands(args).length > 0 ? 'hostname NAME sets the host name' : undefined
}

const TABLE = new Map(READ_ONLY_TABLE.map((row) => [row.name, row]))

/** Whether the table knows the command as one that reads the files its operands name. */
export function readsFiles(name: string): boolean {
  return TABLE.get(name)?.readsFiles === true
}

/** Whether the table knows the command as one that opens no file at all (ls, stat, echo: names only). */
export function opensNoFile(name: string): boolean {
  const row = TABLE.get(name)
  return row !== undefined && row.readsFiles !== true && row.check === undefined && row.never === undefined
}

/**
 * Whether a command line only reads. Unknown analyses are never read-only.
 *
 * @example
 * readOnlyVerdict('git log --oneline | head', parser) // { readOnly: true }
 * readOnlyVerdict('rg --pre sh x', parser)
 * // { readOnly: false, reason: 'rg --pre runs a program for each file it searches' }
 */
export function readOnlyVerdict(command: string, parser: BashParser | undefined): ReadOnlyVerdict {
  return readOnlyVerdictOf(analyzeShell(command, parser))
}

/** The verdict for an analysis already made (one analysis feeds rules, read-only and concurrency). */
export function readOnlyVerdictOf(analysis: ShellAnalysis): ReadOnlyVerdict {
  if (analysis.kind === 'unknown') return { readOnly: false, reason: analysis.reason }
  for (const command of analysis.commands) {
    const reason = commandVerdict(command)
    if (reason !== undefined) return { readOnly: false, reason }
  }
  return { readOnly: true }
}

/** Why one simple command is not read-only, or undefined. */
export function commandVerdict(command: SimpleCommand): string | undefined {
  return shapeVerdict(command) ?? rowVerdict(command)
}

function shapeVerdict(command: SimpleCommand): string | undefined {
  const label = command.name === '' ? command.text : command.name
  if (command.assignments.length > 0) {
    const names = command.assignments.map((assignment) => assignment.name).join(', ')
    return `${label} sets ${names}: an assignment can change what a program does`
  }
  const write = command.redirects.find(redirectWrites)
  if (write !== undefined) return `${label} writes ${write.target} through ${write.op}`
  const environ = [...command.args, ...command.redirects.map((redirect) => redirect.target)].find((word) =>
    word.includes('environ'),
  )
  if (environ !== undefined) return `${label} ${environ} would read a process environment`
  const input = command.redirects.find((redirect) => redirect.op === '<' && inputMayNameEnviron(redirect.target))
  if (input !== undefined) return `${label} reads ${input.target}, which could be a process environment`
  if (!isSystemProgram(command.writtenName)) {
    return `${command.writtenName} is not a system program: only a bare name or /bin, /usr/bin … is trusted`
  }
  const elevated = command.via.find((via) => via === 'sudo' || via === 'su -c')
  if (elevated !== undefined) return `${elevated} runs ${label} as another user`
  return undefined
}

/** An input redirection's target is expanded like a word: a computed or globbed one could be environ. */
function inputMayNameEnviron(target: string): boolean {
  if (/[$`]/.test(target)) return true
  return /[*?[{]/.test(target) && globMayNameEnviron(target)
}

function rowVerdict(command: SimpleCommand): string | undefined {
  if (command.name === '') return undefined
  const row = TABLE.get(command.name)
  if (row === undefined) return `${command.name} is not on the read-only list`
  if (row.never !== undefined) return row.never
  if (command.openArgs && (row.checksOptions === true || row.readsFiles === true)) {
    return `xargs supplies arguments to ${command.name} at run time, so they cannot be checked`
  }
  return dynamicVerdict(command, row) ?? row.check?.(command.args)
}

/**
 * A glob whose first character is literal and not `-` cannot expand into an option, and neither
 * can a process substitution (it becomes `/dev/fd/N`).
 */
function cannotBeOption(raw: string, kinds: readonly string[]): boolean {
  if (kinds.every((kind) => kind === 'process')) return true
  return kinds.every((kind) => kind === 'glob') && /^[A-Za-z0-9_./~]/.test(raw)
}

function dynamicVerdict(command: SimpleCommand, row: ReadOnlyRow): string | undefined {
  for (const [i, raw] of command.args.entries()) {
    const kinds = (command.argExpansions[i] ?? []).filter((kind) => kind !== 'tilde')
    if (kinds.length === 0) continue
    if (row.checksOptions === true && !cannotBeOption(raw, kinds)) {
      return `${command.name}'s options are checked, so its arguments must be literal (${raw} is computed at run time)`
    }
    if (row.readsFiles !== true) continue
    if (kinds.some((kind) => kind === 'parameter' || kind === 'command' || kind === 'arithmetic')) {
      return `${command.name} reads a file named at run time (${raw}), which could be a process environment`
    }
    if (kinds.some((kind) => kind === 'glob' || kind === 'brace') && globMayNameEnviron(raw))
      return `${command.name} ${raw} may read a process environment (/proc/*/environ)`
  }
  return undefined
}
