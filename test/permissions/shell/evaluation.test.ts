// Where bash evaluates text as code (src/permissions/shell/evaluation.ts): substitutions, arithmetic and
// the names whose values it evaluates, `${!x}` and `${x@P}`, test operators, subscripts and the bodies of
// here-documents. Each group pins a behaviour the mutation run of that file left untested. A row that says
// bash runs something was checked against bash 5.2 (`bash -c …` in a temp directory, `touch P` for the
// command, then `ls`); a row that says it does not, likewise. test/permissions/shell/analyze.test.ts has
// the common cases.
import { describe, expect, it } from 'vitest'
import { analysis, outcome, type Outcome } from './analysis.js'

const setsItself = (name: string): Outcome => ({
  unknown: `bash evaluates the value of ${name} as arithmetic or a name, and the command sets ${name} itself`,
})
const setByBash = (name: string): Outcome => ({
  unknown:
    `bash evaluates the value of ${name} as arithmetic or a name, ` +
    `and bash sets ${name} from text the command controls`,
})
const setsAnother = (name: string): Outcome => ({
  unknown: `bash evaluates the value of ${name} as arithmetic or a name, and it may name a variable the command sets`,
})
const outputAsArithmetic = (substitution: string): Outcome => ({
  unknown:
    `bash evaluates the output of ${JSON.stringify(substitution)} as arithmetic, ` +
    'where array subscripts in it run commands',
})
const unparsed = (text: string): Outcome => ({
  unknown: `the text ${JSON.stringify(text)} contains a substitution the parser did not read`,
})
const heredocUnparsed = (text: string): Outcome => ({
  unknown: `the here-document text ${JSON.stringify(text)} contains a substitution the parser did not read`,
})

function rows(table: Array<[string, Outcome]>): void {
  it.each(table)('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
}

describe('substitutions', () => {
  // Only a backquoted body is re-read after its escapes are undone: a `$(…)` body is parsed once, so
  // re-reading it (as text without its `$(`) would misread it, and a backquoted body without a
  // backslash needs no second reading, which would cost one level of the nesting limit.
  rows([
    ["echo $(printf '%s\\n' a)", ['printf %s\\n a', "echo $(printf '%s\\n' a)"]],
    ['echo $(echo \\$HOME)', ['echo $HOME', 'echo $(echo \\$HOME)']],
  ])

  it('reads a backquoted body without a backslash in place, eight scripts deep', () => {
    // Eight nested `bash -c` reach the nesting limit exactly: one more level would be unknown.
    let command = 'echo `ls`'
    for (let i = 0; i < 8; i++) command = `bash -c "${command.replace(/[\\"$`]/g, '\\$&')}"`
    const result = analysis(command)
    if (result.kind === 'unknown') throw new Error(`expected a known analysis: ${result.reason}`)
    expect(result.commands.map((cmd) => [cmd.name, ...cmd.args].join(' '))).toEqual(['ls', 'echo `ls`'])
    expect(result.commands.map((cmd) => cmd.via.length)).toEqual([8, 8])
  })

  it('reports `$(<f)` as a read of f by no program, with nothing inherited', () => {
    // Bash reads the file itself: the read-only verdict must see the input redirection, and the
    // record must not claim wrappers or open arguments it does not have.
    const result = analysis('echo $(<f)')
    expect(result.kind === 'known' ? result.commands[0] : result).toEqual({
      name: '',
      writtenName: '',
      args: [],
      assignments: [],
      redirects: [{ op: '<', target: 'f' }],
      text: '$(<f)',
      via: [],
      wrapperLines: [],
      dynamic: false,
      openArgs: false,
      argExpansions: [],
    })
  })
})

