import { describe, expect, it } from 'vitest'
import { analyzeShell, MAX_SOURCE_LENGTH } from '../../../src/permissions/shell/analyze.js'
import { analysis, known, line } from './analysis.js'

/** Each command as `name arg…`, in the order found. */
function lines(command: string): string[] {
  return known(command).map(line)
}

describe('analyzeShell: separators and structure', () => {
  // [command, the simple commands it runs]
  const rows: Array<[string, string[]]> = [
    ['ls\ntouch X', ['ls', 'touch X']],
    ['echo a#b; touch X', ['echo a#b', 'touch X']],
    ['ls # $(rm x)', ['ls']],
    ['# one\n# two\necho removing\nrm -rf /tmp/t\necho done', ['echo removing', 'rm -rf /tmp/t', 'echo done']],
    ['a && b || c', ['a', 'b', 'c']],
    ['a | b |& c', ['a', 'b', 'c']],
    ['a & b', ['a', 'b']],
    ['a;b;c', ['a', 'b', 'c']],
    ['(rm x)', ['rm x']],
    ['{ rm x; }', ['rm x']],
    ['(ls | grep x && cat f) || rm f', ['ls', 'grep x', 'cat f', 'rm f']],
    ['! rm x', ['rm x']],
    ['if true; then rm x; fi', ['true', 'rm x']],
    ['if a\nthen b\nelif c; then d\nelse e\nfi', ['a', 'b', 'c', 'd', 'e']],
    ['while read l; do rm "$l"; done < f', ['read l', 'rm "$l"']],
    ['until false; do rm x; done', ['false', 'rm x']],
    ['for f in *; do rm "$f"; done', ['rm "$f"']],
    ['for ((i=0; i<3; i++)); do echo $i; done', ['echo $i']],
    ['select x in a b; do rm $x; done', ['rm $x']],
    ['case $x in a|b) rm x;; *) ls;; esac', ['rm x', 'ls']],
    ['f() { rm x; }; f', ['rm x', 'f']],
    ['function g { rm x; }', ['rm x']],
    ['f() ( rm y )', ['rm y']],
    ['echo $(rm x)', ['rm x', 'echo $(rm x)']],
    ['echo `rm x`', ['rm x', 'echo `rm x`']],
    ['echo "$(rm z)"', ['rm z', 'echo "$(rm z)"']],
    ['echo `echo \\`rm n\\``', ['rm n', 'echo `rm n`', 'echo `echo \\`rm n\\``']],
    ['cat <(rm x)', ['rm x', 'cat <(rm x)']],
    ['tee >(rm y)', ['rm y', 'tee >(rm y)']],
    ['diff <(ls dir1) <(ls dir2)', ['ls dir1', 'ls dir2', 'diff <(ls dir1) <(ls dir2)']],
    ['x=$(rm y)', ['rm y', '']],
    ['a=(1 $(rm x) 3)', ['rm x', '']],
    ['X=$(rm a) Y=2 ls', ['rm a', 'ls']],
    ['echo ${x//a/$(rm y)}', ['rm y', 'echo ${x//a/$(rm y)}']],
    ['[[ $x =~ $(rm a) ]] && ls', ['rm a', 'ls']],
    ['cat <<< "$(rm h)"', ['rm h', 'cat']],
    ['cat <<EOF\n$(rm x)\nEOF', ['cat', 'rm x']],
    ['cat <<EOF\n`rm y` and \\`not this\\`\nEOF', ['cat', 'rm y']],
    ["cat <<'EOF'\n$(rm z) `rm w`\nEOF", ['cat']],
    ['cat <<"EOF"\n$(rm z)\nEOF', ['cat']],
    ['cat <<EOF && rm x\nbody\nEOF', ['cat', 'rm x']],
    ['echo $((1 + 2))', ['echo $((1 + 2))']],
    ['local a=$(rm x) b', ['rm x', 'local b']],
    ['export PATH=/x:$PATH', ['export']],
    ['unset x', ['unset x']],
    ['echo ok \\\n  more', ['echo ok more']],
    // next to a blank a backslash-newline only separates words, as the grammar reads it
    ['foo\\\n bar', ['foo bar']],
    ['\\\nrm x', ['rm x']],
    ['ls \\\\\nrm x', ['ls \\', 'rm x']],
    ['# c\\\nrm x', ['rm x']],
    ['ls > f a b', ['ls a b']],
    ['echo "$(<f)"', ['', 'echo "$(<f)"']],
  ]
  it.each(rows)('%j runs %j', (command, expected) => {
    expect(lines(command)).toEqual(expected)
  })
})

