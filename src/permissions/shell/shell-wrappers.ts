/**
 * Shells given a script as a string (`bash -c '…'`, `su -c '…'`): the string is analysed as a
 * script in turn. A shell reading its commands from standard input or a file is not seen through.
 */
import { SELF, unknown } from './peeled.js'
import type { Peeled, Peeler } from './peeled.js'
import { isDynamic, literalWord } from './words.js'
import type { Word } from './words.js'

/** bash's long options, which it also takes with one dash (`-rcfile F`, `-login`). */
const SHELL_LONG = new Set([
  'login',
  'noediting',
  'noprofile',
  'norc',
  'posix',
  'pretty-print',
  'debugger',
  'dump-strings',
  'dump-po-strings',
  'restricted',
  'verbose',
  'wordexp',
])
/** Long options that name a file of commands bash runs first (an interactive shell does). */
const SHELL_RC = new Set(['rcfile', 'init-file'])

/**
 * A reader for the shell `name`, whose scripts are in `dialect`: `bash [options] -c STRING
 * [name [args]]`. A script file runs as itself; commands from standard input are unseen.
 */
export const shell =
  (name: string, dialect: 'bash' | 'zsh'): Peeler =>
  (words) => {
    let commandMode = false
    for (let i = 1; i < words.length; i++) {
      const word = words[i]
      if (word === undefined) break
      if (isDynamic(word)) return unknown(`an argument of ${name} is computed at run time (${word.raw})`)
      const text = word.value
      if (text === '--help' || text === '--version') return SELF
      if (text === '--' || text === '-') return afterShellOptions(name, dialect, commandMode, words[i + 1])
      const long = text.replace(/^--?/, '')
      if (SHELL_RC.has(long)) return unknown(`${name} ${text} runs a file of commands, which is not analysed`)
      // A lone + is an empty option; a long option is not a cluster of short ones.
      if (text === '+' || (text.startsWith('-') && SHELL_LONG.has(long))) continue
      if (/^[-+][A-Za-z]+$/.test(text)) {
        if (text.slice(1).includes('s')) return unknown(`${name} -s reads its commands from standard input`)
        // `+c` turns command mode on as `-c` does.
        commandMode ||= text.includes('c')
        i += (text.match(/[oO]/g) ?? []).length
      } else if (!text.startsWith('--')) return afterShellOptions(name, dialect, commandMode, word)
    }
    return afterShellOptions(name, dialect, commandMode, undefined)
  }

function afterShellOptions(
  name: string,
  dialect: 'bash' | 'zsh',
  commandMode: boolean,
  operand: Word | undefined,
): Peeled {
  if (!commandMode) {
    return operand === undefined
      ? unknown(`${name} without -c reads its commands from standard input, which is not analysed`)
      : SELF
  }
  if (operand === undefined) return unknown(`${name} -c has no command string`)
  if (isDynamic(operand)) return unknown(`the command string of ${name} -c is computed at run time (${operand.raw})`)
  return { kind: 'script', via: `${name} -c`, source: operand.value, dialect }
}

const SU_WITHOUT_COMMAND = 'su without -c starts a shell, which is not analysed'

/** `su [options] [user] -c COMMAND`: the command is a script; without -c su starts a shell. */
export const su: Peeler = (words) => {
  // su runs the last -c it is given; an option's value may look like one (`-w -c`): fail closed.
  const given = words.flatMap((word, i) => (i > 0 && /^(-c|--command)$|^--command=/.test(word.value) ? [i] : []))
  if (given.length > 1) return unknown('su is given more than one command (-c), which is not analysed')
  const at = given[0]
  if (at === undefined) return unknown(SU_WITHOUT_COMMAND)
  const flag = words[at]?.value ?? ''
  const script = flag.startsWith('--command=') ? literalWord(flag.slice('--command='.length)) : words[at + 1]
  if (script === undefined) return unknown(SU_WITHOUT_COMMAND)
  if (isDynamic(script)) return unknown(`the command su runs is computed at run time (${script.raw})`)
  return { kind: 'script', via: 'su -c', source: script.value, dialect: 'bash' }
}

/** zsh expands glob qualifiers (`*(e:…:)`) and `=cmd`, which run code the bash grammar cannot see. */
export function zshHazard(source: string): string | undefined {
  if (/[^\s$<>(|&;`'"]\(|(^|[\s;|&(])=\S/.test(source)) {
    return 'zsh glob qualifiers and =command expansion are not analysed'
  }
  return undefined
}
