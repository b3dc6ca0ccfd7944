/**
 * Wrappers: programs that run another program (`env rm`, `timeout 5 rm`, `bash -c 'rm x'`).
 * The analysis sees through them so that a rule about `rm` is about every `rm` that runs.
 * A wrapper whose options cannot be read is unknown: guessing where the command starts is how
 * `nice -n 5 rm` would hide an `rm`.
 */
import type { OptionSpec } from './options.js'
import { afterOptions, has, SELF, unknown, wrapped } from './peeled.js'
import type { Peeled, Peeler } from './peeled.js'
import { git } from './git-config.js'
import { shell, su } from './shell-wrappers.js'
import { isDynamic, literalWord } from './words.js'
import type { Word, WordAssignment } from './words.js'

/**
 * Leading `NAME=value` words (env, sudo) and the words after them. env takes any word with an
 * `=` as an assignment, names such as `BASH_FUNC_ls%%` included (the hazard check refuses those).
 */
function splitAssignments(words: readonly Word[]): { assignments: WordAssignment[]; rest: readonly Word[] } {
  const assignments: WordAssignment[] = []
  let i = 0
  for (; i < words.length; i++) {
    const word = words[i]
    const match = word === undefined ? null : /^([^=]+)=/s.exec(word.value)
    if (word === undefined || match === null) break
    const dynamic = isDynamic(word)
    const value = dynamic ? word.raw.slice(word.raw.indexOf('=') + 1) : word.value.slice(match[0].length)
    assignments.push({ name: match[1] ?? '', value, dynamic })
  }
  return { assignments, rest: words.slice(i) }
}

/**
 * A wrapper that reads its own options before the command and none after it (GNU getopt with
 * `+`): `nohup sh -c '…' --help` runs sh, whose --help it is. `selfish` options (--help, -V …)
 * make the wrapper print and run nothing; an option it does not have is unknown.
 */
const leading =
  (via: string, spec: OptionSpec, ...selfish: string[]): Peeler =>
  (words) =>
    afterOptions(words, spec, via, (options, rest) => (has(options, ...selfish) ? SELF : wrapped(via, rest)))

const STANDARD: OptionSpec = { long: ['help', 'version'] }

const ENV: OptionSpec = {
  flags: 'i0v',
  withArg: 'uCS',
  long: ['ignore-environment', 'null', 'debug', 'list-signal-handling'],
  longArg: ['unset', 'chdir', 'split-string'],
  longOptional: ['default-signal', 'ignore-signal', 'block-signal'],
}

const env: Peeler = (words) => {
  // A lone `-` means -i; rewriting it lets the generic scan read it.
  const dashed = words.map((word, i) => (i > 0 && word.value === '-' && !isDynamic(word) ? literalWord('-i') : word))
  return afterOptions(dashed, ENV, 'env', (options, rest) => {
    if (has(options, 'S', 'split-string'))
      return unknown('env -S splits a string into a command line, which is not analysed')
    const split = splitAssignments(rest)
    return split.rest.length === 0 ? SELF : wrapped('env', split.rest, { assignments: split.assignments })
  })
}

const command = leading('command', { flags: 'pvV' }, 'v', 'V')

const exec: Peeler = (words) =>
  afterOptions(words, { flags: 'cl', withArg: 'a' }, 'exec', (_options, rest) =>
    rest.length === 0
      ? unknown('exec without a command changes the shell itself (its descriptors)')
      : wrapped('exec', rest),
  )

const timeout: Peeler = (words) => {
  const spec: OptionSpec = {
    flags: 'v',
    withArg: 'sk',
    long: ['preserve-status', 'foreground', 'verbose', 'help', 'version'],
    longArg: ['signal', 'kill-after'],
  }
  return afterOptions(words, spec, 'timeout', (options, rest) => {
    // The duration is the first operand, which the scan has already found literal.
    return has(options, 'help', 'version') ? SELF : wrapped('timeout', rest.slice(1))
  })
}

const niceOptions = leading('nice', { withArg: 'n', longArg: ['adjustment'], ...STANDARD }, 'help', 'version')

/** `nice -5 cmd` is an old form of `nice -n 5 cmd`. */
const nice: Peeler = (words) => {
  const first = words[1]
  if (first !== undefined && !isDynamic(first) && /^-\d+$/.test(first.value)) return wrapped('nice', words.slice(2))
  return niceOptions(words)
}

// ionice -p/-P/-u sets the class of running processes and runs nothing.
const ionice = leading(
  'ionice',
  {
    flags: 't',
    withArg: 'cnpPu',
    long: ['ignore', 'help', 'version'],
    longArg: ['class', 'classdata', 'pid', 'pgid', 'uid'],
  },
  ...['p', 'P', 'u', 'pid', 'pgid', 'uid', 'help', 'version'],
)

const stdbuf = leading(
  'stdbuf',
  { withArg: 'ioe', longArg: ['input', 'output', 'error'], ...STANDARD },
  'help',
  'version',
)