describe('analyzeShell: words', () => {
  // [command, name, args]
  const rows: Array<[string, string, string[]]> = [
    ['"r"m x', 'rm', ['x']],
    ['\\rm x', 'rm', ['x']],
    ['r\\m x', 'rm', ['x']],
    ["'rm' -f 'a b'", 'rm', ['-f', 'a b']],
    ['r""m x', 'rm', ['x']],
    ["$'\\x72m' x", 'rm', ['x']],
    ["$'r\\155' x", 'rm', ['x']],
    ["echo $'a\\tb'", 'echo', ['a\tb']],
    ['echo "a \\"b\\" \\$c \\d"', 'echo', ['a "b" $c \\d']],
    ['echo "a \\$(rm d)"', 'echo', ['a $(rm d)']],
    ['/bin/rm -f x', 'rm', ['-f', 'x']],
    ['/usr/bin/env', 'env', []],
    ['./x arg', './x', ['arg']],
    ['bin/rm', 'bin/rm', []],
    ['~/bin/tool', 'tool', []],
    ["echo 'rm is not a command'", 'echo', ['rm is not a command']],
  ]
  it.each(rows)('%j is %s with %j', (command, name, args) => {
    const [first] = known(command)
    expect(first?.name).toBe(name)
    expect(first?.args).toEqual(args)
  })

  // Quoting as bash reads it (each row checked against bash 5's own printf '%s\n' of the words).
  const quoting: Array<[string, string[]]> = [
    ["echo $'a\\c' $'\\q'", ['a\\c', '\\q']],
    ["echo $'\\cA' $'\\ca'", ['\u0001', '\u0001']],
    ["echo $'\\U0001F600'", ['😀']],
    ["echo $'a\\0b' $'a\\x00b'", ['a', 'a']],
    ["echo $'\\101' $'\\1012' $'\\x414' $'\\u00414'", ['A', 'A2', 'A4', 'A4']],
    ["echo $'a\\'b' $'\\e' $'\\E'", ["a'b", '\u001b', '\u001b']],
    ['echo "a\\\nb"', ['ab']],
    ['echo "a\\qb" "a$" "$" "a\\$b"', ['a\\qb', 'a$', '$', 'a$b']],
    ["echo 'a\\\nb' $'a\\\nb'", ['a\\\nb', 'a\\\nb']],
  ]
  it.each(quoting)('%j has the words %j', (command, args) => {
    expect(known(command)[0]?.args).toEqual(args)
  })

  it('refuses an escape out of the range of Unicode', () => {
    expect(analysis("echo $'\\U110000'")).toMatchObject({
      kind: 'unknown',
      reason: "the escape \\U110000 in $'…' is out of range",
    })
  })

  // [word, the expansions bash would make of it]
  const expansions: Array<[string, string[]]> = [
    ['~/x', ['tilde']],
    ['a~', []],
    ['{a,b}', ['brace']],
    ['{1..3}', ['brace']],
    ['{a}', []],
    ['x?', ['glob']],
    ['[ab]', ['glob']],
    ['x', []],
  ]
  it.each(expansions)('%j expands as %j', (word, kinds) => {
    expect(known(`echo ${word}`)[0]?.argExpansions).toEqual([kinds])
  })

  it('keeps the original text of a path', () => {
    expect(known('/bin/rm -f x')[0]?.text).toBe('/bin/rm -f x')
  })

  // [command, dynamic?]
  const dynamic: Array<[string, boolean]> = [
    ['rm $HOME/x', true],
    ['rm *', true],
    ['echo {a,b}', true],
    ['echo x{1..3}', true],
    ['echo $(date)', true],
    ['echo ~/x', false],
    ['echo "literal"', false],
    ["grep -e '*'", false],
  ]
  it.each(dynamic)('%j has dynamic arguments: %s', (command, expected) => {
    expect(known(command).at(-1)?.dynamic).toBe(expected)
  })
})

