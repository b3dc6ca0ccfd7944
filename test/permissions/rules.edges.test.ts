/**
 * The rule layer at its edges, from the survivors of a mutation run: path arithmetic (insideOf,
 * expandHome, absolute specifiers), which Read rules compile without the Read tool, the Read rules
 * over a shell command (commandReads), and a path judge that resolves each path once.
 */
import { tmpdir, homedir } from 'node:os'
import { beforeAll, describe, expect, it } from 'vitest'
import { Bash, Grep, Read, Write } from '../../src/index.js'
import { loadBashGrammar } from '../../src/adapters/bash-grammar.js'
import { realPathOf } from '../../src/adapters/real-path.js'
import { commandReads } from '../../src/permissions/command-reads.js'
import { realCwd, resolvingOnce, type PathJudge } from '../../src/permissions/paths.js'
import { expandHome, insideOf, matchesPath } from '../../src/permissions/rules.js'
import { compileRules, matchRules } from '../../src/permissions/ruleset.js'

beforeAll(async () => {
  await loadBashGrammar()
})

const cwd = '/work/proj'

describe('path arithmetic', () => {
  // Patterns are matched with forward slashes: a backslash in the relative path is read as the
  // separator it is on Windows.
  it('insideOf gives the relative path with forward slashes', () => {
    expect(insideOf('/work/proj', '/work/proj/a\\b')).toBe('a/b')
  })

  // Bash expands a tilde alone and `~/…`; `~x` is another user's home (left as written, it names
  // no file of ours) and an empty word stays empty.
  it.each([
    ['~', homedir()],
    ['~/x', `${homedir()}/x`],
    ['~x', '~x'],
    ['', ''],
  ])('expandHome(%j)', (word, expanded) => {
    expect(expandHome(word)).toBe(expanded)
  })

  it('an absolute specifier matches below the root', () => {
    expect(matchesPath('/tmp', '/tmp/x', cwd)).toBe(true)
    expect(matchesPath('/tmp/*.log', '/tmp/a.log', cwd)).toBe(true)
    expect(matchesPath('/tmp/*.log', '/var/tmp/a.log', cwd)).toBe(false)
  })

  // Decision 94: `/x` is absolute, but the leading `/` was cut before the gitignore pattern was
  // compiled, and a gitignore pattern of one segment matches at any depth. An allow rule meant
  // for /tmp, `Write(/tmp)`, allowed writing /etc/cron.d/tmp (and `Write(/*.log)` every .log file
  // on the machine). The `/` (gitignore's anchor) is kept now.
  it('Write(/tmp) does not allow writing /etc/cron.d/tmp, nor Write(/*.log) a .log file elsewhere', () => {
    const rules = compileRules({ allow: ['Write(/tmp)', 'Write(/*.log)'] }, [Write])
    const write = (file_path: string) => matchRules(rules, Write, { file_path, content: 'x' }, cwd)
    expect(write('/etc/cron.d/tmp')).toBeUndefined()
    expect(write('/var/log/a.log')).toBeUndefined()
    expect(write('/tmp/x')).toEqual({ behavior: 'allow', rule: 'Write(/tmp)' })
    expect(write('/a.log')).toEqual({ behavior: 'allow', rule: 'Write(/*.log)' })
    expect(matchesPath('//etc/passwd', '/etc/passwd', cwd)).toBe(true)
    expect(matchesPath('//passwd', '/etc/passwd', cwd)).toBe(false)
  })
})

describe('Read path rules in a kernel without Read', () => {
  // The shortcut for a Read rule that reaches Bash or a search tool is only for a kernel without
  // Read; with Read the rule is checked as any path rule, so parentheses are refused.
  it('with Read too, a deny rule is checked as a path rule', () => {
    expect(() => compileRules({ deny: ['Read(./a(b))'] }, [Read, Grep])).toThrow(
      'permission rule "Read(./a(b))" (deny) has parentheses inside its path specifier',
    )
  })

  // One search tool is enough for an ask rule, beside a Bash that an ask rule does not reach.
  it('an ask rule needs one search tool among the others', () => {
    expect(compileRules({ ask: ['Read(./.env)'] }, [Bash, Grep]).ask.map((r) => r.source)).toEqual(['Read(./.env)'])
  })

  // Only Read rules reach other tools: an Edit rule in a kernel without Edit can never match.
  it('another tool’s path rule is refused', () => {
    expect(() => compileRules({ deny: ['Edit(./x)'] }, [Grep])).toThrow(
      'permission rule "Edit(./x)" (deny) names no tool of this kernel (Grep), so it could never match',
    )
  })
})

describe('commandReads', () => {
  const judge: PathJudge = { cwd: tmpdir(), realPath: realPathOf, protectedNames: [], protectedDirs: [] }

  // The reason of an ask names every Read deny rule, so the user sees which files are at stake.
  it('an unnamed read names every Read deny rule', () => {
    const rules = compileRules({ deny: ['Read(./.env)', 'Read(./keys/**)'] }, [Bash])
    expect(commandReads('cat *.md', rules, undefined, cwd)).toEqual({
      ask:
        'cat *.md reads files named at run time, which could include a file the rules deny reading ' +
        '(Read(./.env), Read(./keys/**)); the Read, Grep and Glob tools keep to those rules',
    })
  })

  // /dev/fd is a link to /proc/<pid>/fd: a name written in /dev is decision 86's business, so the
  // link into /proc does not make it ask.
  it('a name written in /dev that resolves into /proc does not ask', () => {
    expect(realPathOf('/dev/fd')).toMatch(/^\/proc\//)
    expect(commandReads('cat /dev/fd', compileRules({}, [Bash]), judge, tmpdir())).toEqual({})
  })

  // Decision 94: dd names its input `if=FILE`; the word was not split, so the rule did not deny
  // `dd if=.env`, which printed .env where `cat .env` was denied (bypassPermissions ran it).
  it('Read(./.env) denies dd if=.env', () => {
    const rules = compileRules({ deny: ['Read(./.env)'] }, [Bash])
    expect(commandReads('dd if=.env', rules, undefined, cwd)).toEqual({
      deny: 'the rule Read(./.env) denies reading .env, which the command names',
    })
  })
})

describe('resolvingOnce', () => {
  // A path that cannot be resolved fails every time it is asked, with the judge's own error and
  // without asking the judge again: callers fail closed on the throw (realCwd keeps the name).
  it('remembers a failure and throws it again', () => {
    const loop = new Error('loop: too many levels of symbolic links')
    let calls = 0
    const once = resolvingOnce({
      cwd,
      realPath: () => {
        calls++
        throw loop
      },
      protectedNames: [],
      protectedDirs: [],
    })
    expect(() => once.realPath('loop')).toThrow(loop)
    expect(() => once.realPath('loop')).toThrow(loop)
    expect(realCwd(once, 'loop')).toBe('loop')
    expect(calls).toBe(1)
  })
})
