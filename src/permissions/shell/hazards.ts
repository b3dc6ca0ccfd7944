/**
 * Constructs that make bash (or a program) run code the syntax tree does not show: `eval`,
 * `source`, traps, prompt strings, variables that hold a command, array subscripts evaluated as
 * arithmetic. Each is a reason to call a command unknown, or a string to analyse as a script.
 */
import type { Assignment } from './shell.types.js'
import { subscriptNames } from './evaluation.js'
import type { Word } from './words.js'
import { isDynamic, literalWord } from './words.js'

/** Builtins that run code they receive as data. */
const EVALUATORS: Readonly<Record<string, string>> = {
  eval: 'eval runs its arguments as a new command line, which is not analysed',
  source: 'source runs the commands in a file, which is not analysed',
  '.': '. (source) runs the commands in a file, which is not analysed',
  alias: 'alias changes what later command words mean',
  trap: 'trap runs a command string later, which is not analysed',
  coproc: 'coproc is not analysed',
  let: 'let evaluates arithmetic, which can run commands through array subscripts',
  enable: 'enable can load builtins from a shared library',
  bind: 'bind can attach commands to keys',
  complete: 'complete can register commands to run',
  compgen: 'compgen -C/-F runs commands or functions',
  fc: 'fc re-runs commands from the history',
}

/** Variables whose value bash or a loader runs or loads as code: assigning one is unknown. */
const CODE_LOADING = new Set([
  'PS0',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'LD_PRELOAD',
  'LD_AUDIT',
  'DYLD_INSERT_LIBRARIES',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_EXEC_PATH',
])

/**
 * Variables that programs run as a shell command (git runs `$GIT_EDITOR file`, less runs
 * `$LESSOPEN`): their literal value is analysed as a script.
 */
export const COMMAND_VALUED: ReadonlySet<string> = new Set([
  'PAGER',
  'GIT_PAGER',
  'MANPAGER',
  'EDITOR',
  'VISUAL',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'SUDO_EDITOR',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'LESSOPEN',
  'LESSCLOSE',
  'BROWSER',
  'GIT_PROXY_COMMAND',
])

/**
 * How a builtin that takes variable names reads its words, where a subscript such as `a[$(cmd)]`
 * is evaluated: the option letters that take a value, those whose value is a name, whether `+x` is
 * an option too, and which operands are names. `test` and `[` name a variable after `-v` only.
 */
interface NameSyntax {
  readonly takesValue: string
  readonly valueIsName: string
  readonly plus?: true
  readonly operands: 'names' | 'none' | 'second'
}

const DECLARER: NameSyntax = { takesValue: '', valueIsName: '', plus: true, operands: 'names' }
const MAPFILE: NameSyntax = { takesValue: 'dnOsuCc', valueIsName: '', operands: 'names' }

const NAME_TAKERS: ReadonlyMap<string, NameSyntax> = new Map([
  ['read', { takesValue: 'adinNptu', valueIsName: 'a', operands: 'names' }],
  ['mapfile', MAPFILE],
  ['readarray', MAPFILE],
  ['printf', { takesValue: 'v', valueIsName: 'v', operands: 'none' }],
  ['wait', { takesValue: 'p', valueIsName: 'p', operands: 'none' }],
  ['unset', { takesValue: '', valueIsName: '', operands: 'names' }],
  ['getopts', { takesValue: '', valueIsName: '', operands: 'second' }],
  ['declare', DECLARER],
  ['typeset', DECLARER],
  ['local', DECLARER],
  ['export', DECLARER],
  ['readonly', DECLARER],
])

const DECLARERS = new Set(['declare', 'typeset', 'local', 'export', 'readonly'])

