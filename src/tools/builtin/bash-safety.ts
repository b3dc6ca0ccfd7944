/**
 * Whether a shell command only reads. shell-quote is a tokenizer, not a shell: `$(…)` comes back
 * as separate tokens, backticks are not recognised and unset variables become "", so the raw
 * string is checked first for anything that expands or substitutes. Fail-closed: anything not
 * understood is "not read-only".
 */
import { parse, type ParseEntry } from 'shell-quote'

export interface ReadOnlyVerdict {
  readOnly: boolean
  /** Why not, when not. */
  reason?: string
}

/** Commands that only read, whatever their arguments (beyond the checks below). */
const READ_ONLY = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'find',
  'pwd',
  'echo',
  'printf',
  'which',
  'file',
  'stat',
  'du',
  'df',
  'tree',
  'sort',
  'uniq',
  'cut',
  'tr',
  'diff',
  'cmp',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'date',
  'whoami',
  'uname',
  'true',
  'false',
  'test',
  '[',
  'jq',
  'nl',
  'od',
  'xxd',
  'strings',
  'md5sum',
  'sha256sum',
  'shasum',
  'comm',
  'column',
  'less',
  'more',
  'id',
  'hostname',
])
const GIT_READ_ONLY = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'blame',
  'grep',
  'shortlog',
  'describe',
  'cat-file',
  'ls-tree',
])
const FIND_WRITES = new Set([
  '-exec',
  '-execdir',
  '-delete',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
  '-ok',
  '-okdir',
])
const SEPARATORS = new Set(['&&', '||', ';', '|', ';;', '\n'])
/** Raw text that makes the shell expand or substitute something a tokenizer cannot see. */
const EXPANSION = /`|\$\(|\$\{|\$[A-Za-z_0-9@*#?$!-]|<\(|>\(/

export function readOnlyVerdict(command: string): ReadOnlyVerdict {
  if (command.trim() === '') return { readOnly: false, reason: 'empty command' }
  if (EXPANSION.test(command))
    return { readOnly: false, reason: 'command or process substitution, or variable expansion' }
  if (!quotesBalanced(command)) return { readOnly: false, reason: 'an unterminated quote' }
  let tokens: ParseEntry[]
  try {
    tokens = parse(command)
  } catch {
    return { readOnly: false, reason: 'the command does not parse' }
  }
  const commands: string[][] = [[]]
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as ParseEntry
    if (typeof token === 'string') {
      commands.at(-1)?.push(token)
      continue
    }
    if ('comment' in token) continue
    if ('pattern' in token) {
      commands.at(-1)?.push(token.pattern)
      continue
    }
    const op = token.op as string
    if (SEPARATORS.has(op)) {
      commands.push([])
      continue
    }
    if (op === '<') continue
    // Redirections: only to /dev/null, or fd duplication such as 2>&1.
    if (op === '>' || op === '>>' || op === '>&') {
      const target = tokens[i + 1]
      if (target === '/dev/null' || (op === '>&' && typeof target === 'string' && /^\d$/.test(target))) {
        i++
        continue
      }
      return { readOnly: false, reason: 'output is redirected to a file' }
    }
    return { readOnly: false, reason: `shell operator ${op}` }
  }
  for (const words of commands) {
    const verdict = simpleCommand(words)
    if (!verdict.readOnly) return verdict
  }
  return { readOnly: true }
}

/** shell-quote accepts an unterminated quote silently; bash would not run the command as written. */
function quotesBalanced(command: string): boolean {
  let quote: string | undefined
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]
    if (quote === undefined) {
      if (ch === '\\') i++
      else if (ch === '"' || ch === "'") quote = ch
    } else if (ch === quote) quote = undefined
    else if (ch === '\\' && quote === '"') i++
  }
  return quote === undefined
}

function simpleCommand(words: readonly string[]): ReadOnlyVerdict {
  const [name, ...args] = words
  if (name === undefined) return { readOnly: true }
  if (/^[A-Za-z_][A-Za-z_0-9]*=/.test(name)) return { readOnly: false, reason: 'environment assignment' }
  if (name === 'git') {
    const sub = args.find((a) => !a.startsWith('-'))
    return sub !== undefined && GIT_READ_ONLY.has(sub)
      ? { readOnly: true }
      : { readOnly: false, reason: `git ${sub ?? ''} may write` }
  }
  if (!READ_ONLY.has(name)) return { readOnly: false, reason: `${name} is not on the read-only list` }
  if (name === 'find' && args.some((a) => FIND_WRITES.has(a)))
    return { readOnly: false, reason: 'find with an action that runs or writes' }
  if (name === 'sort' && args.some((a) => a === '-o' || a.startsWith('--output') || /^-[a-zA-Z]*o/.test(a)))
    return { readOnly: false, reason: 'sort -o writes a file' }
  if (name === 'uniq' && args.filter((a) => !a.startsWith('-')).length > 1)
    return { readOnly: false, reason: 'uniq with an output file' }
  return { readOnly: true }
}