describe('test expressions', () => {
  // `[[ a -eq b ]]` evaluates both sides as arithmetic, so a name on either side has its value
  // evaluated (`n='a[$(touch P)]' bash -c '[[ 1 -eq $n ]]'` creates P); `==` compares strings and
  // evaluates nothing.
  rows([
    ['n=1; [[ 1 -eq $n ]]', setsItself('n')],
    ['n=1; [[ $n -eq 1 ]]', setsItself('n')],
    ['x=1; [[ $x == a ]]', ['']],
    ['[[ $(cat f) -eq 1 ]]', outputAsArithmetic('$(cat f)')],
  ])

  // `-v` takes a name, and bash evaluates the name's subscript as arithmetic: `ij='b[$(touch P)]';
  // [[ -v a[ij] ]]` creates P, and so does `x=y; [[ -v a[$x] ]]` with y='b[$(touch P)]'. Other unary
  // tests take plain strings (`[[ -n a[i] ]]` evaluates nothing); `[[ -v x ]]` has no subscript.
  rows([
    ['[[ -v a[$x] ]]', { unknown: 'the test "-v a[$x]" evaluates a subscript as arithmetic' }],
    ['[[ -v a[$(cat f)] ]]', { unknown: 'the test "-v a[$(cat f)]" evaluates a subscript as arithmetic' }],
    ['ij=1; [[ -v a[ij] ]]', setsItself('ij')],
    ['[[ -v x ]]', []],
    ['i=1; [[ -n a[i] ]]', ['']],
    ['[[ -n "[$x" ]]', []],
    // Bash rejects a binary `-v` (a syntax error, nothing runs); the grammar accepts it. The subscript
    // check is for the unary form only.
    ['i=1; [[ a[i] -v b ]]', ['']],
  ])
})

describe('names bash sets itself', () => {
  // Positional parameters are all digits, however many (`set -- … 'b[$(touch P)]'; echo $((${10}))`
  // creates P); a name that merely contains or starts with digits is an ordinary one.
  rows([
    ['echo $((${10}))', setByBash('10')],
    ['echo $((x1))', ['echo $((x1))']],
    // `${1a}` is a bad substitution in bash (nothing runs); the grammar reads the name `1a`.
    ['echo $(( ${1a} ))', ['echo $(( ${1a} ))']],
  ])
})

describe('arithmetic', () => {
  // The output of a substitution in arithmetic is evaluated as an expression (`$(( $(cat f) ))` with
  // f holding b[$(touch P)] creates P): what it prints is code the analysis cannot see.
  rows([
    ['echo $(( $(cat f) ))', outputAsArithmetic('$(cat f)')],
    ['echo $(( 10#$(cat f) ))', outputAsArithmetic('$(cat f)')],
  ])

  // A number with a base may hold an expansion (`10#${x}`): the parts are read, not the text as a
  // whole. `$a_b` yields the value of a_b; `_`, which bash sets, is not read from it.
  rows([
    ['echo $(( 10#${x} ))', ['echo $(( 10#${x} ))']],
    ['echo $(( $a_b ))', ['echo $(( $a_b ))']],
  ])
})

describe('indirection', () => {
  // `${!x}` takes x's value as a name and evaluates its subscript, also with an operator after it
  // (`${!x:-y}`, `${!x@Q}` create P when x='b[$(touch P)]'); `${!x@}`, `${!x*}` list names that
  // begin with x and `${!a[*]}` lists keys: those evaluate nothing.
  rows([
    ['x=1; echo ${!x:-y}', setsItself('x')],
    ['x=1; echo ${!x@Q}', setsItself('x')],
    ['x=1; echo ${!x@}', ['', 'echo ${!x@}']],
    ['a=(1 2); echo ${!a[*]}', ['', 'echo ${!a[*]}']],
  ])
})

describe('prompt strings', () => {
  // `${x@P}` runs the substitutions in x's value. The grammar also accepts `${x@P }`, which bash
  // rejects: it stays unknown, through the grammar's operators, where the text does not end in `@P}`.
  // A `@P}` inside a quoted default is only text.
  rows([
    [
      'echo ${x@P }',
      { unknown: '"${x@P }" expands a value as a prompt string, which runs the command substitutions in it' },
    ],
    ['echo ${x:-"@P}"}', ['echo ${x:-"@P}"}']],
  ])
})

