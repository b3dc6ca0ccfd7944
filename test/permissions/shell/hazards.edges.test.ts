// Edges of src/permissions/shell/hazards.ts that the mutation run left untested: where a variable's
// base name ends (`PS1[0]=`), the prefixes of code-loading variables, the option clusters of hash,
// mapfile and the declarers, how far a builtin's options go (`--`, a computed word), and the names
// read, unset and test assign or evaluate. Rows that say bash runs a command were checked with bash
// 5.2.15 (`bash -c …` in a temp directory, then `ls`).
import { describe, expect, it } from 'vitest'
import { analysis, outcome, type Outcome } from './analysis.js'

const loads = (base: string): Outcome => ({
  unknown: `assigning ${base} makes bash or a program load or run its value as code`,
})
const subscript = (builtin: string, name: string): Outcome => ({
  unknown: `${builtin} evaluates the subscript in ${name} as arithmetic`,
})
const computed = (builtin: string, raw: string): Outcome => ({
  unknown:
    `${builtin} takes the variable name ${raw} computed at run time, ` + 'whose subscript bash evaluates as arithmetic',
})
const mayName = (name: string): Outcome => ({
  unknown: `bash evaluates the value of ${name} as arithmetic or a name, and it may name a variable the command sets`,
})
const setsItself = (name: string): Outcome => ({
  unknown: `bash evaluates the value of ${name} as arithmetic or a name, and the command sets ${name} itself`,
})
const declarerReason = (name: string): Outcome => ({
  unknown: `${name} -i/-n makes later assignments evaluate arithmetic or rename variables`,
})

// BUG: a declarer given a compound array value as a quoted string parses that string again as
// `(…)`, expanding it: `declare -a a='($(touch X))'`, `declare -a 'a=($(touch X))'`,
// `readonly -a 'a=($(touch X))'`, `typeset -A a='([k]=$(touch X))'`, `a=(); declare 'a=($(touch
// X))'` and `x='$(touch X)'; declare -a a="($x)"` each created X in bash 5.2, yet the analysis knows
// them and lists no touch (`["declare -a"]`). The read-only layer asks (declare assigns) and an
// allow rule cannot name a command with an assignment, but a deny rule such as Bash(rm:*) never sees
// the rm: in bypassPermissions mode `declare -a a='($(rm -rf ~))'` runs.
describe('a quoted compound value a declarer parses again as an array', () => {
  it.each([
    ["declare -a a='($(rm x))'"],
    ["declare -a 'a=($(rm x))'"],
    ["readonly -a 'a=($(rm x))'"],
    ["typeset -A a='([k]=$(rm x))'"],
    ["a=(); declare 'a=($(rm x))'"],
    ['x=\'$(rm y)\'; declare -a a="($x)"'],
  ])('%j is unknown', (command) => {
    expect(analysis(command).kind).toBe('unknown')
  })
})

// The edges of that check, each checked in bash 5.2: a longer name is parsed again the same way
// (`declare -a arr='($(touch Y))'` created Y), and only a value that begins with `(` after the
// first `=`, and holds an expansion, runs anything (`declare -a a='b=($(touch X))'` is one
// element, `declare -a c='(x y)'` two plain ones); a written array the grammar reads itself.
describe('what a declarer parses again, exactly', () => {
  it('a longer name, with the reason the model reads', () => {
    expect(outcome("declare -a arr='($(rm x))'")).toEqual({
      unknown: "declare parses arr='($(rm x))' again as an array, expanding what is inside",
    })
  })
  it.each([["declare -a a='b=($(rm x))'"], ["declare -a c='(x y)'"], ['declare -a a=($x)']])(
    '%j is known',
    (command) => {
      expect(outcome(command)).toEqual(['declare -a'])
    },
  )
  it('hash with a computed option says which word', () => {
    expect(outcome('hash $(echo -p) /bin/rm ls; ls x')).toEqual({
      unknown: 'hash takes an option computed at run time ($(echo -p)), which could be -p',
    })
  })
})

// BUG: `hash -p FILE NAME` makes NAME run FILE, but only a word written as `-p…` is looked at:
// `h=-p; hash $h /bin/touch ls; ls X` and `hash $(echo -p) /bin/touch ls; ls X` created X in bash
// 5.2, yet the analysis lists `ls X` as what runs. hash is not on the read-only list (it asks), but
// a deny rule on the program run (Bash(rm:*)) misses `hash $(echo -p) /bin/rm ls; ls -rf ~`.
describe('hash with a computed option', () => {
  it.each([['hash $(echo -p) /bin/rm ls; ls x'], ['hash "$h" /bin/rm ls; ls x']])('%j is unknown', (command) => {
    expect(analysis(command).kind).toBe('unknown')
  })
})

// GAP: git runs GIT_PROXY_COMMAND as a program for git:// URLs (`GIT_PROXY_COMMAND=./p git ls-remote
// git://localhost/x` ran ./p), as it runs GIT_SSH, but GIT_PROXY_COMMAND is not in COMMAND_VALUED:
// `GIT_SSH=./p git fetch` lists ./p, this lists only git. The assignment makes git not read-only and
// not allowable by a rule (match.ts), so only a deny rule on the program misses it.
describe('a variable git runs as a program', () => {
  it('GIT_PROXY_COMMAND=./p git ls-remote git://x/y lists ./p', () => {
    expect(outcome('GIT_PROXY_COMMAND=./p git ls-remote git://x/y')).toEqual(['./p', 'git ls-remote git://x/y'])
  })
})