const XARGS: OptionSpec = {
  flags: '0rtpxo',
  withArg: 'aEILnPsd',
  long: ['null', 'no-run-if-empty', 'verbose', 'interactive', 'exit', 'open-tty', 'show-limits', 'help', 'version'],
  longArg: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
  longOptional: ['eof', 'replace', 'max-lines'],
}

/** `-e[EOF]`, `-i[R]` and `-l[N]` take an argument only when it is attached. */
function xargsWords(words: readonly Word[]): readonly Word[] {
  return words.map((word, i) => {
    const match = i > 0 && !isDynamic(word) ? /^-([eil])(.*)$/.exec(word.value) : null
    if (match === null) return word
    const long = { e: '--eof', i: '--replace', l: '--max-lines' }[match[1] as 'e' | 'i' | 'l']
    return literalWord(match[2] === '' ? long : `${long}=${match[2] ?? ''}`)
  })
}

const xargs: Peeler = (words) =>
  afterOptions(xargsWords(words), XARGS, 'xargs', (options, rest) => {
    if (has(options, 'help', 'version', 'show-limits')) return SELF
    return wrapped('xargs', rest.length === 0 ? [literalWord('echo')] : rest, { openArgs: true })
  })

const SUDO: OptionSpec = {
  flags: 'AbEHknPS',
  withArg: 'ugCDhprtTUR',
  long: ['askpass', 'background', 'set-home', 'reset-timestamp', 'non-interactive', 'preserve-groups', 'stdin'],
  longArg: [
    'user',
    'group',
    'close-from',
    'chdir',
    'host',
    'prompt',
    'role',
    'type',
    'command-timeout',
    'other-user',
    'chroot',
  ],
  longOptional: ['preserve-env'],
}

const sudo: Peeler = (words) =>
  afterOptions(words, SUDO, 'sudo', (_options, rest) => {
    const split = splitAssignments(rest)
    return split.rest.length === 0 ? SELF : wrapped('sudo', split.rest, { assignments: split.assignments })
  })

const time = leading('time', {
  flags: 'pvq',
  withArg: 'f',
  long: ['portability', 'verbose', 'quiet'],
  longArg: ['format'],
})

const WATCH: OptionSpec = {
  flags: 'bcCdegptwxr',
  withArg: 'nq',
  long: ['beep', 'color', 'no-color', 'errexit', 'chgexit', 'precise', 'no-title', 'no-wrap', 'exec', 'no-rerun'],
  longArg: ['interval', 'equexit'],
  longOptional: ['differences'],
}

const watch: Peeler = (words) =>
  afterOptions(words, WATCH, 'watch', (options, rest) => {
    if (has(options, 'x', 'exec')) return wrapped('watch', rest)
    if (rest.length === 0) return SELF
    const computed = rest.find(isDynamic)
    if (computed !== undefined) return unknown(`the command watch runs is computed at run time (${computed.raw})`)
    return { kind: 'script', via: 'watch', source: rest.map((word) => word.value).join(' '), dialect: 'bash' }
  })

/** `find … -exec cmd {} ;` runs cmd (once per file); find itself runs too. */
const find: Peeler = (words) => {
  const inner: Word[][] = []
  for (let i = 1; i < words.length; i++) {
    const action = words[i]?.value ?? ''
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(action)) continue
    const end = words.findIndex(
      (word, j) => j > i && (word.value === ';' || (word.value === '+' && words[j - 1]?.value === '{}')),
    )
    if (end < 0) return unknown(`find ${action} has no terminating ';' or '+'`)
    inner.push(words.slice(i + 1, end))
    i = end
  }
  return inner.length === 0 ? SELF : { kind: 'also', via: 'find -exec', inner }
}

const PEELERS: Readonly<Record<string, Peeler>> = {
  env,
  command,
  // bash's builtin has --help and no other option.
  builtin: leading('builtin', { long: ['help'] }, 'help'),
  exec,
  nohup: leading('nohup', STANDARD, 'help', 'version'),
  timeout,
  nice,
  ionice,
  stdbuf,
  xargs,
  sudo,
  time,
  watch,
  find,
  // zsh's precommand modifiers take no options.
  nocorrect: leading('nocorrect', {}),
  noglob: leading('noglob', {}),
  setsid: leading(
    'setsid',
    { flags: 'cfwhV', long: ['ctty', 'fork', 'wait', 'help', 'version'] },
    'h',
    'V',
    'help',
    'version',
  ),
  bash: shell('bash', 'bash'),
  sh: shell('sh', 'bash'),
  dash: shell('dash', 'bash'),
  ksh: shell('ksh', 'bash'),
  zsh: shell('zsh', 'zsh'),
  su,
  git,
}

/** Names of the programs `peelWrapper` sees through. */
export const WRAPPER_NAMES: ReadonlySet<string> = new Set(Object.keys(PEELERS))

/**
 * Sees through one wrapper. `name` is the command's matching name (basename of an absolute
 * path), `words` its words from the command word on.
 *
 * @example
 * peelWrapper('timeout', words('timeout 5 rm x')) // { kind: 'wrapped', via: 'timeout', words: rm x }
 */
export function peelWrapper(name: string, words: readonly Word[]): Peeled {
  const peeler = PEELERS[name]
  return peeler === undefined ? SELF : peeler(words)
}