describe('operators of an expansion', () => {
  // `${x:i:n}` evaluates i and n as arithmetic (`${x:i}` creates P when i='b[$(touch P)]').
  rows([
    ['i=1; echo ${x:i}', setsItself('i')],
    ['n=1; echo ${x:0:n}', setsItself('n')],
  ])

  // Inside double quotes a single quote in `${y:-…}` is a plain character, so `'$(touch P)'` there
  // runs touch, wherever it sits in the word; inside a `$(…)` in it quotes quote again.
  rows([
    ['echo "${y:-a\'$(rm x)\'}"', unparsed("'$(rm x)'")],
    ['echo "${y:-$(echo \'$(x)\')}"', ['echo $(x)', 'echo "${y:-$(echo \'$(x)\')}"']],
  ])
})

describe('subscripts', () => {
  // `${a[i]}` evaluates i, and `${a[$(cat f)]}` evaluates what cat prints (f holding b[$(touch P)]
  // creates P).
  rows([
    ['i=1; echo ${a[i]}', setsItself('i')],
    ['echo ${a[$(cat f)]}', outputAsArithmetic('$(cat f)')],
  ])
})

describe('here-documents', () => {
  // An unquoted body expands like a double-quoted string. The grammar parses `$…` in it but leaves
  // backquotes in the text around them, which is read piece by piece: before the first expansion,
  // between and after.
  rows([
    ['cat <<E\n`rm y` $(ls)\nE', ['cat', 'rm y', 'ls']],
    ['cat <<E\n$x `rm y`\nE', ['cat', 'rm y']],
  ])

  // In that text only `$(`, `${` and `$[` start a substitution the grammar missed: brackets and a
  // lone `$` are plain text (bash prints `a<pid>{x}` for `a$${x}`), and a `$[` inside backquotes is
  // the backquoted script's own (the heredoc prints 1 for `echo $[1]`).
  rows([
    ['cat <<E\nf(x) {y} [z]\nE', ['cat']],
    ['cat <<E\na$${x}\nE', ['cat']],
    ['cat <<E\n`echo $[1]`\nE', ['cat', 'echo $[1]']],
    ['cat <<E\nx $[y]\nE', heredocUnparsed('x $[y]\n')],
  ])
})

