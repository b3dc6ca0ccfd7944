// The checks the read-only table is built from, called directly: forbidden options as getopt reads
// them, operand counts, and whether a glob could name a process environment. Each row is a case
// where a wrong answer would either refuse a harmless command or let a writing one run unasked.
// test/permissions/shell/read-only.test.ts drives the same checks through whole command lines.
import { describe, expect, it } from 'vitest'
import { findForbidden, globMayNameEnviron, operands } from '../../../src/permissions/shell/read-only.checks.js'
import type { ArgOptions, Forbidden, OptionStyle } from '../../../src/permissions/shell/read-only.checks.js'
import { readOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import { bash } from './analysis.js'

const OUTPUT: Forbidden[] = [
  { option: '-o', reason: 'writes -o' },
  { option: '--output', reason: 'writes --output' },
]
const DELETE: Forbidden[] = [{ option: '-delete', reason: 'deletes' }]

describe('findForbidden', () => {
  // [args, rules, style, the reason found]
  const rows: Array<[string[], Forbidden[], OptionStyle, string | undefined]> = [
    // Every word is looked at, past `--` too: `--` may be the value of an option (`-e --`).
    [['--', '-o', 'f'], OUTPUT, {}, 'writes -o'],
    [['-n', '--', '--output=F'], OUTPUT, {}, 'writes --output'],
    // An empty word is an operand, not the end of the options.
    [['', '-o', 'f'], OUTPUT, {}, 'writes -o'],
    // find's words are whole: `--` ends nothing, and -delete after it still deletes.
    [['--', '-delete'], DELETE, { singleDashWords: true }, 'deletes'],
    [['.', '-name', 'x', '-delete'], DELETE, { singleDashWords: true }, 'deletes'],
    [['-deletex'], DELETE, { singleDashWords: true }, undefined],
    // Prefixes count only where the program accepts them (getopt_long, git), and never an empty one.
    [['--out=F'], OUTPUT, { abbreviations: true }, 'writes --output'],
    [['--out', 'F'], OUTPUT, { abbreviations: true }, 'writes --output'],
    [['--out=F'], OUTPUT, {}, undefined],
    [['--outputs'], OUTPUT, { abbreviations: true }, undefined],
    [['--=F'], OUTPUT, { abbreviations: true }, undefined],
    [['--output=F'], OUTPUT, {}, 'writes --output'],
    // A short option hides in any cluster, up to a letter that takes the rest as its value.
    [['-ao', 'F'], OUTPUT, {}, 'writes -o'],
    [['-ko', 'f'], OUTPUT, { shortWithArg: 'k' }, undefined],
    [['-ako', 'f'], OUTPUT, { shortWithArg: 'k' }, undefined],
    [['-ak', 'o'], OUTPUT, { shortWithArg: 'k' }, undefined],
    [['o', '-', '-a'], OUTPUT, {}, undefined],
    [['--o'], OUTPUT, {}, undefined],
  ]
  it.each(rows)('%j with %j (%j) finds %j', (args, rules, style, reason) => {
    expect(findForbidden(args, rules, style)).toBe(reason)
  })

  it('reads options GNU style when no style is given', () => {
    expect(findForbidden(['-xo'], OUTPUT)).toBe('writes -o')
    expect(findForbidden(['-x', 'o'], OUTPUT)).toBeUndefined()
  })
})

// A word list that fails the test instead of hanging it if a scan keeps revisiting the same words.
function bounded(words: string[]): readonly string[] {
  let reads = 0
  return new Proxy(words, {
    get(target, key, receiver): unknown {
      if (++reads > 10_000) throw new Error('the scan does not end')
      return Reflect.get(target, key, receiver) as unknown
    },
  })
}

describe('operands', () => {
  const UNIQ: ArgOptions = { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars'] }
  // [args, options that take an argument, the operands]: uniq and date are refused on these counts.
  const rows: Array<[string[], ArgOptions, string[]]> = [
    [['in', 'out'], UNIQ, ['in', 'out']],
    // `--` ends the options: every later word is an operand, one that looks like an option too.
    [['in', '--', '-c', 'out'], UNIQ, ['in', '-c', 'out']],
    [['--', '--'], UNIQ, ['--']],
    // `-` is standard input, an operand.
    [['-', 'out'], UNIQ, ['-', 'out']],
    // A short option that takes an argument takes the next word only when it ends its cluster.
    [['-f', '1', 'in'], UNIQ, ['in']],
    [['-cf', '1', 'in'], UNIQ, ['in']],
    [['-f1', 'in', 'out'], UNIQ, ['in', 'out']],
    [['-fc', 'in', 'out'], UNIQ, ['in', 'out']],
    [['-c', 'in', 'out'], UNIQ, ['in', 'out']],
    [['-c', 'in', 'out'], {}, ['in', 'out']],
    // A long one takes the next word unless its value is attached; prefixes name it too.
    [['--skip-fields', '1', 'in'], UNIQ, ['in']],
    [['--skip-f', '1', 'in'], UNIQ, ['in']],
    [['--skip', '1', 'in'], UNIQ, ['in']],
    [['--skip-fields=1', 'in', 'out'], UNIQ, ['in', 'out']],
    [['--count', 'in', 'out'], UNIQ, ['in', 'out']],
    [['--count', 'in', 'out'], {}, ['in', 'out']],
    [['--chars', 'in', 'out'], UNIQ, ['in', 'out']],
  ]
  it.each(rows)('%j with %j has the operands %j', (args, withArg, expected) => {
    expect(operands(bounded(args), withArg)).toEqual(expected)
  })

  it('takes no option to have an argument when none are listed', () => {
    expect(operands(['-n', 'name'])).toEqual(['name'])
  })
})

describe('globMayNameEnviron', () => {
  // [pattern as written, whether it could expand to /proc/…/environ]
  const rows: Array<[string, boolean]> = [
    ['/proc/self/env*', true],
    ['/proc/*/env*', true],
    ['/proc/thread-self/e*', true],
    ['/proc/self/task/*/env*', true],
    // Leading ./ and ../ (any run of them) can climb to / from the working directory.
    ['../proc/self/env*', true],
    ['./proc/self/env*', true],
    ['./../proc/self/env*', true],
    ['.././../proc/self/env*', true],
    ['proc/self/env*', true],
    ['pro?/self/env*', true],
    // A relative pattern without `..` stays below the working directory…
    ['self/env*', false],
    ['src/*.ts', false],
    ['a/b/*', false],
    // …but any absolute one may reach /proc: `//`, `..`, and symbolic links such as /dev/fd or
    // /proc/self/root resolve to it whatever the letters say.
    ['/../self/env*', true],
    ['//proc/self/env*', true],
    ['/dev/fd/../env*', true],
    ['/etc/*', true],
    ['~/*', true],
    // a component that could be `..` (`.*` matches it where globskipdots is off) climbs out
    ['src/../../proc/self/env*', true],
    ['.*/env*', true],
    ['src/.?/x/*', true],
    // a relative dev/ is /dev from /, and /dev/fd/N can be a directory opened by a redirection
    ['dev/fd/3/env*', true],
    // The name itself must be able to be environ.
    ['/etc/*.conf', false],
    ['/proc/self/*.txt', false],
    ['/proc/self/env*/', false],
    // Without a slash it matches only in the working directory, which cannot be under /proc.
    ['env*', false],
    ['*', false],
    ['{a,b}', false],
    // ?, [...] and * each stand for characters of one name, never a slash.
    ['/pro[c]/self/env*', true],
    ['/proc/se[l][f]/env*', true],
    ['/proc/sel?/env[i]ron', true],
    ['/proc/[st]*/e*', true],
    ['/x/env[!x]ron', true],
    // a `]` first in a bracket is one of its characters, not its end
    ['/x/env[]i]ron', true],
    ['/x/env[!]]ron', true],
    ['/proc/self/environ?', false],
    // extglob patterns may match any name
    ['/x/@(a|b)', true],
    ['sub/!(x)', false],
    ['proc/self/!(x)', true],
    // A brace of plain alternatives is one of them; one that holds a slash or a dot could be
    // any path (`{/..z}` is a sequence of characters from / to z).
    ['/pro{c,x}/self/env*', true],
    ['/pro{c,x}{,}/self/env*', true],
    ['src/{a,b}', false],
    ['src/env{a..z}ron', false],
    ['src/{./}env*', true],
    ['src/x{/..z}', true],
    // a character sequence spanning / makes one (+ to 1, either way round): /etc/x/env*
    ['{+..1}etc/x/env*', true],
    ['{1..+}etc/x/env*', true],
    ['{a..z}etc/x/env*', false],
    ['{./}env*', true],
    // Quotes and backslashes are removed before the pattern is matched.
    ["/proc/'self'/env*", true],
    ['/proc/"self"/env*', true],
    ['/proc/\\self/env*', true],
  ]
  it.each(rows)('%j: %j', (pattern, expected) => {
    expect(globMayNameEnviron(pattern)).toBe(expected)
  })
})

// findForbidden took `--` to end the options even where it is the value of an option that takes
// the next word, so the forbidden option after it was never looked at (failed before the fix).
// Each of these ran here (git 2.39, ripgrep 13, coreutils sort, file 5.44): git grep ran the
// shell command (PWNED was created), rg ran `sh f`, sort wrote out, file wrote magic.mgc.
describe('an option whose value is `--` hides the forbidden option after it', () => {
  it.each([
    "git grep -e -- -O'touch PWNED;:'",
    'rg -e -- --pre sh f',
    'sort -T -- -o out in',
    'sort --random-source -- -o out in',
    'file -F -- -C -m magic',
  ])('%j is not read-only', (command) => {
    expect(readOnlyVerdict(command, bash()).readOnly).toBe(false)
  })
})

// globMayNameEnviron compared the pattern as a string with four spellings of an environ path, but
// bash and the kernel resolve many more (failed before the fix). Each of these printed a variable
// set with `env -i FOO=secret bash -c '…'` here.
describe('a glob spelt differently still names a process environment', () => {
  it.each([
    'cat //proc/self/env*',
    'cat /./proc/self/env*',
    'cat < //proc/self/env*',
    'cat /proc/self/../self/env*',
    // ~ is /root here: /root/.. is /.
    'cat ~/../proc/self/env*',
    // every process's threads, not only task 1
    'cat /proc/*/task/??*/env*',
    // symbolic links into /proc and back to /
    'cat /dev/fd/../env*',
    'cat /proc/self/root/proc/self/env*',
  ])('%j is not read-only', (command) => {
    expect(readOnlyVerdict(command, bash()).readOnly).toBe(false)
  })
})

// globMayNameEnviron leaves slash-less globs to the cd check, which only looked for the letters
// `proc`; a glob, `..` or a symbolic link got into /proc (failed before the fix). `cd /dev/fd/3
// 3</proc/self` enters the directory the redirection opened.
describe('cd reaches /proc without writing proc', () => {
  it.each([
    'cd /pro[c]/self && cat env*',
    'cd -P /dev/fd/.. && cat env*',
    'cd /dev/fd/3 3</proc/self && cat env*',
    'cd //dev/fd/3 3<&0 && cat env*',
    'cd dev/fd/3 && cat env*',
    'cd ./proc/self && cat env*',
    'cd src/../.. && cat env*',
    'cd {/proc,x} && cat env*',
    // any glob: what it expands to is not known
    'cd /srv/a* && cat env*',
  ])('%j is not read-only', (command) => {
    expect(readOnlyVerdict(command, bash()).readOnly).toBe(false)
  })
  // A process substitution becomes /dev/fd/N, never a process environment, whatever its text holds
  // (the shell property test found `cat <( f() { ls -la > /dev/null; } )` refused as a glob).
  it.each(['cat <( f() { ls -la > /dev/null; } )', 'cat <( { cat /etc/hosts; } )'])('%j stays read-only', (command) => {
    expect(readOnlyVerdict(command, bash()).readOnly).toBe(true)
  })
  it.each(['cd src && cat *', 'cd && cat *', 'cd /work/project/src && ls', 'cd -P src/deep && cat *.ts'])(
    '%j stays read-only',
    (command) => {
      expect(readOnlyVerdict(command, bash()).readOnly).toBe(true)
    },
  )
})