describe('analyzeShell: redirections and assignments', () => {
  it('reads operators, targets and descriptors', () => {
    const [cmd] = known('ls > out 2>&1 >> b &> c 2>/dev/null < in')
    expect(cmd?.redirects).toEqual([
      { op: '>', target: 'out' },
      { op: '>&', target: '1', fd: 2 },
      { op: '>>', target: 'b' },
      { op: '&>', target: 'c' },
      { op: '>', target: '/dev/null', fd: 2 },
      { op: '<', target: 'in' },
    ])
  })

  it('applies a group redirection to every command in it', () => {
    expect(known('{ ls; pwd; } > out').map((cmd) => cmd.redirects)).toEqual([
      [{ op: '>', target: 'out' }],
      [{ op: '>', target: 'out' }],
    ])
  })

  it('keeps a redirection on a statement that runs nothing', () => {
    expect(known('[[ -f x ]] > out; ls')[0]).toMatchObject({ name: '', redirects: [{ op: '>', target: 'out' }] })
  })

  it('records prefix assignments', () => {
    expect(known('X=1 Y="a b" rm x')[0]?.assignments).toEqual([
      { name: 'X', value: '1' },
      { name: 'Y', value: 'a b' },
    ])
  })

  // A statement with no command word still opens its targets: `> X` creates or truncates X.
  const bare: Array<[string, Array<{ op: string; target: string; fd?: number }>]> = [
    ['> X', [{ op: '>', target: 'X' }]],
    ['>>X', [{ op: '>>', target: 'X' }]],
    ['2>X', [{ op: '>', target: 'X', fd: 2 }]],
    ['&>X', [{ op: '&>', target: 'X' }]],
    [
      '< in > out',
      [
        { op: '<', target: 'in' },
        { op: '>', target: 'out' },
      ],
    ],
    ['>X; ls', [{ op: '>', target: 'X' }]],
    ['{ >X; }', [{ op: '>', target: 'X' }]],
    ['>X | cat', [{ op: '>', target: 'X' }]],
  ]
  it.each(bare)('reports %j as a command with no name and its redirections', (command, redirects) => {
    expect(known(command)[0]).toMatchObject({ name: '', args: [], redirects })
  })

  it('analyses the command in a variable that holds one', () => {
    expect(lines("GIT_EDITOR='rm -rf x' git commit")).toEqual(['rm -rf x', 'git commit'])
    expect(known("GIT_EDITOR='rm -rf x' git commit")[0]?.via).toEqual(['GIT_EDITOR='])
  })
})

