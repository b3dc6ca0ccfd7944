// How a shell given its script as a string is read: its options (which ones end them, which take
// the next word, which make it read standard input), the command string, and su's -c. A string
// read wrongly is a command the analysis misses. Each reading below was checked against bash 5.2,
// dash and util-linux su 2.38 on this machine.
import { describe, expect, it } from 'vitest'
import { readOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import { shell, su, zshHazard } from '../../../src/permissions/shell/shell-wrappers.js'
import { literalWord } from '../../../src/permissions/shell/words.js'
import type { Word } from '../../../src/permissions/shell/words.js'
import { analysis, bash, known, line } from './analysis.js'

// Words that fail the test instead of hanging it if the option scan goes back over them.
function bounded(texts: string[]): readonly Word[] {
  let reads = 0
  return new Proxy(texts.map(literalWord), {
    get(target, key, receiver): unknown {
      if (++reads > 10_000) throw new Error('the scan does not end')
      return Reflect.get(target, key, receiver) as unknown
    },
  })
}

describe('a shell -c runs its command string', () => {
  // [command, what runs, via]
  const rows: Array<[string, string[], string[]]> = [
    // Long options come first and take no value (bar --rcfile / --init-file).
    ["bash --login -c 'rm x'", ['rm x'], ['bash -c']],
    ["bash --noprofile --norc -c 'rm x'", ['rm x'], ['bash -c']],
    // `-` ends the options like `--`: the next word is the string.
    ["bash -c - 'rm x'", ['rm x'], ['bash -c']],
    ["sh -c - 'rm x'", ['rm x'], ['sh -c']],
    // Without -c the first operand is a script file: bash itself, whatever follows.
    ["bash -- -c 'rm x'", ['bash -- -c rm x'], []],
    ['bash -l script.sh', ['bash -l script.sh'], []],
    ['bash run-tests', ['bash run-tests'], []],
    ['bash --help', ['bash --help'], []],
    ['bash --version', ['bash --version'], []],
    // su: -c anywhere after su, --command apart or with =.
    ["su root -c 'rm x'", ['rm x'], ['su -c']],
    ["su --command 'rm x' root", ['rm x'], ['su -c']],
    ["su --command='rm x' root", ['rm x'], ['su -c']],
  ]
  it.each(rows)('%j runs %j via %j', (command, expected, via) => {
    const commands = known(command)
    expect(commands.map(line)).toEqual(expected)
    expect(commands[0]?.via).toEqual(via)
  })

  it('does not follow the file --rcfile names: it is unknown', () => {
    expect(shell('bash', 'bash')(bounded(['bash', '--rcfile', 'f', '-c', 'rm x']))).toEqual({
      kind: 'unknown',
      reason: 'bash --rcfile runs a file of commands, which is not analysed',
    })
  })

  it("reads su's string as bash", () => {
    expect(su(bounded(['su', '-c', 'rm x']))).toEqual({ kind: 'script', via: 'su -c', source: 'rm x', dialect: 'bash' })
  })
})

describe('what cannot be read is unknown, and says why', () => {
  // [command, reason]
  const rows: Array<[string, string]> = [
    ["bash $OPT -c 'rm x'", 'an argument of bash is computed at run time ($OPT)'],
    ['bash -s', 'bash -s reads its commands from standard input'],
    // After `--` the string is not read as an option: it is the command string, computed.
    ['bash -c -- "$X"', 'the command string of bash -c is computed at run time ("$X")'],
    ['su -c', 'su without -c starts a shell, which is not analysed'],
    ['su -c "$X"', 'the command su runs is computed at run time ("$X")'],
  ]
  it.each(rows)('%j: %s', (command, reason) => {
    expect(analysis(command)).toMatchObject({ kind: 'unknown', reason })
  })
})

describe('zshHazard', () => {
  // zsh expands `=cmd` at the start of a word to a path, and runs code in glob qualifiers.
  const rows: Array<[string, string | undefined]> = [
    ['=ls', 'zsh glob qualifiers and =command expansion are not analysed'],
    ['echo =ls', 'zsh glob qualifiers and =command expansion are not analysed'],
    ['ls *(e:rm:)', 'zsh glob qualifiers and =command expansion are not analysed'],
    ['x=1', undefined],
    ['echo a=b', undefined],
  ]
  it.each(rows)('%j: %j', (source, reason) => {
    expect(zshHazard(source)).toBe(reason)
  })
})

// Bash reads long options with one dash too (`-rcfile FILE`, `-login`), `+c` sets command mode
// like `-c`, and a lone `+` is an empty option (bash and dash). Each of these ran its touch here,
// while the analysis read another string, or bash itself: found by mutation testing, failed first.
describe('bash options that hid the command string', () => {
  it.each([
    ["bash -rcfile /dev/null -c 'rm x'", 'bash -rcfile runs a file of commands, which is not analysed'],
    ["bash -init-file /dev/null -c 'rm x'", 'bash -init-file runs a file of commands, which is not analysed'],
  ])('%j is unknown', (command, reason) => {
    expect(analysis(command)).toEqual({ kind: 'unknown', reason, source: command })
  })

  it.each([["bash -login -c 'rm x'"], ["bash +c 'rm x'"], ["bash -c + 'rm x'"], ["sh -c + 'rm x'"]])(
    '%j runs rm x',
    (command) => {
      expect(known(command).map(line)).toEqual(['rm x'])
    },
  )

  // The worst of it: a read-only verdict. `ls` is taken for the string; bash runs touch X.
  it("bash -rcfile ls -c 'touch X' is not read-only", () => {
    expect(readOnlyVerdict("bash -rcfile ls -c 'touch X'", bash()).readOnly).toBe(false)
  })
})

// An interactive shell (-i) runs the file --rcfile / --init-file names before its string, like
// BASH_ENV (refused): `bash --rcfile ./x.sh -ic ls` ran x.sh here. Failed before the fix.
describe('an rc file an interactive shell runs', () => {
  it.each(['bash --rcfile ./x.sh -ic ls', 'bash --init-file ./x.sh -i -c ls'])('%j is not read-only', (command) => {
    expect(readOnlyVerdict(command, bash()).readOnly).toBe(false)
  })
})

// su (getopt_long) runs the last -c, and an option that takes a value (-w, -s, -g) can hold a
// "-c". `su -c true -c 'touch X' root` and `su -w -c -c 'touch X' root` each ran touch X here, as
// root, while the analysis read `true` and `-c`. More than one -c is unknown now (failed first).
describe('su given more than one -c', () => {
  it.each([["su -c true -c 'rm x' root"], ["su --command=true -c 'rm x' root"], ["su -w -c -c 'rm x' root"]])(
    '%j is unknown',
    (command) => {
      expect(analysis(command)).toMatchObject({
        kind: 'unknown',
        reason: 'su is given more than one command (-c), which is not analysed',
      })
    },
  )
})
