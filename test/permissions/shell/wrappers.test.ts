// The wrappers' own knowledge, one program at a time: every option each wrapper has (so that a
// command behind it is still found), the options that make it run nothing, where its options end,
// and the reason it names when it cannot be read. test/permissions/shell/analyze.test.ts has the
// common cases; the attack suite drives the same through a real kernel and shell.
import { describe, expect, it } from 'vitest'
import { analysis, known, line } from './analysis.js'

describe('each option a wrapper has still finds the command behind it', () => {
  // [wrapper, its options as written]: `<wrapper> <option> rm x` runs `rm x` via the wrapper.
  const options: Array<[string, string[]]> = [
    ['env', ['-i', '-0', '-v', '-u HOME', '-uHOME', '-C /tmp', '--ignore-environment', '--null', '--debug']],
    ['env', ['--list-signal-handling', '--unset=HOME', '--unset HOME', '--chdir /tmp', '--chdir=/tmp']],
    ['env', ['--default-signal', '--default-signal=INT', '--ignore-signal=INT', '--block-signal', '-', '--']],
    ['command', ['-p', '--']],
    ['builtin', ['--']],
    ['exec', ['-c', '-l', '-cl', '-a name', '-aname']],
    ['nohup', ['--']],
    ['setsid', ['-c', '-f', '-w', '-cfw', '--ctty', '--fork', '--wait', '--']],
    ['timeout 5', []],
    ['timeout', ['-v 5', '-s KILL 5', '-sKILL 5', '-k 3 5', '--preserve-status 5', '--foreground 5']],
    ['timeout', ['--verbose 5', '--signal=KILL 5', '--signal KILL 5', '--kill-after=3 5', '--kill 3 5']],
    ['nice', ['-5', '-19', '-n 5', '-n5', '--adjustment=3', '--adjustment 3', '--adj=3', '--']],
    ['ionice', ['-t', '-c 2', '-c2', '-n 7', '--ignore', '--class 2', '--class=2', '--classdata 4', '-t -c 3']],
    ['stdbuf', ['-i0', '-o L', '-oL', '-e 0', '--input=0', '--output L', '--error=0']],
    ['xargs', ['-0', '-r', '-t', '-p', '-x', '-o', '-a f', '-E END', '-I {}', '-L 2', '-n 1', '-P 4', '-s 99']],
    ['xargs', ['-d ,', '--null', '--no-run-if-empty', '--verbose', '--interactive', '--exit', '--open-tty']],
    ['xargs', ['--arg-file=f', '--delimiter ,', '--max-args 1', '--max-procs=2', '--max-chars 99']],
    ['xargs', ['--process-slot-var=N', '--eof', '--eof=END', '--replace', '--replace=R', '--max-lines=3']],
    ['xargs', ['-e', '-eEND', '-i', '-iR', '-l', '-l3']],
    ['sudo', ['-A', '-b', '-E', '-H', '-k', '-n', '-P', '-S', '-AbEH', '-u root', '-uroot', '-g wheel']],
    ['sudo', ['-C 3', '-D /tmp', '-h host', '-p prompt', '-r role', '-t type', '-T 5', '-U other', '-R /']],
    ['sudo', ['--askpass', '--background', '--set-home', '--reset-timestamp', '--non-interactive']],
    ['sudo', ['--preserve-groups', '--stdin', '--user=root', '--group wheel', '--close-from=3']],
    ['sudo', ['--chdir /tmp', '--host=h', '--prompt p', '--role=r', '--type t', '--command-timeout=5']],
    ['sudo', ['--other-user u', '--chroot=/', '--preserve-env', '--preserve-env=PATH']],
    ['time', ['-p', '-v', '-q', '-f %e', '--portability', '--verbose', '--quiet', '--format=%e', '--format %e']],
    ['watch', ['-x', '-x -b', '-x -c', '-x -C', '-x -d', '-x -e', '-x -g', '-x -p', '-x -t', '-x -w', '-x -r']],
    ['watch', ['-x -n 1', '-x -q 2', '--exec', '--exec --beep', '--exec --color', '--exec --no-color']],
    ['watch', ['--exec --errexit', '--exec --chgexit', '--exec --precise', '--exec --no-title']],
    ['watch', ['--exec --no-wrap', '--exec --no-rerun', '--exec --interval=1', '--exec --equexit 2']],
    ['watch', ['--exec --differences', '--exec --differences=permanent']],
  ]
  const rows = options.flatMap(([wrapper, given]) =>
    (given.length === 0 ? [''] : given).map((option): [string, string] => [
      `${wrapper} ${option}`.trim(),
      wrapper.split(' ')[0] ?? '',
    ]),
  )
  it.each(rows)('"%s rm x" runs rm x via %s', (prefix, via) => {
    // xargs runs the command with the words it reads; the command itself is the same.
    const commands = known(`${prefix} rm x`)
    expect(commands.map(line)).toEqual(['rm x'])
    expect(commands[0]?.via).toEqual([via])
  })
})