describe('analyzeShell: wrappers', () => {
  // [command, inner command, via]
  const rows: Array<[string, string, string[]]> = [
    ["bash -c 'rm -rf x'", 'rm -rf x', ['bash -c']],
    ['bash -lc "rm x"', 'rm x', ['bash -c']],
    ['bash -ec -- "rm x"', 'rm x', ['bash -c']],
    ['bash -o pipefail -c "rm x"', 'rm x', ['bash -c']],
    ['sh -c \'rm "$1"\' _ x', 'rm "$1"', ['sh -c']],
    ['dash -c "rm x"', 'rm x', ['dash -c']],
    ["zsh -lc 'rm x'", 'rm x', ['zsh -c']],
    ['bash -c "bash -c \'rm x\'"', 'rm x', ['bash -c', 'bash -c']],
    ['env rm', 'rm', ['env']],
    ['env -i A=1 rm x', 'rm x', ['env']],
    ['env -u HOME -C /tmp rm x', 'rm x', ['env']],
    ['/usr/bin/env -i /bin/rm -f x', 'rm -f x', ['env']],
    ['command rm x', 'rm x', ['command']],
    ['command -p rm x', 'rm x', ['command']],
    ['builtin echo hi', 'echo hi', ['builtin']],
    ['exec rm x', 'rm x', ['exec']],
    ['exec -a name rm x', 'rm x', ['exec']],
    ['nohup rm x &', 'rm x', ['nohup']],
    ['timeout 5 rm', 'rm', ['timeout']],
    ['timeout -s KILL -k 3 5s rm x', 'rm x', ['timeout']],
    ['timeout --sig=KILL 5 rm', 'rm', ['timeout']],
    ['nice -n 5 rm', 'rm', ['nice']],
    ['nice -5 rm', 'rm', ['nice']],
    ['nice --adjustment=3 rm', 'rm', ['nice']],
    ['ionice -c 2 -n 7 rm x', 'rm x', ['ionice']],
    ['stdbuf -oL rm x', 'rm x', ['stdbuf']],
    ['stdbuf -o L -e 0 rm x', 'rm x', ['stdbuf']],
    ['xargs rm', 'rm', ['xargs']],
    ['xargs -0 -n1 -P 4 rm -f', 'rm -f', ['xargs']],
    ['xargs -I{} rm {}', 'rm {}', ['xargs']],
    ['xargs', 'echo', ['xargs']],
    ['sudo -u root rm', 'rm', ['sudo']],
    ['sudo -E -H rm x', 'rm x', ['sudo']],
    ['time rm x', 'rm x', ['time']],
    ['time -p rm x', 'rm x', ['time']],
    ['watch -x rm x', 'rm x', ['watch']],
    ['nocorrect rm x', 'rm x', ['nocorrect']],
    ['su -c "rm x" root', 'rm x', ['su -c']],
    ['sudo env PATH=/x nice rm x', 'rm x', ['sudo', 'env', 'nice']],
    ['xargs -I{} sh -c "rm {}"', 'rm {}', ['xargs', 'sh -c']],
  ]
  it.each(rows)('%j runs %j via %j', (command, inner, via) => {
    const commands = known(command)
    expect(commands.map((cmd) => [cmd.name, ...cmd.args].join(' '))).toEqual([inner])
    expect(commands[0]?.via).toEqual(via)
  })

  it('yields find itself and the command -exec runs', () => {
    expect(lines('find . -name "*.ts" -exec rm {} + -exec ls {} \\;')).toEqual([
      'find . -name *.ts -exec rm {} + -exec ls {} ;',
      'rm {}',
      'ls {}',
    ])
  })

  it('runs each command of a watch string', () => {
    expect(lines('watch -n 1 "rm x | wc"')).toEqual(['rm x', 'wc'])
  })

  it('marks the arguments xargs appends', () => {
    expect(known('xargs rm')[0]?.openArgs).toBe(true)
    expect(known('rm x')[0]?.openArgs).toBe(false)
  })

  it('records the wrapper lines for deny rules', () => {
    expect(known('sudo -u root rm x')[0]?.wrapperLines).toEqual(['sudo -u root rm x'])
  })

  // Wrappers that run nothing this time are the command themselves.
  const selves: Array<[string, string]> = [
    ['env', 'env'],
    ['env -i', 'env -i'],
    ['command -v rm', 'command -v rm'],
    ['nice', 'nice'],
    ['ionice -p 42', 'ionice -p 42'],
    ['bash script.sh', 'bash script.sh'],
    ['find . -name x', 'find . -name x'],
    ['timeout --help', 'timeout --help'],
  ]
  it.each(selves)('%j is the command %j', (command, line) => {
    expect(lines(command)).toEqual([line])
  })
})

