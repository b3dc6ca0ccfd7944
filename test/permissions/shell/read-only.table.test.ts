// The read-only table row by row, through readOnlyVerdict, with exact verdicts: read-only.test.ts
// matches reasons by a fragment, which cannot tell two refusals of the same command apart (`date -s`
// refused by its option check or by its operand check). Each group pairs a use the row lets through
// with the one it must refuse. Where a row is about a real program, the verdict was checked against
// it here (coreutils 9, jq 1.6, xxd 2022-01-14, ripgrep 13, net-tools hostname, bash 5).
import { describe, expect, it } from 'vitest'
import { readOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import type { ReadOnlyVerdict } from '../../../src/permissions/shell/read-only.table.js'
import { bash } from './analysis.js'

/** [command, the reason it is refused, or undefined for read-only] */
type Row = [string, string | undefined]

const expected = (reason: string | undefined): ReadOnlyVerdict =>
  reason === undefined ? { readOnly: true } : { readOnly: false, reason }

function verdicts(rows: Row[]): void {
  it.each(rows)('%j: %j', (command, reason) => {
    expect(readOnlyVerdict(command, bash())).toEqual(expected(reason))
  })
}

const SECOND_OPERAND = (name: string): string => `${name} writes its second operand (an output file)`
const LITERAL = (name: string, raw: string): string =>
  `${name}'s options are checked, so its arguments must be literal (${raw} is computed at run time)`
const RUN_TIME = (name: string, raw: string): string =>
  `${name} reads a file named at run time (${raw}), which could be a process environment`

// uniq's second operand is its output file, so the options that take a value must skip it: `uniq
// --skip-fields 1 f` reads f and prints (1 is not an operand), `uniq --skip-fields 1 f out` wrote out.
describe('uniq: the long options that take a value', () => {
  verdicts([
    ['uniq --skip-fields 1 f', undefined],
    ['uniq --skip-chars 1 f', undefined],
    ['uniq --check-chars 1 f', undefined],
    ['uniq -s 1 f', undefined],
    ['uniq --skip-fields 1 in out', SECOND_OPERAND('uniq')],
    ['uniq --check-chars=1 in out', SECOND_OPERAND('uniq')],
  ])
})

// date sets the clock by -s/--set or by an operand that is not +FORMAT. The option check must catch
// -s itself, and --set's prefixes (GNU date read `--se` as --set here: "option '--set' requires an
// argument"): with the value attached there is no operand for the second check to see.
describe('date: setting the clock', () => {
  verdicts([
    ['date -s 2020-01-01', 'date -s sets the system clock'],
    ['date --se=2020-01-01', 'date --set sets the system clock'],
    ['date --s 2020-01-01', 'date --set sets the system clock'],
    ['date 01010000', 'date with an operand other than +FORMAT sets the system clock'],
    ['date -u +%s', undefined],
  ])
})

// The wrapper analysis runs the command `command NAME` names; it leaves `command` on the table only
// when -v or -V is among its options, and bash then only prints (`command -p -V ls`: "ls is /bin/ls").
// The row accepts a first word -v, -V, -pv or -pV and refuses other spellings: that only asks.
describe('command: describing a command', () => {
  verdicts([
    ['command', undefined],
    ['command -v ls', undefined],
    ['command -V ls', undefined],
    ['command -pv ls', undefined],
    ['command -pV ls', undefined],
    ['command -p -v ls', 'command runs a command that is not analysed'],
    ['command -p -V ls', 'command runs a command that is not analysed'],
    // a cluster the row does not spell out (the analysis lets only -, p, v and V into this word)
    ['command -ppv ls', 'command runs a command that is not analysed'],
  ])
})

// jq's env and $ENV print the whole environment; `env` is that name only with no name character
// before or after it (`.myenv` and `.env_name` are fields). A program read from a file is not seen.
describe('jq: the environment and programs from files', () => {
  verdicts([
    ["jq -n '[1]|env'", 'jq env / $ENV prints the environment'],
    ["jq -n '{a: env.HOME}'", 'jq env / $ENV prints the environment'],
    ['jq .myenv f.json', undefined],
    ['jq .env_name f.json', undefined],
    ['jq -f prog.jq f', 'jq -f reads a program from a file, which is not checked'],
    ['jq --from-file prog.jq f', 'jq -f reads a program from a file, which is not checked'],
    // jq 1.6 rejects `--from-file=…` ("Unknown option"); refusing it only asks, should a jq take it
    ['jq --from-file=prog.jq f', 'jq -f reads a program from a file, which is not checked'],
  ])
})

// xxd's second operand is its output file (`echo hi | xxd - out` wrote out); `-` is an operand,
// an option is not.
describe('xxd: the output operand', () => {
  verdicts([
    ['xxd -p f', undefined],
    ['xxd -u -l 16 f', undefined],
    ['xxd - out', SECOND_OPERAND('xxd')],
    ['xxd -p in out', SECOND_OPERAND('xxd')],
  ])
})

// hostname sets the name from an operand, from -F/--file (in any cluster: `hostname -aF /missing`
// tried to read the file here) or with -b/--boot. The reason names the setting word.
describe('hostname: setting the host name', () => {
  verdicts([
    ['hostname -F /etc/hostname', 'hostname -F sets the host name'],
    ['hostname -aF /etc/hostname', 'hostname -aF sets the host name'],
    ['hostname --file /etc/hostname', 'hostname --file sets the host name'],
    ['hostname -b', 'hostname -b sets the host name'],
    ['hostname --boot', 'hostname --boot sets the host name'],
    // an operand that holds -b is a name, not the option
    ['hostname x-b', 'hostname NAME sets the host name'],
    ['hostname -A', undefined],
    ['hostname --all-fqdns', undefined],
  ])
})

// The shape of a command before its row: assignments, writing redirections, elevation. A statement
// with no command is named by its text; one that only opens a file for reading runs nothing.
describe('assignments, redirections and elevation', () => {
  verdicts([
    ['x=1', 'x=1 sets x: an assignment can change what a program does'],
    ['X=1 Y=2 ls', 'ls sets X, Y: an assignment can change what a program does'],
    ['> X', '> X writes X through >'],
    ['< in', undefined],
    ['sudo ls', 'sudo runs ls as another user'],
    ['su -c ls', 'su -c runs ls as another user'],
    ['su root -c ls', 'su -c runs ls as another user'],
  ])
})

// An input redirection's target is a glob only where it holds a glob character; a quoted one is a
// literal name (`cat < '/x/@(a)'` reads the file named @(a)), which the environ test already saw.
describe('input redirections', () => {
  verdicts([
    ["cat < '/x/@(a)'", undefined],
    ['cat < /x/../proc/self/env*', 'cat reads /x/../proc/self/env*, which could be a process environment'],
    ['cat < src/*.ts', undefined],
  ])
})

// xargs appends words read at run time, so a row that checks options or reads files cannot judge them.
describe('xargs', () => {
  verdicts([
    ['echo . | xargs find', 'xargs supplies arguments to find at run time, so they cannot be checked'],
    ['xargs cat', 'xargs supplies arguments to cat at run time, so they cannot be checked'],
    ['echo x | xargs echo', undefined],
  ])
})

// A computed argument of a row that checks options could be an option. Only a process substitution
// (it becomes /dev/fd/N) and a glob that starts with a literal character other than `-` cannot be
// one. Anything else can: with X=' -delete', `find src/*$X` deleted src/a here, with X=' -fprint out'
// `find <(ls)$X` wrote out, and `rg x *.ts` ran `cat.ts` as a preprocessor for a file named
// `--pre=cat.ts`. A tilde expands to a path, never an option.
describe('computed arguments of rows that check options', () => {
  verdicts([
    ['sort <(ls)', undefined],
    ['rg x <(ls)', undefined],
    ['find <(ls)$X', LITERAL('find', '<(ls)$X')],
    ['sort <(ls)$X', LITERAL('sort', '<(ls)$X')],
    ['find src/*$X', LITERAL('find', 'src/*$X')],
    ['rg x src/*$X', LITERAL('rg', 'src/*$X')],
    ['rg x *.ts', LITERAL('rg', '*.ts')],
    ['find *.ts', LITERAL('find', '*.ts')],
    ['rg x ./*.ts', undefined],
    ['find ./*.ts', undefined],
    ['rg x ~/src', undefined],
    ['find ~ -name x', undefined],
  ])
})

// A row that reads files must not read one named at run time (a parameter, a command or arithmetic)
// nor a glob that could reach /proc/*/environ. A literal word is what it says, even with glob
// characters quoted (`cat '/proc/self/env*'` reads the file named env*), and so is the rest of a
// word after its tilde.
describe('computed arguments of rows that read files', () => {
  verdicts([
    ['cat src/*$X', RUN_TIME('cat', 'src/*$X')],
    ['cat f$((1))', RUN_TIME('cat', 'f$((1))')],
    ['cat $(echo x)', RUN_TIME('cat', '$(echo x)')],
    ['cat /proc/self/env*', 'cat /proc/self/env* may read a process environment (/proc/*/environ)'],
    ["cat '/proc/self/env*'", undefined],
    ["cat ~/'*'", undefined],
    ["cat ~/'@(a)'", undefined],
    ['cat src/*.ts', undefined],
  ])
})

// Each of these read the environment past the jq row (found by the mutation survivors; failed before
// the fix). jq 1.6 finds a short option's letter anywhere in a cluster, so `-nrf prog.jq` reads its
// program from prog.jq (holding `env.FOO`, `FOO=secret jq -nrf prog.jq` printed secret); it lexes `$`
// and `ENV` as two tokens, so `$ ENV` (or `$#…\nENV`) is $ENV; and `import "m" as m;`, `include "m";`
// run a module m.jq from the working directory or a -L path, which the row never sees.
describe('jq programs that reach the environment unseen', () => {
  it.each([
    'jq -nrf prog.jq',
    "jq -n '$ ENV.FOO'",
    `jq -n 'import "m" as m; m::f'`,
    `jq -n -L . 'include "m"; f'`,
    "jq -n '$#c\nENV.FOO'",
    'jq -nL. .',
    'jq --library-path . -n .',
  ])('%j is not read-only', (command) => {
    expect(readOnlyVerdict(command, bash()).readOnly).toBe(false)
  })
})

// xxd stops reading options at its first operand (failed before the fix) and takes the next word as the output file
// whatever it looks like; the row counts only words that do not start with `-`. `xxd f -p` and
// `xxd f -c` wrote (truncating) files named -p and -c here.
describe('xxd writes an output file that looks like an option', () => {
  it.each(['xxd f -p', 'xxd f -c', 'xxd -- f -p', 'xxd --cols 8 f -p'])('%j is not read-only', (command) => {
    expect(readOnlyVerdict(command, bash()).readOnly).toBe(false)
  })
})
