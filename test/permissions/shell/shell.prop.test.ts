import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadBashGrammar } from '../../../src/adapters/bash-grammar.js'
import { analyzeShell } from '../../../src/permissions/shell/analyze.js'
import { denyMatches } from '../../../src/permissions/shell/match.js'
import { readOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import type { BashParser } from '../../../src/permissions/shell/shell.types.js'
import { runs } from '../../runs.js'

let parser: BashParser

beforeAll(async () => {
  parser = await loadBashGrammar()
})

const singleQuoted = (text: string): string => `'${text.replace(/'/g, "'\\''")}'`
const doubleQuoted = (text: string): string => `"${text.replace(/[\\"$`]/g, '\\$&')}"`

type Wrap = (inner: string) => string

/** Ways to put a command inside a bigger one; every one of them still runs the command. */
const WRAPS: Readonly<Record<string, Wrap>> = {
  subshell: (s) => `( ${s} )`,
  group: (s) => `{ ${s}; }`,
  substitution: (s) => `echo $( ${s} )`,
  quotedSubstitution: (s) => `echo "$( ${s} )"`,
  processSubstitution: (s) => `cat <( ${s} )`,
  bashC: (s) => `bash -c ${singleQuoted(s)}`,
  shLc: (s) => `sh -lc ${doubleQuoted(s)}`,
  ifThen: (s) => `if true; then ${s}; fi`,
  forLoop: (s) => `for f in a b; do ${s}; done`,
  whileLoop: (s) => `while false; do ${s}; done`,
  functionBody: (s) => `f() { ${s}; }`,
  negation: (s) => `! ${s}`,
  toDevNull: (s) => `${s} > /dev/null`,
  stderrToStdout: (s) => `${s} 2>&1`,
  caseItem: (s) => `case x in x) ${s};; esac`,
  heredoc: (s) => `cat <<EOF\n$(${s})\nEOF\n`,
  backquotes: (s) => `echo \`${s.replace(/[\\`]/g, '\\$&')}\``,
  assignment: (s) => `x=$( ${s} )`,
  exported: (s) => `export X="$( ${s} )"`,
  forIn: (s) => `for f in $( ${s} ); do :; done`,
  doubleBracket: (s) => `[[ -n $( ${s} ) ]]`,
  caseSubject: (s) => `case $( ${s} ) in *) :;; esac`,
  array: (s) => `a=( $( ${s} ) )`,
  hereString: (s) => `cat <<< "$( ${s} )"`,
  piped: (s) => `${s} | cat`,
  xargsSh: (s) => `xargs sh -c ${singleQuoted(s)}`,
  timeoutBash: (s) => `timeout 5 bash -c ${singleQuoted(s)}`,
  envSh: (s) => `env X=1 sh -c ${doubleQuoted(s)}`,
}
const wraps = Object.values(WRAPS)

/** Ways to spell a call of rm: quoting, paths, wrappers. */
const rmCalls = [
  'rm x',
  '/bin/rm -f x',
  '\\rm x',
  '"rm" x',
  'r""m x',
  "'rm' x",
  "$'rm' x",
  "$'\\x72m' x",
  'command rm x',
  'env rm x',
  'env -i A=1 rm x',
  'timeout 5 rm x',
  'nice -n 5 rm x',
  'sudo -u root rm x',
  'xargs rm',
  'nohup rm x',
  'X=1 rm x',
  'exec rm x',
  'time -p rm x',
  'stdbuf -oL rm x',
  'find . -exec rm {} +',
  'builtin rm x',
]

const others = ['ls', 'echo hi', 'cat f', 'true', 'git status', 'pwd', 'grep -n x f']
const separators = ['; ', ' && ', ' || ', ' | ', '\n', ' & ', ' |& ']

interface Shape {
  readonly before: readonly string[]
  readonly core: string
  readonly after: readonly string[]
  readonly separators: readonly string[]
  readonly inner: readonly Wrap[]
  readonly outer: readonly Wrap[]
}

function shape(cores: readonly string[], atoms: readonly string[], wrapSet: readonly Wrap[]): fc.Arbitrary<Shape> {
  return fc.record({
    before: fc.array(fc.constantFrom(...atoms), { maxLength: 3 }),
    core: fc.constantFrom(...cores),
    after: fc.array(fc.constantFrom(...atoms), { maxLength: 3 }),
    separators: fc.array(fc.constantFrom(...separators), { minLength: 6, maxLength: 6 }),
    inner: fc.array(fc.constantFrom(...wrapSet), { maxLength: 3 }),
    outer: fc.array(fc.constantFrom(...wrapSet), { maxLength: 2 }),
  })
}