// The base of an assigned name is all before its subscript, however long the subscript (`PS1[0]=x`
// sets PS1), and every GIT_CONFIG_* and BASH_FUNC_* name loads code (git reads GIT_CONFIG_KEY_<n>,
// bash imports BASH_FUNC_name%% as a function) — a prefix, not a suffix.
describe('code-loading variables', () => {
  it.each<[string, Outcome]>([
    ['PS1[0]=x true', loads('PS1')],
    ['LD_PRELOAD[10]=/tmp/x.so ls', loads('LD_PRELOAD')],
    ['GIT_CONFIG_KEY_0=core.pager git status', loads('GIT_CONFIG_KEY_0')],
    ['env BASH_FUNC_x=1 true', loads('BASH_FUNC_x')],
    // a subscript that expands is arithmetic bash evaluates, even right after the bracket
    ['a[$x]=1 true', { unknown: 'the subscript in a[$x] is evaluated as arithmetic' }],
    ["env 'a[`x`]=1' true", { unknown: 'the subscript in a[`x`] is evaluated as arithmetic' }],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

// An option cluster is a word that begins with `-` (or `+` for the declarers): `hash -rp FILE ls`
// (checked: ls ran FILE) and `readarray -tC CMD` are refused, but a letter after the first
// character of an operand (`hash x-p`, `mapfile x-C`, `export a-i`) is no option.
describe('option clusters of hash, mapfile and the declarers', () => {
  it.each<[string, Outcome]>([
    ['hash -rp /bin/rm ls', { unknown: 'hash -p makes a name run another program' }],
    ['hash x-p', ['hash x-p']],
    ["readarray -tC 'rm x' a", { unknown: 'readarray -C runs a callback command' }],
    ["readarray -C 'rm x' a", { unknown: 'readarray -C runs a callback command' }],
    ['mapfile x-C', ['mapfile x-C']],
    // declare -i makes `x=…` arithmetic: `declare -gi x; x='a[$(touch X)]'` created X
    ["declare -gi x; x='a[$(rm y)]'", declarerReason('declare')],
    ['declare -ri x', declarerReason('declare')],
    ["export 'a-i'", ['export a-i']],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

// Where a builtin's options end. `--` ends them, and the word after it is an operand even if it
// looks like an option (`printf -- -v NAME` prints `-v`; bash created nothing). A `+…` word is an
// option to the declarers (`declare '+a[$(touch X)]'` is an invalid option, nothing ran), but a
// `-` inside a name is not (`declare 'a[$(touch X-1)]=1'` created X-1). The words before a computed
// option-like word are what they were read as: `read -p PROMPT "$y"` names only "$y".
describe('how far the options of a builtin go', () => {
  it.each<[string, Outcome]>([
    ["printf -- -v 'a[$(rm x)]'", ['printf -- -v a[$(rm x)]']],
    ["read -p 'a[$y]' -- x", ['read -p a[$y] -- x']],
    ["declare '+a[$y]' x", ['declare +a[$y] x']],
    ["declare 'a[$(rm -f x)]=1'", subscript('declare', 'a[$(rm -f x)]=1')],
    ["read 'a[$(rm -f x)]'", subscript('read', 'a[$(rm -f x)]')],
    ['read -p \'a[$x]\' "$y"', computed('read', '"$y"')],
    // an option that takes a value, given none, names nothing
    ['printf -v', ['printf -v']],
    ['read -ra', ['read -ra']],
    ['wait -p', ['wait -p']],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

// `test`/`[` name a variable only after `-v`: `'[' -v 'a[$(touch X)]' ]` created X (the quoted `[`
// is a command, not the grammar's test_command), while `test "$x" = y` takes no name.
describe('test and [ name a variable after -v only', () => {
  it.each<[string, Outcome]>([
    ["'[' -v 'a[$(rm x)]' ]", subscript('[', 'a[$(rm x)]')],
    ['\'[\' "$x" = y ]', ['[ "$x" = y ]']],
    ['test "$x" = y', ['test "$x" = y']],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

// The names a builtin assigns and evaluates, for the arithmetic check (analyze.ts). unset and test
// assign nothing, so evaluating an outside variable after them stays known; a word that is no name
// (`1x`) assigns nothing, so read falls back to REPLY; a name is the whole identifier before any
// subscript, and an option cluster (`-r`) is no name.
describe('the names a builtin assigns or evaluates', () => {
  it.each<[string, Outcome]>([
    ['unset x; echo $((y))', ['unset x', 'echo $((y))']],
    ['test -v x; echo $((y))', ['test -v x', 'echo $((y))']],
    ["'[' -v x ]; echo $((y))", ['[ -v x ]', 'echo $((y))']],
    ['read 1x', ['read 1x']],
    ['read 1x; echo $((x))', mayName('x')],
    ['read abc; echo $((abc))', setsItself('abc')],
    ['read x; echo $((x))', setsItself('x')],
    ['read -r x; echo $((r))', mayName('r')],
    // the subscript of a name read assigns is evaluated; `1a[i]` is no name (bash refuses it)
    ["read 'ab[i]'", mayName('i')],
    ["read '1a[i]'", ['read 1a[i]']],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})
