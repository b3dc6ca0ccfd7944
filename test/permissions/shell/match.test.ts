import { beforeAll, describe, expect, it } from 'vitest'
import { loadBashGrammar } from '../../../src/adapters/bash-grammar.js'
import { analyzeShell } from '../../../src/permissions/shell/analyze.js'
import { allowMatches, commandsForRules, denyMatches, matchesSpecifier } from '../../../src/permissions/shell/match.js'
import type { BashParser, ShellAnalysis, SimpleCommand } from '../../../src/permissions/shell/shell.types.js'

let parser: BashParser

beforeAll(async () => {
  parser = await loadBashGrammar()
})

function analysis(command: string): ShellAnalysis {
  return analyzeShell(command, parser)
}

function only(command: string): SimpleCommand {
  const result = analysis(command)
  if (result.kind !== 'known' || result.commands.length !== 1 || result.commands[0] === undefined) {
    throw new Error(`expected one command in ${JSON.stringify(command)}`)
  }
  return result.commands[0]
}

describe('matchesSpecifier', () => {
  // [specifier, command, matches]
  const rows: Array<[string, string, boolean]> = [
    ['npm run test:*', 'npm run test', true],
    ['npm run test:*', 'npm run test -- -w', true],
    ['npm run test:*', 'npm run test:unit', true],
    ['npm run test:*', 'npm run testify', false],
    ['npm run test:*', 'npm run', false],
    ['npm run test:*', 'npm  run   "test"', true],
    ['git status', 'git status', true],
    ['git status', 'git status -s', false],
    ['git status', 'git "status"', true],
    ['git status', 'xargs git status', false],
    ['rm:*', 'rm -rf x', true],
    ['rm:*', 'rmdir x', false],
    ['rm:*', '/bin/rm x', true],
    ['ls *', 'ls -la', true],
    ['ls *', 'lsof', false],
    // The specifier's own spacing does not count; a prefix may end with a space before `:*`.
    ['  git   status ', 'git status', true],
    ['git status :*', 'git status -s', true],
    // Outside the `*`, a wildcard specifier matches its text literally.
    ['cat a.b *', 'cat a.b x', true],
    ['cat a.b *', 'cat axb x', false],
    // `*` matches across a newline inside an argument.
    ['echo *', 'echo "a\nb"', true],
  ]
  it.each(rows)('%j against %j is %s', (specifier, command, expected) => {
    expect(matchesSpecifier(specifier, only(command))).toBe(expected)
  })
})

describe('denyMatches: rm:* catches rm wherever it runs', () => {
  const commands = [
    'rm -rf x',
    'ls\nrm x',
    'ls; rm x',
    'ls && rm x',
    'ls || rm x',
    'ls | rm x',
    'ls & rm x',
    'ls |& rm x',
    '# note\n# more\necho go\nrm -rf /tmp/t\necho done',
    "bash -c 'rm -rf x'",
    'sh -lc "rm x"',
    'env rm x',
    'env -i A=1 rm x',
    'timeout 5 rm x',
    'X=1 rm x',
    '(rm x)',
    '{ rm x; }',
    'echo $(rm x)',
    'echo `rm x`',
    '{rm,-f,x}',
    'rm${IFS}-f${IFS}x',
    '/bin/rm x',
    './rm x',
    'xargs rm',
    'sudo -u root rm x',
    'nice -n 5 rm x',
    'cat <<EOF\n$(rm x)\nEOF',
    'cat <(rm x)',
    'if true; then rm x; fi',
    'for f in *; do rm "$f"; done',
    'f() { rm x; }; f',
    '"r"m x',
    '\\rm x',
    'r\\m x',
    "$'\\x72m' x",
    'find . -exec rm {} +',
    'command rm x',
    'nohup rm x &',
    'watch "rm x"',
    "GIT_EDITOR='rm -rf x' git commit",
    'eval "rm x"',
    'eval "r""m x"',
    'x=rm; $x -rf y',
    'while true; do rm x; done',
    'case a in a) rm x;; esac',
    '! rm x',
    'time rm x',
    "git -c alias.x='!rm V' x",
    "git -c alias.x='!rm' x V",
    "git -c core.pager='rm V' log",
    "git -c core.sshCommand='rm V' fetch",
    "E='!rm V' git --config-env=alias.x=E x",
    "set -- 'a[$(rm x)]'; echo $(($1))",
    "echo ${v='a[$(rm x)]'} $((v))",
  ]
  it.each(commands)('denies %j', (command) => {
    expect(denyMatches('rm:*', analysis(command))).toBe(true)
  })

  const others = ['ls -la', 'rmdir x', 'echo farm', 'git rm --cached x', 'cat rm.txt']
  it.each(others)('does not deny %j', (command) => {
    expect(denyMatches('rm:*', analysis(command))).toBe(false)
  })

  const wrapped = [
    'nice git add -A',
    'stdbuf -oL git add -A',
    'nohup git add -A',
    'env git add -A',
    'sudo git add -A',
    'xargs git add -A',
    'watch git add -A',
    'exec git add -A',
    'ionice -c 3 git add -A',
    'setsid git add -A',
    'timeout 9 git add -A',
    "sh -c 'git add -A'",
    'command git add -A',
  ]
  it.each(wrapped)('denies git add -A inside %j', (command) => {
    expect(denyMatches('git add -A:*', analysis(command))).toBe(true)
  })

  it('catches the arguments git appends to a shell alias', () => {
    expect(denyMatches('rm V a', analysis("git -c alias.x='!rm V' x a"))).toBe(true)
    expect(denyMatches('rm V a', analysis("git -c alias.x='!rm V' x"))).toBe(false)
  })

  it('catches a wrapper named by a rule', () => {
    expect(denyMatches('sudo:*', analysis('sudo -u root ls'))).toBe(true)
    expect(denyMatches('bash:*', analysis("bash -c 'ls'"))).toBe(true)
    expect(denyMatches('git push:*', analysis('env git push --force'))).toBe(true)
  })

  it('for an unknown command, asks for every word of the rule', () => {
    expect(denyMatches('git push:*', analysis('eval "git push"'))).toBe(true)
    expect(denyMatches('git push:*', analysis('eval "git status"'))).toBe(false)
    // A `*` is no word to look for, and a rule of only `*` catches every unknown command.
    expect(denyMatches('git *', analysis('eval git'))).toBe(true)
    expect(denyMatches('*', analysis('eval x'))).toBe(true)
    // Words are matched literally: `a.b` is not `axb`.
    expect(denyMatches('cat a.b:*', analysis('eval cat a.b'))).toBe(true)
    expect(denyMatches('cat a.b:*', analysis('eval cat axb'))).toBe(false)
  })

  it('for an unknown command, decodes numeric escapes wherever they stand', () => {
    for (const spelled of ["$'\\x72m'", "$'\\162m'", "$'\\u0072m'", "$'\\x72\\x6d'"])
      expect(denyMatches('rm:*', analysis(`eval ${spelled} x`)), spelled).toBe(true)
    expect(denyMatches('rm:*', analysis("eval $'\\x72n' x"))).toBe(false)
  })
})