describe('the options that make a wrapper run nothing', () => {
  const selves = [
    'env',
    'env -i',
    'env A=1 B=2',
    'command -v rm',
    'command -V rm',
    'builtin --help',
    'nohup --help',
    'nohup --version',
    'setsid -h',
    'setsid -V',
    'setsid --help',
    'setsid --version',
    'timeout --help',
    'timeout --version',
    'timeout',
    'timeout 5',
    'nice',
    'nice --help',
    'nice --version',
    'nice -n 5',
    'ionice',
    'ionice -p 42',
    'ionice -P 42 rm',
    'ionice -u 1000 rm',
    'ionice --pid 42 rm',
    'ionice --pgid=42 rm',
    'ionice --uid 1000 rm',
    'ionice --help',
    'ionice --version',
    'stdbuf --help',
    'stdbuf --version rm',
    'xargs --help',
    'xargs --version',
    'xargs --show-limits',
    'sudo',
    'sudo -u root',
    'sudo A=1',
    'time',
    'watch',
    'watch -n 1',
    'find . -name x',
  ]
  it.each(selves)('%j is the command itself', (command) => {
    expect(known(command).map(line)).toEqual([command])
  })
})

describe('a wrapper reads its own options before the command, none after it', () => {
  // [command, what runs, via the last of them]
  const rows: Array<[string, string[], string[]]> = [
    ["nohup sh -c 'rm x' --help", ['rm x'], ['nohup', 'sh -c']],
    ['nohup rm x --version', ['rm x --version'], ['nohup']],
    ['setsid rm x --help', ['rm x --help'], ['setsid']],
    ['setsid rm -V', ['rm -V'], ['setsid']],
    ['builtin echo --help', ['echo --help'], ['builtin']],
    ['command rm -v x', ['rm -v x'], ['command']],
    ['nice rm --help', ['rm --help'], ['nice']],
    ['timeout 5 rm --version', ['rm --version'], ['timeout']],
    ['stdbuf -oL rm --help', ['rm --help'], ['stdbuf']],
    ['ionice -c 2 rm -p 1', ['rm -p 1'], ['ionice']],
    ['xargs rm --help', ['rm --help'], ['xargs']],
    ['time rm -p', ['rm -p'], ['time']],
    ['sudo rm -u x', ['rm -u x'], ['sudo']],
    ['env rm -i', ['rm -i'], ['env']],
    ['exec rm -a x', ['rm -a x'], ['exec']],
    ['noglob rm *', ['rm *'], ['noglob']],
    ['nocorrect rm x', ['rm x'], ['nocorrect']],
    ['noglob -- rm x', ['rm x'], ['noglob']],
    // nice -N is only an adjustment as the first word, written as digits.
    ['nice a-1 b', ['a-1 b'], ['nice']],
    ['nice rm -5', ['rm -5'], ['nice']],
    // -e, -i and -l take an argument only when it is attached; the next word is the command.
    ['xargs -l 5 rm', ['5 rm'], ['xargs']],
    ['xargs -i rm {}', ['rm {}'], ['xargs']],
    ['xargs -e rm', ['rm'], ['xargs']],
    // find's `+` ends -exec only after `{}`.
    ['find . -exec echo + {} \\;', ['find . -exec echo + {} ;', 'echo + {}'], ['find -exec']],
    ['find . -execdir rm {} +', ['find . -execdir rm {} +', 'rm {}'], ['find -exec']],
    ['find . -ok rm {} \\;', ['find . -ok rm {} ;', 'rm {}'], ['find -exec']],
    ['find . -okdir rm {} \\;', ['find . -okdir rm {} ;', 'rm {}'], ['find -exec']],
    ['find . -exec ls \\; -name x', ['find . -exec ls ; -name x', 'ls'], ['find -exec']],
  ]
  it.each(rows)('%j runs %j', (command, expected, via) => {
    const commands = known(command)
    expect(commands.map(line)).toEqual(expected)
    expect(commands.at(-1)?.via).toEqual(via)
  })
})