/** Why an assignment cannot be analysed, if it cannot. */
export function assignmentHazard(assignment: Assignment): string | undefined {
  const base = assignment.name.replace(/\[.*$/s, '')
  if (CODE_LOADING.has(base) || base.startsWith('GIT_CONFIG_') || base.startsWith('BASH_FUNC_') || base.includes('%')) {
    return `assigning ${base} makes bash or a program load or run its value as code`
  }
  if (/\[.*[$`]/s.test(assignment.name)) return `the subscript in ${assignment.name} is evaluated as arithmetic`
  return undefined
}

/**
 * A declarer parses a quoted or computed `name=(…)` again as a compound assignment, expanding
 * what is inside: `declare -a a='($(rm x))'` runs rm (written as an array, the grammar reads it).
 */
export function reparsedArrayHazard(declarer: string, written: string, value: string): string | undefined {
  if (!/^[^=]*=\(.*[$`]/s.test(value.replace(/["']/g, ''))) return undefined
  return `${declarer} parses ${written} again as an array, expanding what is inside`
}

/** Why a command (already peeled of wrappers) cannot be analysed, if it cannot. */
export function commandHazard(name: string, words: readonly Word[]): string | undefined {
  const evaluator = EVALUATORS[name]
  if (evaluator !== undefined) return evaluator
  const args = words.slice(1).map((word) => word.value)
  if (name === 'hash') {
    // -p makes a name run another program, and a word computed at run time could be that option
    const option = words.slice(1).find((w) => isDynamic(w) && !NOT_AN_OPTION.test(w.value))
    if (option !== undefined) return `hash takes an option computed at run time (${option.raw}), which could be -p`
    if (args.some((arg) => /^-[a-z]*p/.test(arg))) return 'hash -p makes a name run another program'
  }
  if ((name === 'mapfile' || name === 'readarray') && args.some((arg) => /^-[a-zA-Z]*C/.test(arg))) {
    return `${name} -C runs a callback command`
  }
  if (DECLARERS.has(name)) {
    if (args.some((arg) => /^[-+][a-zA-Z]*[in]/.test(arg))) {
      return `${name} -i/-n makes later assignments evaluate arithmetic or rename variables`
    }
    for (const word of words.slice(1)) {
      const again =
        word.raw !== word.value || isDynamic(word) ? reparsedArrayHazard(name, word.raw, word.value) : undefined
      if (again !== undefined) return again
    }
  }
  const names = nameWords(name, words)
  const subscripted = names.find((word) => /\[.*[$`]/s.test(word.value))
  if (subscripted !== undefined) return `${name} evaluates the subscript in ${subscripted.value} as arithmetic`
  const computed = names.find(isDynamic)
  if (computed !== undefined) {
    return `${name} takes the variable name ${computed.raw} computed at run time, whose subscript bash evaluates as arithmetic`
  }
  return undefined
}

/**
 * Names a builtin evaluates: the subscript of a name it takes (`read 'a[i]'`, `unset 'a[i]'`) is
 * arithmetic, so `i`'s value is evaluated in turn.
 */
export function namesEvaluatedBy(name: string, words: readonly Word[]): string[] {
  return nameWords(name, words).flatMap((word) =>
    /^[A-Za-z_][A-Za-z0-9_]*\[/.test(word.value) ? subscriptNames(word.value) : [],
  )
}

/** What read and mapfile assign when given no name. */
const DEFAULT_NAME: Readonly<Record<string, string>> = { read: 'REPLY', mapfile: 'MAPFILE', readarray: 'MAPFILE' }

/**
 * Names a builtin assigns (`read x`, `mapfile arr`, `printf -v x`, REPLY for a bare `read`), for
 * the arithmetic check.
 */
export function namesAssignedBy(name: string, words: readonly Word[]): string[] {
  if (name === 'unset' || name === 'test' || name === '[') return []
  const assigned = nameWords(name, words)
    .map((word) => /^([A-Za-z_][A-Za-z0-9_]*)/.exec(word.value)?.[1])
    .filter((found): found is string => found !== undefined)
  const fallback = DEFAULT_NAME[name]
  return assigned.length === 0 && fallback !== undefined ? [fallback] : assigned
}

/** A computed word that is no option: it begins with a literal character, or is a number bash sets. */
const NOT_AN_OPTION = /^(?:[A-Za-z0-9_./~%:=,]|\$[!$?#]$)/

/**
 * The words a builtin reads as variable names, its options read as bash reads a builtin's: a
 * cluster up to the letter that takes a value, that value attached or the next word, `--` or the
 * first operand ending them. A computed word where an option may be could be any option, so it and
 * every word after it may be names, unless it cannot begin with `-` or `+` (`"id $x"`, `$!`).
 */
function nameWords(name: string, words: readonly Word[]): Word[] {
  const args = words.slice(1)
  if (name === 'test' || name === '[') return args.filter((_, i) => args[i - 1]?.value === '-v')
  const syntax = NAME_TAKERS.get(name)
  if (syntax === undefined) return []
  const names: Word[] = []
  let at = 0
  for (; at < args.length; at++) {
    const word = args[at] ?? literalWord('')
    if (isDynamic(word)) {
      if (NOT_AN_OPTION.test(word.value)) break
      return [...names, ...args.slice(at)]
    }
    if (word.value === '--') {
      at++
      break
    }
    if (!(syntax.plus === true ? /^[-+]./ : /^-./).test(word.value)) break
    const letters = word.value.slice(1)
    const taking = [...letters].findIndex((letter) => syntax.takesValue.includes(letter))
    if (taking < 0) continue
    const attached = letters.slice(taking + 1)
    const value = attached === '' ? args[++at] : literalWord(attached)
    if (value !== undefined && syntax.valueIsName.includes(letters.charAt(taking))) names.push(value)
  }
  const operands = args.slice(at)
  if (syntax.operands === 'names') return [...names, ...operands]
  return syntax.operands === 'second' ? [...names, ...operands.slice(1, 2)] : names
}