function build(s: Shape, separatorSet: readonly string[] = s.separators): string {
  const core = s.inner.reduce((text, wrap) => wrap(text), s.core)
  const parts = [...s.before, core, ...s.after]
  const joined = parts.reduce((text, part, i) => (i === 0 ? part : `${text}${separatorSet[i - 1] ?? '; '}${part}`), '')
  return s.outer.reduce((text, wrap) => wrap(text), joined)
}

describe('properties of the shell analysis', () => {
  it('a command that runs rm anywhere is unknown or names rm, so a deny rule for rm catches it', () => {
    fc.assert(
      fc.property(shape(rmCalls, others, wraps), (s) => {
        const command = build(s)
        const analysis = analyzeShell(command, parser)
        const named = analysis.kind === 'unknown' || analysis.commands.some((cmd) => cmd.name === 'rm')
        expect(named, command).toBe(true)
        expect(denyMatches('rm:*', analysis), command).toBe(true)
      }),
      { numRuns: runs(200) },
    )
  })

  const readers = [
    'ls -la',
    'cat f',
    'git status',
    'echo hi',
    'grep -n x f',
    'wc -l f',
    'head -n 1 f',
    'pwd',
    'git log --oneline',
  ]
  const writers = [
    'touch f',
    'ls > f',
    'echo x >> f',
    'tee f',
    'cat f | tee g',
    'sort -o f f',
    'cp a b',
    'rm f',
    'mkdir d',
    'echo x &> f',
    'git branch new',
    'sed -i s/a/b/ f',
    'rg --pre sh x',
    'find . -delete',
    'X=1 ls',
    'git -c core.pager=sh log',
    'cat /proc/self/environ',
    'env',
    'ls >| f',
  ]
  // Wraps whose result the grammar parses whatever they wrap: it cannot read `!` before a compound
  // command (`! case …`), and a here-document must end its line (`EOF\n; ls` is a syntax error).
  // Assignments are never read-only; nested backquotes (`\`( ls )\``) defeat the grammar.
  const excluded = new Set(['negation', 'heredoc', 'backquotes', 'assignment', 'exported', 'array', 'envSh'])
  const readOnlyWraps = Object.entries(WRAPS)
    .filter(([name]) => !excluded.has(name))
    .map(([, wrap]) => wrap)
  // Not `&` (a background job is fine, but `{ a & ; }` is a syntax error) nor a line break: after
  // `|&` the grammar can join the next line into the last command, which the analysis refuses.
  const readOnlySeparators = separators.filter((separator) => separator !== ' & ' && separator !== '\n')

  it('read-only parts with one writing part are never read-only', () => {
    fc.assert(
      fc.property(shape(writers, readers, wraps), (s) => {
        const command = build(s)
        expect(readOnlyVerdict(command, parser).readOnly, command).toBe(false)
      }),
      { numRuns: runs(200) },
    )
  })

  it('read-only parts alone stay read-only (the property above is not vacuous)', () => {
    fc.assert(
      fc.property(shape(readers, readers, readOnlyWraps), (s) => {
        const command = build(
          s,
          s.separators.map((separator) => (readOnlySeparators.includes(separator) ? separator : '; ')),
        )
        expect(readOnlyVerdict(command, parser), command).toEqual({ readOnly: true })
      }),
      { numRuns: runs(200) },
    )
  })

  const shellish = fc
    .array(fc.constantFrom(...'rm ls $(){}[]<>|&;!`\'"\\\n\t#*?=~-_.aZ09%@+:,^'.split('')), { maxLength: 40 })
    .map((chars) => chars.join(''))

  it('never throws, and every known analysis names its commands', () => {
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string({ maxLength: 40 })), (command) => {
        const analysis = analyzeShell(command, parser)
        if (analysis.kind === 'known') {
          for (const cmd of analysis.commands)
            expect(cmd.name !== '' || cmd.assignments.length + cmd.redirects.length > 0).toBe(true)
        } else expect(analysis.reason.length).toBeGreaterThan(0)
      }),
      { numRuns: runs(200) },
    )
  })
})