// Bypasses found while writing this file: each row is a command bash runs code in (checked as above)
// that the analysis reported as known, several of them read-only. Each failed before its fix; the
// attack suite has the same through a real kernel and shell.
describe('code bash runs in text it decodes or computes', () => {
  const subscriptTest = (text: string): Outcome => ({
    unknown: `the test ${JSON.stringify(text)} evaluates a subscript as arithmetic`,
  })

  // `[[ -v WORD ]]` evaluates the subscript of the name WORD expands to, not only of the name as
  // written: `[[ -v $'a[\x24(touch P)]' ]]`, `[[ -v $(cat f) ]]` (f holding a[$(touch P)]) and
  // `x='a[$(touch P)]'; [[ -v $x ]]` create P. The check looks for `[` before a `$` in the raw text.
  it.each<[string, Outcome]>([
    ["[[ -v $'a[\\x24(rm y)]' ]]", subscriptTest("-v $'a[\\x24(rm y)]'")],
    ['[[ -v $(cat f) ]]', subscriptTest('-v $(cat f)')],
    ["x='a[$(rm y)]'; [[ -v $x ]]", subscriptTest('-v $x')],
    ['[[ -v "$1" ]]', subscriptTest('-v "$1"')],
  ])('-v: %j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })

  // An ANSI-C string in arithmetic is read by bash once decoded: `[[ $'a[\x24(touch P)]' -eq 1 ]]`,
  // `echo ${a[$'\x24(touch P)']}` and `y='b[$(touch P)]'; [[ $'\x79' -eq 1 ]]` create P. The
  // analysis looks at the escaped text, where there is no `$(` and no name y.
  it.each<[string, Outcome]>([
    ["[[ $'a[\\x24(rm y)]' -eq 1 ]]", unparsed("$'a[\\x24(rm y)]'")],
    ["echo ${a[$'\\x24(rm y)']}", unparsed("$'\\x24(rm y)'")],
    ["y='b[$(rm x)]'; [[ $'\\x79' -eq 1 ]]", setsItself('y')],
  ])('ANSI-C in arithmetic: %j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })

  // Inside double quotes the word of `${y:-…}` decodes an ANSI-C string and then expands what it
  // yields: `echo "${y:-$'\x24(touch P)'}"` and `echo "${y:-$'\x60touch P\x60'}"` create P.
  it.each<[string, Outcome]>([
    ['echo "${y:-$\'\\x24(rm x)\'}"', unparsed("$'\\x24(rm x)'")],
    ['echo "${y:-$\'\\x60rm x\\x60\'}"', unparsed("$'\\x60rm x\\x60'")],
  ])('ANSI-C in a double-quoted expansion: %j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })

  // Unquoted, the word of `${y:-…}`, `${y+…}`, `${y/a/…}` undergoes process substitution:
  // `echo ${y:-<(touch P)}` creates P (and prints /dev/fd/63). The grammar reads `<(…)` there as a
  // plain word, so the command inside is never reported.
  it.each<[string, Outcome]>([
    ['echo ${y:-<(rm x)}', { unknown: 'the word "<(rm x)" is a process substitution the parser did not read' }],
    ['echo ${y:->(rm x)}', { unknown: 'the word ">(rm x)" is a process substitution the parser did not read' }],
    ['echo ${y/a/<(rm x)}', { unknown: 'the word "<(rm x)" is a process substitution the parser did not read' }],
  ])('process substitution in an expansion: %j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

// The same evaluation of a subscript through builtins that take a variable name (the check lives in
// src/permissions/shell/hazards.ts, which looked only for a subscript written out in the word): with f
// holding a[$(touch P)], `test -v "$(cat f)"`, `printf -v "$(cat f)" %s 1`, `declare "$(cat f)"=1`
// and `x='a[$(touch P)]'; read "$x" <<< 1` create P.
describe('builtins given a variable name computed at run time', () => {
  const computedName = (builtin: string, raw: string): Outcome => ({
    unknown:
      `${builtin} takes the variable name ${raw} computed at run time, ` +
      'whose subscript bash evaluates as arithmetic',
  })
  it.each<[string, Outcome]>([
    ['test -v "$(cat f)"', computedName('test', '"$(cat f)"')],
    ['printf -v "$(cat f)" %s 1', computedName('printf', '"$(cat f)"')],
    ['declare "$(cat f)"=1', computedName('declare', '"$(cat f)"=1')],
    ['x=\'a[$(rm y)]\'; read "$x" <<< 1', computedName('read', '"$x"')],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

// A variable the command does not set is evaluated with a value the analysis does not see, and that
// value may name a variable the command does set: OSTYPE is linux-gnu, so `linux='b[$(touch P)]';
// echo $((OSTYPE))` creates P (as do MACHTYPE through pc, HOSTTYPE through x86_64, SHELLOPTS through
// braceexpand, and TERM=xterm-256color through xterm). The check in src/permissions/shell/analyze.ts
// trusted every value it did not see being set.
describe('values the analysis does not see may name variables the command sets', () => {
  const mayName = (name: string): Outcome => ({
    unknown: `bash evaluates the value of ${name} as arithmetic or a name, and it may name a variable the command sets`,
  })
  it.each<[string, Outcome]>([
    ["linux='b[$(rm x)]'; echo $((OSTYPE))", mayName('OSTYPE')],
    ["braceexpand='b[$(rm x)]'; echo $((SHELLOPTS))", mayName('SHELLOPTS')],
    ["xterm='b[$(rm x)]'; [[ $TERM -eq 1 ]]", mayName('TERM')],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

describe('variables bash keeps numeric name nothing', () => {
  // Bash resets these whatever the environment held (checked: SECONDS='a[$(touch P)]' bash -c
  // 'echo $((SECONDS))' creates nothing), so a command that sets a variable may still use them.
  rows([
    ['x=1; echo $((LINENO + 1))', ['', 'echo $((LINENO + 1))']],
    ['x=1; echo $((RANDOM % 6 + SECONDS))', ['', 'echo $((RANDOM % 6 + SECONDS))']],
    ['x=1; echo $((COLUMNS))', setsAnother('COLUMNS')],
  ])
})
