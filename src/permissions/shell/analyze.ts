/**
 * `analyzeShell`: the simple commands a bash command line executes, from a real bash grammar.
 * What cannot be analysed fully is `unknown`, never a guess.
 */
import type { Scope, Shared } from './scope.js'
import type { BashParser, ShellAnalysis, ShellNode, ShellTree } from './shell.types.js'
import { setByBash } from './evaluation.js'
import { fail, ShellUnknown } from './unknown.js'
import { snippet } from './nodes.js'
import { visit } from './walk.js'

/** Longer commands are unknown rather than parsed (a permission prompt is the right answer). */
export const MAX_SOURCE_LENGTH = 100_000

/**
 * Analyses a bash command line into every simple command it can execute: through separators,
 * pipes, subshells, groups, control flow, functions, substitutions, here-documents and wrappers
 * such as `env`, `timeout`, `xargs` and `bash -c`.
 *
 * @example
 * analyzeShell('git status && bash -c "rm -rf x"', parser)
 * // { kind: 'known', commands: [{ name: 'git', args: ['status'] … }, { name: 'rm', via: ['bash -c'] … }] }
 * analyzeShell('eval "$X"', parser) // { kind: 'unknown', reason: 'eval runs its arguments …' }
 */
export function analyzeShell(command: string, parser: BashParser | undefined): ShellAnalysis {
  if (parser === undefined) return unknown('the shell parser is not loaded', command)
  if (command.trim() === '') return unknown('the command is empty', command)
  if (command.length > MAX_SOURCE_LENGTH)
    return unknown(`commands longer than ${MAX_SOURCE_LENGTH} characters are not analysed`, command)
  const shared: Shared = { parser, commands: [], assigned: new Set(), evaluated: new Set(), analyzeSource, visit }
  const root: Scope = { shared, depth: 0, via: [], wrapperLines: [], assignments: [], redirects: [] }
  try {
    const tree = analyzeSource(command, root)
    checkEvaluated(shared)
    // `[[ -f x ]]` runs no program and is known; a line of comments is not a command at all.
    if (!tree.root.children.some((child) => child.named && child.type !== 'comment')) fail('the command runs nothing')
    return { kind: 'known', commands: shared.commands, source: command }
  } catch (error) {
    if (error instanceof ShellUnknown) return unknown(error.message, command)
    throw error
  }
}

function unknown(reason: string, source: string): ShellAnalysis {
  return { kind: 'unknown', reason, source }
}

function analyzeSource(source: string, scope: Scope): ShellTree {
  const tree = scope.shared.parser.parse(source)
  if (tree === undefined) fail('the shell parser gave up on this command')
  if (tree.hasError) fail(syntaxError(tree.root))
  const glued = gluedContinuation(source, tree.root)
  if (glued !== undefined) {
    fail(`a backslash-newline joins ${snippet(glued)} into one word for bash, where the grammar reads two`)
  }
  visit(tree.root, scope)
  return tree
}

/** No character (the start or end of the source), or a blank one. */
const blank = (char: string): boolean => char === '' || /\s/.test(char)

/** Nodes whose text the word reader resolves itself, backslash-newlines included (or that bash never joins). */
const QUOTED = new Set(['string', 'raw_string', 'ansi_c_string', 'translated_string', 'heredoc_body', 'comment'])

/**
 * A backslash-newline between two non-blank characters outside quotes: bash removes the pair and
 * joins what is on either side into one word (`r\<newline>m x` runs rm, `find . -de\<newline>lete`
 * deletes), while the grammar ends the word at the backslash. Between a blank and anything it only
 * separates words, as the grammar reads it.
 */
function gluedContinuation(source: string, root: ShellNode): string | undefined {
  let quoted: Array<[number, number]> | undefined
  const collect = (node: ShellNode, into: Array<[number, number]>): Array<[number, number]> => {
    if (QUOTED.has(node.type)) into.push([node.start, node.end])
    else for (const child of node.children) collect(child, into)
    return into
  }
  for (const match of source.matchAll(/\\+\n/g)) {
    const run = match[0].length - 1
    const at = match.index + run - 1
    if (run % 2 === 0 || blank(source.charAt(match.index - 1)) || blank(source.charAt(at + 2))) continue
    quoted ??= collect(root, [])
    if (quoted.some(([start, end]) => at >= start && at < end)) continue
    return source.slice(Math.max(0, match.index - 10), at + 12)
  }
  return undefined
}

/** Variables bash itself keeps numeric, whatever the environment held: their values name nothing. */
const NUMERIC_BY_BASH = new Set([
  'LINENO',
  'RANDOM',
  'SRANDOM',
  'SECONDS',
  'EPOCHSECONDS',
  'BASHPID',
  'PPID',
  'UID',
  'EUID',
])

/**
 * Bash evaluates the value of a variable used in arithmetic (and `${!x}`) as code:
 * `x='a[$(rm -rf ~)]'; echo $((x))` runs rm. A variable the command itself sets (other than by
 * arithmetic), or one bash sets from the command's own text (`$_`, `$1`, `REPLY`), and then
 * evaluates is unknown. A variable from the environment is the kernel's own, but its value may
 * name one the command sets (OSTYPE is linux-gnu: `linux='a[$(rm x)]'; echo $((OSTYPE))`), so a
 * command that sets any variable and evaluates one it does not set is unknown too, unless bash
 * keeps that one numeric.
 */
function checkEvaluated(shared: Shared): void {
  for (const name of shared.evaluated) {
    if (setByBash(name)) {
      fail(
        `bash evaluates the value of ${name} as arithmetic or a name, and bash sets ${name} from text the command controls`,
      )
    }
    if (shared.assigned.has(name)) {
      fail(`bash evaluates the value of ${name} as arithmetic or a name, and the command sets ${name} itself`)
    }
  }
  const name = [...shared.evaluated].find((evaluated) => !NUMERIC_BY_BASH.has(evaluated))
  if (name !== undefined && shared.assigned.size > 0) {
    fail(`bash evaluates the value of ${name} as arithmetic or a name, and it may name a variable the command sets`)
  }
}

function syntaxError(root: ShellNode): string {
  const bad = firstBroken(root)
  const near = bad === undefined ? '' : ` near ${snippet(bad.text || bad.type)}`
  const brace = /\{[^}]*,/.test(bad?.text ?? '') ? ' (brace expansion where a command is expected is not analysed)' : ''
  return `the command does not parse as bash${near}${brace}`
}

function firstBroken(node: ShellNode): ShellNode | undefined {
  if (node.type === 'ERROR' || node.missing) return node
  for (const child of node.children) {
    const found = firstBroken(child)
    if (found !== undefined) return found
  }
  return undefined
}