describe('analyzeShell: git configuration given on the command line', () => {
  // [command, the simple commands it runs, the wrappers of the last one]
  const rows: Array<[string, string[], string[]]> = [
    ["git -c alias.x='!rm V' x", ['git -c alias.x=!rm V x', 'rm V'], ['git -c alias']],
    ["git -c alias.x='!rm' x V 'a b'", ['git -c alias.x=!rm x V a b', 'rm V a b'], ['git -c alias']],
    ["git -c Alias.X='!rm' x V", ['git -c Alias.X=!rm x V', 'rm V'], ['git -c alias']],
    [
      "git -C repo -c alias.x='!rm V && ls' x",
      ['git -C repo -c alias.x=!rm V && ls x', 'rm V', 'ls'],
      ['git -c alias'],
    ],
    ["git -c alias.y='!rm W' x", ['git -c alias.y=!rm W x', 'rm W'], ['git -c alias']],
    ["git -c core.pager='rm V' log", ['git -c core.pager=rm V log', 'rm V'], ['git -c core.pager']],
    ["git -c core.sshCommand='rm V' fetch", ['git -c core.sshCommand=rm V fetch', 'rm V'], ['git -c core.sshcommand']],
    ["git -c core.editor='rm V' commit", ['git -c core.editor=rm V commit', 'rm V'], ['git -c core.editor']],
    [
      "git -c sequence.editor='rm V' rebase -i",
      ['git -c sequence.editor=rm V rebase -i', 'rm V'],
      ['git -c sequence.editor'],
    ],
    ["env git -c alias.x='!rm V' x", ['git -c alias.x=!rm V x', 'rm V'], ['env', 'git -c alias']],
    ['git -c color.ui=always log', ['git -c color.ui=always log'], []],
    ['git -c user.name=a -c user.email=b commit -m x', ['git -c user.name=a -c user.email=b commit -m x'], []],
    ['git -c core.quotepath=off status', ['git -c core.quotepath=off status'], []],
    ['git -C "$DIR" status', ['git -C "$DIR" status'], []],
    ['git log -c', ['git log -c'], []],
  ]
  it.each(rows)('%j runs %j', (command, expected, via) => {
    const commands = known(command)
    expect(commands.map((cmd) => [cmd.name, ...cmd.args].join(' '))).toEqual(expected)
    expect(commands.at(-1)?.via).toEqual(via)
  })

  // [command, a fragment of the reason]
  const unknowns: Array<[string, RegExp]> = [
    ['git -c alias.x=push x', /alias x expands to git arguments/],
    ['git -c alias.x x', /alias x expands to git arguments/],
    ['git -c core.fsmonitor=./evil status', /core\.fsmonitor/],
    ['git -c include.path=./evil log', /include\.path/],
    ['git -c diff.external=./evil diff', /diff\.external/],
    ['git -c filter.x.clean=./evil add f', /filter\.x\.clean/],
    ['git -c credential.helper=./evil fetch', /credential\.helper/],
    ['git --config-env=alias.x=E x', /--config-env/],
    ['git --config-env alias.x=E x', /--config-env/],
    ['git --config-env=core.pager=P log', /--config-env/],
    ['git -c "$C" log', /computed at run time/],
    ['git $OPTS log', /computed at run time/],
    ['git -C $DIR log', /computed at run time/],
    ['git --exec-path=/tmp/x log', /--exec-path/],
    ["git -c alias.x='!$CMD' x", /computed at run time|alias/],
    ["git -c alias.x='!eval rm' x", /eval/],
  ]
  it.each(unknowns)('%j is unknown (%s)', (command, reason) => {
    const result = analysis(command)
    expect(result.kind).toBe('unknown')
    if (result.kind === 'unknown') expect(result.reason).toMatch(reason)
  })
})

