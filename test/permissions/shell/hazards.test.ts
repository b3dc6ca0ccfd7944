// Builtins that take variable names (src/permissions/shell/hazards.ts): bash evaluates the subscript
// of a name such as `a[$(cmd)]` as arithmetic, so the command inside runs. The names are read with
// each builtin's own options, as bash's builtins read them: an option's value is no name (`read -p
// PROMPT`) unless the option takes one (`read -a NAME`, `printf -v NAME`, `wait -p NAME`), and a
// value may be attached to its letter (`printf -vNAME`). Rows that say bash runs the command were
// checked with bash 5.2 (`bash -c …` in a temp directory, then `ls`).
import { describe, expect, it } from 'vitest'
import { outcome, type Outcome } from './analysis.js'

const subscript = (builtin: string, name: string): Outcome => ({
  unknown: `${builtin} evaluates the subscript in ${name} as arithmetic`,
})
const computed = (builtin: string, raw: string): Outcome => ({
  unknown: `${builtin} takes the variable name ${raw} computed at run time, whose subscript bash evaluates as arithmetic`,
})

// The name read from where the builtin reads it. `printf -v'a[$(touch X)]' %s 1` and `printf
// $(echo -v) 'a[$(touch X)]' 1` created X, yet were known: only a word that was exactly `-v` was
// looked at (failed before the fix).
describe('a name attached to its option, or after a computed word, is still a name', () => {
  it.each<[string, Outcome]>([
    ["printf -v'a[$(rm x)]' %s 1", subscript('printf', 'a[$(rm x)]')],
    // unquoted, the brackets make the word a glob: computed, so it is refused as such
    ['printf -va[\\$\\(rm\\ x\\)] %s 1', computed('printf', '-va[')],
    ["read -ra'b[$(rm x)]'", subscript('read', 'b[$(rm x)]')],
    ["wait -p'a[$(rm x)]'", subscript('wait', 'a[$(rm x)]')],
    // `+x` is an option to the declarers only: to read it is a word like any other
    ["read '+a[$(rm x)]'", subscript('read', '+a[$(rm x)]')],
    // a computed word where an option may be: it, and every word after it, may be a name
    ["printf $(echo -v) 'a[$(rm x)]' 1", subscript('printf', 'a[$(rm x)]')],
    ['printf "$fmt" x', computed('printf', '"$fmt"')],
    ['read "$opt" x', computed('read', '"$opt"')],
    ['wait "$job"', computed('wait', '"$job"')],
    // `getopts "$spec" a b` is `getopts a b` when spec is `--`
    ['getopts "$spec" opt', computed('getopts', '"$spec"')],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

// An option's value that is not a name is not evaluated: `read -p 'a[$(touch X)]' v` prints the
// prompt as it is. These were refused before, as if the prompt were a name.
describe("an option's value is not a name unless the option takes one", () => {
  it.each<[string, Outcome]>([
    ['read -p "$PROMPT" x', ['read -p "$PROMPT" x']],
    ["read -p 'a[$x]' v", ['read -p a[$x] v']],
    ['read -rp "$PROMPT" -t "$T" x', ['read -rp "$PROMPT" -t "$T" x']],
    ['mapfile -u "$FD" -t arr', ['mapfile -u "$FD" -t arr']],
    ['printf \'%s\\n\' "$x"', ['printf %s\\n "$x"']],
    // a computed word that begins with a literal character, or a number bash sets, is no option
    ['printf "id $x\\n"', ['printf "id $x\\n"']],
    ['wait $!', ['wait $!']],
    // getopts names only its second word: the first is the option string
    ["getopts 'a[$x]' opt", ['getopts a[$x] opt']],
    ['wait -n "$!"', ['wait -n "$!"']],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })

  it.each<[string, Outcome]>([
    ['read -a "$N"', computed('read', '"$N"')],
    ['read -rp x "$N"', computed('read', '"$N"')],
    ['mapfile -t "$N"', computed('mapfile', '"$N"')],
    ['getopts ab "$N"', computed('getopts', '"$N"')],
    ['wait -p "$N"', computed('wait', '"$N"')],
    ['unset -v "$N"', computed('unset', '"$N"')],
    ['declare -r "$N"=1', computed('declare', '"$N"=1')],
    ['local +x "$N"', computed('local', '"$N"')],
    ['test -v "$N"', computed('test', '"$N"')],
  ])('the name itself computed: %j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})

// The names a builtin assigns feed the check of values that may name them (analyze.ts): any variable
// the command sets, and a value it evaluates that it does not set, make the command unknown. Words
// that are no name assign nothing (`printf %s linux` was taken to set linux), and read and mapfile
// without a name set REPLY and MAPFILE: with X=REPLY in the environment, `read <<< 'a[$(touch P)]';
// echo $((X))` created P (both failed before the fix).
describe('the names a builtin assigns', () => {
  const mayName = (name: string): Outcome => ({
    unknown: `bash evaluates the value of ${name} as arithmetic or a name, and it may name a variable the command sets`,
  })
  it.each<[string, Outcome]>([
    ['printf %s linux; echo $((OSTYPE))', ['printf %s linux', 'echo $((OSTYPE))']],
    ['read -p linux; echo $((OSTYPE))', mayName('OSTYPE')],
    ['read -r <<< 1; echo $((OSTYPE))', mayName('OSTYPE')],
    ['mapfile < /dev/null; echo $((OSTYPE))', mayName('OSTYPE')],
    ['readarray -t; echo $((OSTYPE))', mayName('OSTYPE')],
    ['read -a linux <<< 1; echo $((OSTYPE))', mayName('OSTYPE')],
    ['printf -v linux %s 1; echo $((OSTYPE))', mayName('OSTYPE')],
  ])('%j gives %j', (command, expected) => {
    expect(outcome(command)).toEqual(expected)
  })
})