describe('allowMatches', () => {
  // [specifier, command, allowed]
  const rows: Array<[string, string, boolean]> = [
    ['git status:*', 'git status', true],
    ['git status:*', 'git status -s && git status', true],
    ['git status:*', 'git status; rm x', false],
    ['git status:*', 'git status > f', false],
    ['git status:*', 'git status 2>/dev/null', true],
    ['git status:*', 'git status 2>&1', true],
    ['git status:*', 'git status\nrm x', false],
    ['git status:*', 'git status $(rm x)', false],
    ['git status:*', 'eval git status', false],
    ['git status:*', 'sudo git status', false],
    ['git status:*', 'timeout 5 git status', true],
    ['git status:*', "bash -c 'git status'", true],
    ['git status:*', 'GIT_DIR=/tmp/x git status', false],
    ['git status:*', 'x=1', false],
    ['npm run test:*', 'NODE_ENV=test npm run test', true],
    ['npm run test:*', 'PATH=/tmp npm run test', false],
    ['npm run test:*', 'npm run test | tee out', false],
    ['echo *', 'echo "test" && ls', false],
    ['echo *', 'echo hi', true],
    ['ls:*', 'xargs ls', false],
    ['git status:*', '/usr/bin/git status', true],
    ['git status:*', '/tmp/x/git status', false],
    ['git status:*', './git status', false],
    ['cd:*', 'cd /some/path && python3 script.py', false],
    ['git commit:*', 'git commit -m "Fix a && b"', true],
    ['grep:*', "grep -n 'a|b' file", true],
    ['awk *', "awk 'NR>=300 && NR<=430' file", true],
    ['ls *', 'ls /p/Bounded\\ Agency*', true],
    ['gh pr create:*', 'gh pr create --body "$(cat x.md)"', false],
    ['ls:*', '[[ -f x ]]', false],
    ['git:*', "git -c alias.x='!rm V' x", false],
    ['git:*', "git -c core.pager='rm V' log", false],
    ['git:*', 'git -c color.ui=always log', true],
    ['ls:*', '> X', false],
  ]
  it.each(rows)('%j allows %j: %s', (specifier, command, expected) => {
    expect(allowMatches(specifier, analysis(command))).toBe(expected)
  })
})

describe('commandsForRules', () => {
  it('lists lines, deny lines and why a command cannot be allowed', () => {
    const rules = commandsForRules(analysis('sudo ./rm x > out'))
    expect(rules).toMatchObject({
      kind: 'known',
      commands: [
        { line: './rm x', denyLines: ['./rm x', 'rm x', 'sudo ./rm x'], notAllowable: './rm writes out through >' },
      ],
    })
  })

  it('says why a command cannot be allowed: no name, a write, an assignment, a wrapper', () => {
    const why = (command: string) => {
      const rules = commandsForRules(analysis(command))
      return rules.kind === 'known' ? rules.commands.map((c) => c.notAllowable) : rules.reason
    }
    expect(why('> X')).toEqual(['> X is not a command a rule can allow'])
    expect(why('PATH=/tmp npm run test')).toEqual(['npm runs with PATH set'])
    expect(why('sudo git status')).toEqual(['git runs through sudo'])
    expect(why('NODE_ENV=test timeout 5 git status')).toEqual([undefined])
  })

  it('keeps an unknown analysis unknown', () => {
    expect(commandsForRules(analysis('eval x'))).toMatchObject({ kind: 'unknown', source: 'eval x' })
  })
})
