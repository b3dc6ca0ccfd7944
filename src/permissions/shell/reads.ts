/**
 * What a command line shows of the files it reads, for the Read deny rules (decision 90): the
 * words that may be paths, and whether its reads could reach a file that no word names. Pure: the
 * policy judges the words where they resolve.
 */
import { opensNoFile, readsFiles } from './read-only.table.js'
import type { SimpleCommand } from './shell.types.js'

export interface NamedReads {
  /**
   * Each literal word that may name a file: an argument as bash passes it, the value of
   * `--name=value` and of an attached short option (`-f.env`), the path of git's `rev:path`, the
   * target of an input redirection, the literal directory a glob starts in. A superset: most are
   * no path at all. Left out: the arguments of commands that open no file (`ls .env`, `echo .env`
   * show a name, not its contents).
   */
  readonly words: readonly string[]
  /** Why the command may read a file that no word names, if it may (a reader's glob, `grep -r`). */
  readonly unnamed: string | undefined
}

/** The expansions that make bash choose a file name at run time (a tilde is resolved by the policy). */
const COMPUTED = new Set(['parameter', 'command', 'arithmetic', 'glob', 'brace'])
/** The policy judges relative names from the working directory; these move it for what follows. */
const MOVES = new Set(['cd', 'pushd', 'popd'])

/**
 * The words and unnamed reads of every simple command. Only the read-only table's file readers
 * (cat, grep, rg …) are judged for unnamed reads: a program a rule allows reads what it wants, and
 * Bash is no file-level boundary for it (the sandbox is).
 */
export function namedReads(commands: readonly SimpleCommand[]): NamedReads {
  const words: string[] = []
  let unnamed: string | undefined
  for (const command of commands) {
    for (const [i, arg] of opensNoFile(command.name) ? [] : command.args.entries()) {
      const kinds = (command.argExpansions[i] ?? []).filter((kind) => kind !== 'tilde')
      if (kinds.length === 0) {
        words.push(...pathsIn(arg, command.name))
        continue
      }
      if (kinds.every((kind) => kind === 'glob' || kind === 'brace')) words.push(...globDirectory(arg))
      if (readsFiles(command.name) && kinds.some((kind) => COMPUTED.has(kind)))
        unnamed ??= `${command.name} ${arg} reads files named at run time`
    }
    for (const redirect of command.redirects) {
      if (redirect.op !== '<') continue
      if (/[$`*?[{]/.test(redirect.target)) unnamed ??= `the input ${redirect.target} is named at run time`
      else words.push(redirect.target)
    }
    if (command.openArgs && readsFiles(command.name))
      unnamed ??= `xargs gives ${command.name} the names of the files it reads at run time`
    if (MOVES.has(command.name)) unnamed ??= `${command.name} moves the directory the names after it are relative to`
    unnamed ??= treeReader(command)
  }
  return { words, unnamed }
}

/** The literal directory a glob starts in (`me` of `me/env*`), which a link may take elsewhere. */
function globDirectory(raw: string): string[] {
  const literal = raw.slice(0, Math.max(0, raw.search(/[*?[{]/)))
  const dir = literal.slice(0, literal.lastIndexOf('/'))
  return dir === '' || /['"\\]/.test(dir) ? [] : [dir]
}

/** The paths a literal argument may name. */
function pathsIn(arg: string, name: string): string[] {
  const found = [arg]
  const eq = arg.indexOf('=')
  // `--file=x`, and operands that are `key=value` too: dd's `if=.env` reads .env.
  if (eq > 0) found.push(arg.slice(eq + 1))
  else if (/^-[^-]./s.test(arg)) found.push(arg.slice(2))
  const colon = arg.indexOf(':')
  if (name === 'git' && colon >= 0) found.push(arg.slice(colon + 1))
  // `@file` is a file's contents to curl (`-d @.env`, `-F k=@.env`) and to many other programs.
  for (const path of [...found]) if (path.startsWith('@')) found.push(path.slice(1))
  return found.filter((path) => path !== '')
}

/** Searches that read every file below a directory, whatever its name. */
function treeReader(command: SimpleCommand): string | undefined {
  const { name, args } = command
  if (name === 'rg') return 'rg searches every file below a directory'
  if (name === 'git' && args.includes('grep')) return 'git grep searches every tracked file'
  const recursive = (letters: RegExp, long: RegExp) =>
    args.some((arg) => (arg.startsWith('--') ? long.test(arg) : letters.test(arg)))
  if (['grep', 'egrep', 'fgrep'].includes(name)) {
    const recurse = recursive(/^-[^-]*[rR]/, /^--(r|de|di|d=|d$)/) || args.includes('recurse')
    if (recurse) return `${name} -r reads every file below a directory`
  }
  if (name === 'diff' && recursive(/^-[^-]*r/, /^--r/)) return `diff -r compares every file below two directories`
  return undefined
}