describe('analyzeShell: unknown', () => {
  // [command, a fragment of the reason]
  const rows: Array<[string, RegExp]> = [
    ['{rm,-f,x}', /does not parse.*brace/],
    ['rm${IFS}-f${IFS}x', /computed at run time/],
    ['$CMD', /computed at run time/],
    ['${X}', /computed at run time/],
    ['$(echo rm) x', /computed at run time/],
    ['"$x" y', /computed at run time/],
    ['r? x', /computed at run time/],
    ['""', /empty/],
    ['', /empty/],
    ['   ', /empty/],
    ['# only a comment', /runs nothing/],
    ['\n\n# two\n# comments\n', /runs nothing/],
    ['eval rm x', /eval/],
    ['source ./x.sh', /source/],
    ['. ./x.sh', /source/],
    ['exec', /exec without a command/],
    ['exec 2>&1', /exec without a command/],
    ['alias ls=rm', /alias/],
    ['trap "rm x" EXIT', /trap/],
    ['coproc rm x', /coproc/],
    ['let x=1', /let/],
    ['declare -i n=1', /-i/],
    ['declare -n r=PS4', /-n/],
    ['hash -p /bin/rm ls', /hash -p/],
    ['mapfile -C "rm x" arr < f', /callback/],
    ['enable -f ./lib.so x', /shared library/],
    ['bash -c "$X"', /computed at run time/],
    ['sh -c', /no command string/],
    ['sh', /standard input/],
    ['cat f | sh', /standard input/],
    ['bash -s < script', /standard input/],
    ['env -S "rm x"', /-S/],
    ['sudo -i rm', /-i/],
    ['su root', /su without -c/],
    ['nice -n $N rm', /computed at run time/],
    ['timeout $T rm', /computed at run time/],
    ["zsh -c 'ls *(e:rm:)'", /zsh/],
    ['find . -exec rm {}', /terminating/],
    ['PS4="\\$(rm x)" bash -xc ls', /PS4/],
    ['BASH_ENV=./evil bash -c ls', /BASH_ENV/],
    ['env BASH_FUNC_ls%%="() { rm; }" bash -c ls', /BASH_FUNC_/],
    ['LD_PRELOAD=./x.so ls', /LD_PRELOAD/],
    ['GIT_EDITOR="$E" git commit', /computed at run time/],
    ['x="a[\\$(rm x)]"; echo $((x))', /evaluates the value of x/],
    ['x="a[\\$(rm y)]"; echo $[x]', /evaluates the value of x/],
    ['read n; echo $((n))', /evaluates the value of n/],
    ['for n in $(cat f); do [[ $n -eq 1 ]]; done', /evaluates the value of n/],
    ['x=PS1; echo ${!x}', /evaluates the value of x/],
    ['echo "${v=aa\\140touch X\\140}${v@P}"', /prompt string/],
    ['echo ${HOME@P}', /prompt string/],
    ['cat <<E\n${PS1@P}\nE', /prompt string/],
    ['[[ $a =~ ^${x@P}$ ]]', /the parser did not read/],
    ['cat <<E\nx $[y]\nE', /the parser did not read/],
    ['echo "${v=$(cat f)}" $((v))', /evaluates the value of v/],
    ['echo ${v:=$(cat f)} $((v))', /evaluates the value of v/],
    ['echo "${a[1]=$(cat f)}" $((a))', /evaluates the value of a/],
    ["echo 'a[$(rm x)]' >/dev/null; echo $((_))", /value of _/],
    ["echo 'a[$(rm x)]' >/dev/null; echo $(($_))", /value of _/],
    ["[[ 'a[$(rm x)]' =~ .* ]]; echo $((BASH_REMATCH))", /value of BASH_REMATCH/],
    ["read <<< 'a[$(rm x)]'; echo $((REPLY))", /value of REPLY/],
    ["set -- 'a[$(rm x)]'; echo $(($1))", /value of 1/],
    ["f() { echo $((${1})); }; f 'a[$(rm x)]'", /value of 1/],
    ['echo $(($@))', /value of @/],
    ["hBc='a[$(rm x)]'; echo $(($-))", /value of -/],
    ["x=('a[$(rm y)]'); echo ${!x[0]}", /evaluates the value of x/],
    ["x=('a[$(rm y)]'); echo $(( ${x[0]} ))", /evaluates the value of x/],
    ["y='a[$(rm x)]'; echo $(( ${z:-y} ))", /evaluates the value of y/],
    ['echo ${!1}', /value of 1/],
    ["echo $(( '$(rm x)' ))", /the parser did not read/],
    ["(( '$(rm x)' ))", /the parser did not read/],
    ["echo $[ '$(rm x)' ]", /the parser did not read/],
    ["echo ${a['$(rm x)']}", /the parser did not read/],
    ['echo "${y:-\'$(rm x)\'}"', /the parser did not read/],
    ["[[ 'a[$(rm x)]' -eq 1 ]]", /the parser did not read/],
    ["i='b[$(rm x)]'; [[ -v a[i] ]]", /evaluates the value of i/],
    ["i='b[$(rm x)]'; read 'a[i]' <<< 1", /evaluates the value of i/],
    ['read "a[\\$(rm x)]"', /subscript/],
    ['printf -v "a[\\$(rm x)]" %s 1', /subscript/],
    ['echo $"hello"', /\$"/],
    ['ls $(', /does not parse/],
    ['echo "unterminated', /does not parse/],
    ['ls &&', /does not parse/],
    ['cat 3<> f', /does not parse/],
    ['ls file?(pat).txt', /does not parse/],
    ['cat <<EOF\n$(rm x\nEOF', /does not parse|substitution/],
    ['cat <<EOF\n`rm x\nEOF', /unclosed backquote/],
    ['! while false; do rm x; done', /reserved word while/],
    ['! if true; then rm x; fi', /reserved word if/],
    ['! { rm x; }', /reserved word \{/],
    ['time while false; do rm x; done', /reserved word while/],
    ['echo && ! ! rm x', /reserved word !/],
    ['ls\n\\rm x', /line break/],
    ['ls; ls \n\\rm x', /line break/],
    ['ls | ls |& ls\nrm x > /dev/null', /joined two lines/],
    // A backslash-newline glued to words on both sides is one word to bash, two to the grammar:
    // `r\<newline>m x` runs rm and `find . -de\<newline>lete` deletes (both checked in bash 5.2).
    ['r\\\nm x', /a backslash-newline joins "r\\\\\\nm x" into one word for bash/],
    ['find . -de\\\nlete', /joins "find \. -de\\\\\\nlete"/],
    ['a=b\\\nc ls', /backslash-newline joins/],
    ['echo "x"\\\ny', /backslash-newline joins/],
    ['echo $(r\\\nm x)', /backslash-newline joins/],
    ["bash -c 'r\\\nm x'", /backslash-newline joins/],
  ]
  it.each(rows)('%j is unknown (%s)', (command, reason) => {
    const result = analysis(command)
    expect(result.kind).toBe('unknown')
    if (result.kind === 'unknown') expect(result.reason).toMatch(reason)
  })

  it('is unknown without a parser', () => {
    expect(analyzeShell('ls', undefined)).toEqual({
      kind: 'unknown',
      reason: 'the shell parser is not loaded',
      source: 'ls',
    })
  })

  // The edges of what is parsed at all, each with its exact reason (the model reads it).
  it('is unknown past MAX_SOURCE_LENGTH characters, and known at it', () => {
    const at = `echo ${'a'.repeat(MAX_SOURCE_LENGTH - 5)}`
    expect(analysis(at).kind).toBe('known')
    expect(analysis(`${at}a`)).toEqual({
      kind: 'unknown',
      reason: `commands longer than ${MAX_SOURCE_LENGTH} characters are not analysed`,
      source: `${at}a`,
    })
  })

  it('is unknown when the parser gives up; an error of the parser itself is not swallowed', () => {
    expect(analyzeShell('ls', { parse: () => undefined })).toEqual({
      kind: 'unknown',
      reason: 'the shell parser gave up on this command',
      source: 'ls',
    })
    const broken = {
      parse: (): never => {
        throw new RangeError('out of memory')
      },
    }
    expect(() => analyzeShell('ls', broken)).toThrow(RangeError)
  })

  it.each([
    ['echo (', 'the command does not parse as bash near "("'],
    ['if true; then ls', 'the command does not parse as bash near "if true; then ls"'],
    [
      '{a,b}',
      'the command does not parse as bash near "{a,b}" (brace expansion where a command is expected is not analysed)',
    ],
  ])('names where %j stops parsing', (command, reason) => {
    expect(analysis(command)).toEqual({ kind: 'unknown', reason, source: command })
  })

  it('is unknown past the nesting limit', () => {
    let command = 'rm x'
    for (let i = 0; i < 12; i++) command = `bash -c "${command.replace(/[\\"$`]/g, '\\$&')}"`
    expect(analysis(command)).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/nested/) })
  })

  it('knows a test that runs no program', () => {
    expect(analysis('[[ -f x ]]')).toEqual({ kind: 'known', commands: [], source: '[[ -f x ]]' })
    expect(analysis('(( 1 + 1 ))').kind).toBe('known')
  })

  it('still reads the common forms of expansion', () => {
    expect(lines('arr=(a b); echo "${!arr[@]}" "${arr[1]}"')).toEqual(['', 'echo "${!arr[@]}" "${arr[1]}"'])
    expect(analysis('arr=(a b); echo $(( ${#arr[@]} - 1 )) ${!arr*} ${x@Q}').kind).toBe('known')
    expect(analysis('echo ${x:-default} ${v:=1}').kind).toBe('known')
  })

  it('allows arithmetic on variables only arithmetic sets, and on the environment', () => {
    expect(analysis('for ((i=0; i<3; i++)); do echo $((i * 2)); done').kind).toBe('known')
    expect(analysis('echo $((HOME))').kind).toBe('known')
  })
})

describe('analyzeShell: where a backslash-newline is only a line break (decision 91)', () => {
  // An even run of backslashes before a newline is escaped backslashes, then a real line break:
  // `echo a\\<newline>echo b` is two commands to bash.
  it('an escaped backslash before a newline ends the line', () => {
    expect(known('echo a\\\\\necho b').map(line)).toEqual(['echo a\\', 'echo b'])
  })

  // A quoted word later on the line does not hide a join before it: only a join inside quotes
  // is the quotes' business.
  it('a join before a later quoted word is still refused, with the words around it', () => {
    const command = 'echo aaaaaaaaaaaa; r\\\nm x; echo "bbbbbbbbbbbb"'
    expect(analysis(command)).toEqual({
      kind: 'unknown',
      reason:
        'a backslash-newline joins "aaaaaaa; r\\\\\\nm x; echo " into one word for bash, where the grammar reads two',
      source: command,
    })
  })
})