describe('what a wrapper adds to the command', () => {
  it('env and sudo pass their assignments on, a computed value as written', () => {
    expect(known('env A=1 B="$X" C=\'a=b\' rm x')[0]?.assignments).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '"$X"' },
      { name: 'C', value: 'a=b' },
    ])
    expect(known('sudo -u root A=1 rm x')[0]?.assignments).toEqual([{ name: 'A', value: '1' }])
    expect(known('env -i rm x')[0]?.assignments).toEqual([])
  })

  it('xargs runs echo when given no command, with the words it reads', () => {
    const [echo] = known('xargs -0')
    expect(echo && line(echo)).toBe('echo')
    expect(echo?.openArgs).toBe(true)
    expect(known('xargs -n1 rm')[0]?.openArgs).toBe(true)
    expect(known('timeout 5 rm')[0]?.openArgs).toBe(false)
  })

  it('watch runs its words as one shell command line', () => {
    expect(known('watch -n 1 ls -l "a b"').map(line)).toEqual(['ls -l a b'])
    expect(known('watch ls "| rm x"').map(line)).toEqual(['ls', 'rm x'])
  })
})

describe('a wrapper that cannot be read is unknown, and says why', () => {
  // Each names itself: the reason is what the model and the app read.
  const wrappers = [
    'env',
    'command',
    'builtin',
    'exec',
    'nohup',
    'setsid',
    'timeout',
    'nice',
    'ionice',
    'stdbuf',
    'xargs',
    'sudo',
    'time',
    'watch',
    'noglob',
    'nocorrect',
  ]
  it.each(wrappers)('%s -Z rm: an option it does not have', (wrapper) => {
    expect(analysis(`${wrapper} -Z rm`)).toMatchObject({
      kind: 'unknown',
      reason: `${wrapper}: option -Z is not understood`,
    })
  })

  // [command, reason]
  const rows: Array<[string, string]> = [
    ['env -S "rm x"', 'env -S splits a string into a command line, which is not analysed'],
    ['env --split-string="rm x"', 'env -S splits a string into a command line, which is not analysed'],
    ['nohup --bogus rm', 'nohup: option --bogus is not understood'],
    ['setsid --ctty=x rm', 'setsid: option --ctty takes no value'],
    ['timeout $T rm', 'an option of timeout is computed at run time ($T)'],
    ['nice -5x rm', 'nice: option -5 is not understood'],
    ['nice -n $N rm', 'an option of nice is computed at run time ($N)'],
    ['xargs -i$R rm', 'an option of xargs is computed at run time (-i$R)'],
    ['xargs -l$N rm', 'an option of xargs is computed at run time (-l$N)'],
    ['watch ls "$X"', 'the command watch runs is computed at run time ("$X")'],
    ['find . -execdir rm {}', "find -execdir has no terminating ';' or '+'"],
    ['find . -exec rm +', "find -exec has no terminating ';' or '+'"],
    ['exec', 'exec without a command changes the shell itself (its descriptors)'],
    ['exec -c', 'exec without a command changes the shell itself (its descriptors)'],
  ]
  it.each(rows)('%j: %s', (command, reason) => {
    expect(analysis(command)).toMatchObject({ kind: 'unknown', reason })
  })
})
