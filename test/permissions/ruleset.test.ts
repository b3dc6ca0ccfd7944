/**
 * A rule set on its own: compiling rules against the kernel's tools, which rule decides a call
 * (deny beats ask beats allow), paths judged as written and where they point, Read rules over
 * the search tools, and the rules suggested with an "ask".
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Bash, buildTool, Edit, Glob, Grep, Read, Write } from '../../src/index.js'
import { loadBashGrammar } from '../../src/adapters/bash-grammar.js'
import type { PathJudge } from '../../src/permissions/paths.js'
import {
  commandOf,
  compileRules,
  deniedOutright,
  matchRules,
  pathOf,
  readDenied,
  suggestRules,
  type RuleConfig,
} from '../../src/permissions/ruleset.js'
import type { Tool } from '../../src/tools/tool.types.js'

beforeAll(async () => {
  await loadBashGrammar()
})

const cwd = '/work/proj'
const tools: Tool[] = [Bash, Read, Edit, Write, Grep, Glob]
const Plain = buildTool({ name: 'Plain', description: () => 'p', inputSchema: z.object({}), call: async () => '' })
const rules = (config: RuleConfig, judge?: PathJudge) => compileRules(config, tools, judge)
const bash = (command: string) => ({ command })
const file = (file_path: string) => ({ file_path })

describe('compileRules', () => {
  it('keeps each behavior apart and passes the path judge on', () => {
    const judge: PathJudge = { cwd, realPath: (p) => p, protectedNames: [], protectedDirs: [] }
    const set = rules({ allow: ['Read'], ask: ['Bash(git push:*)'], deny: ['Write(./dist/**)'] }, judge)
    expect(set.allow.map((r) => [r.behavior, r.source])).toEqual([['allow', 'Read']])
    expect(set.ask.map((r) => [r.behavior, r.source])).toEqual([['ask', 'Bash(git push:*)']])
    expect(set.deny.map((r) => [r.behavior, r.source])).toEqual([['deny', 'Write(./dist/**)']])
    expect(set.judge).toBe(judge)
    expect(compileRules()).toEqual({ allow: [], ask: [], deny: [], judge: undefined })
  })

  it('says which list holds something that is not a rule string', () => {
    expect(() => rules({ ask: [3 as never] })).toThrow('permissions.ask must list rule strings, got 3')
  })

  it('names the canonical name when a rule uses an alias, with or without its specifier', () => {
    expect(() => rules({ allow: ['ReadFile(./src/**)'] })).toThrow(
      'permission rule "ReadFile(./src/**)" (allow) names ReadFile, an alias of Read: rules use canonical names, ' +
        'so write Read(./src/**)',
    )
    expect(() => rules({ deny: ['WriteFile'] })).toThrow(
      /^permission rule "WriteFile" \(deny\) names WriteFile, an alias of Write: rules use canonical names, so write Write$/,
    )
  })

  it('refuses a rule naming no tool of the kernel, listing the tools it has', () => {
    expect(() => compileRules({ allow: ['Fetch'] }, [Bash, Read])).toThrow(
      'permission rule "Fetch" (allow) names no tool of this kernel (Bash, Read), so it could never match',
    )
    expect(() => compileRules({ allow: ['Fetch'] })).toThrow('names no tool of this kernel (none), so it could never')
  })

  it('accepts a Read path rule without the Read tool where it still reaches a tool, and says where', () => {
    // A Read deny rule reaches Bash (the names a command gives) and the search tools; an ask rule
    // the search tools only; an allow rule only Read itself.
    expect(compileRules({ deny: ['Read(./.env)'] }, [Bash]).deny).toHaveLength(1)
    expect(compileRules({ deny: ['Read(./.env)'], ask: ['Read(./.env)'] }, [Grep]).ask).toHaveLength(1)
    expect(() => compileRules({ ask: ['Read(./.env)'] }, [Bash])).toThrow(
      'permission rule "Read(./.env)" (ask) names no tool of this kernel (Bash), so it could never match',
    )
    expect(() => compileRules({ allow: ['Read(./.env)'] }, [Bash, Grep])).toThrow('names no tool of this kernel')
    expect(() => compileRules({ deny: ['Read'] }, [Bash, Grep])).toThrow('names no tool of this kernel')
    expect(() => compileRules({ deny: ['Read(./.env)'] }, [Edit])).toThrow('names no tool of this kernel (Edit)')
  })

  it("accepts an MCP server's rules before its tools connect", () => {
    expect(compileRules({ deny: ['mcp__github', 'mcp__github__delete_repo'] }, []).deny).toHaveLength(2)
  })

  it('checks a specifier against the tool the rule names, not another of the kernel', () => {
    expect(() => compileRules({ allow: ['Read(./src/**)'] }, [Plain, Read])).not.toThrow()
    expect(() => compileRules({ allow: ['Plain(x)'] }, [Read, Plain])).toThrow(
      'permission rule "Plain(x)" (allow) has a specifier, but Plain takes no specifier (it has no path or command); ' +
        'write Plain alone',
    )
    expect(() => compileRules({ allow: ['Plain'] }, [Plain])).not.toThrow()
  })

  it('refuses parentheses inside a path specifier, and allows them in a command', () => {
    expect(() => rules({ allow: ['Read(./a(b))'] })).toThrow(
      'permission rule "Read(./a(b))" (allow) has parentheses inside its path specifier',
    )
    expect(() => rules({ allow: ['Bash(echo (x))'] })).not.toThrow()
  })
})

describe('matchRules', () => {
  it('lets deny beat ask, and ask beat allow', () => {
    const all = rules({ allow: ['Bash'], ask: ['Bash(rm:*)'], deny: ['Bash(rm -rf:*)'] })
    expect(matchRules(all, Bash, bash('rm -rf x'), cwd)).toEqual({ behavior: 'deny', rule: 'Bash(rm -rf:*)' })
    expect(matchRules(all, Bash, bash('rm x'), cwd)).toEqual({ behavior: 'ask', rule: 'Bash(rm:*)' })
    expect(matchRules(all, Bash, bash('ls'), cwd)).toEqual({ behavior: 'allow', rule: 'Bash' })
    expect(matchRules(all, Read, file('/work/proj/a'), cwd)).toBeUndefined()
  })

  it('matches a deny or ask rule without a specifier to every call of its tool only', () => {
    const set = rules({ deny: ['Write'], ask: ['Edit'] })
    expect(matchRules(set, Write, file('/work/proj/a'), cwd)).toEqual({ behavior: 'deny', rule: 'Write' })
    expect(matchRules(set, Edit, file('/work/proj/a'), cwd)).toEqual({ behavior: 'ask', rule: 'Edit' })
    expect(matchRules(set, Read, file('/work/proj/a'), cwd)).toBeUndefined()
  })

  it('matches a deny or ask rule on any part of a compound command', () => {
    const set = rules({ deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] })
    expect(matchRules(set, Bash, bash('ls && rm -rf /'), cwd)).toEqual({ behavior: 'deny', rule: 'Bash(rm:*)' })
    expect(matchRules(set, Bash, bash('git status; git push'), cwd)).toEqual({
      behavior: 'ask',
      rule: 'Bash(git push:*)',
    })
    expect(matchRules(set, Bash, bash('git status'), cwd)).toBeUndefined()
  })

  it('matches a path rule of deny or ask against the path the call names, and not a call without one', () => {
    const set = rules({ deny: ['Read(./secrets/**)'], ask: ['Edit(/etc/**)'] })
    expect(matchRules(set, Read, file('/work/proj/secrets/key'), cwd)?.behavior).toBe('deny')
    expect(matchRules(set, Read, file('/work/proj/src/a.ts'), cwd)).toBeUndefined()
    expect(matchRules(set, Read, {}, cwd)).toBeUndefined()
    expect(matchRules(set, Edit, file('/etc/hosts'), cwd)).toEqual({ behavior: 'ask', rule: 'Edit(/etc/**)' })
  })

  it('applies a Read deny or ask path rule to Grep and Glob, but not to other tools or as an allow', () => {
    const set = rules({ deny: ['Read(./secrets/**)'], ask: ['Read(/etc/**)'] })
    expect(matchRules(set, Grep, { pattern: 'x', path: '/work/proj/secrets/k' }, cwd)).toEqual({
      behavior: 'deny',
      rule: 'Read(./secrets/**)',
    })
    expect(matchRules(set, Glob, { pattern: '*', path: '/etc/ssl' }, cwd)?.behavior).toBe('ask')
    expect(matchRules(set, Write, file('/work/proj/secrets/k'), cwd)).toBeUndefined()
    expect(matchRules(set, Edit, file('/etc/hosts'), cwd)).toBeUndefined()
    // Only Read rules reach the search tools.
    const edits = rules({ deny: ['Edit(./secrets/**)'], ask: ['Write(./secrets/**)'] })
    expect(matchRules(edits, Grep, { pattern: 'x', path: '/work/proj/secrets/k' }, cwd)).toBeUndefined()
    // A Read rule without a path does not reach the search tools.
    expect(matchRules(rules({ deny: ['Read'] }), Grep, { pattern: 'x', path: '/work/proj' }, cwd)).toBeUndefined()
    // Allowing Read somewhere does not allow searching it.
    expect(matchRules(rules({ allow: ['Read(./**)'] }), Grep, { pattern: 'x', path: '/work/proj' }, cwd)).toBe(
      undefined,
    )
  })
})

describe('allow rules', () => {
  it('matches no call when no allow rule names the tool, and every call with a rule without a specifier', () => {
    expect(matchRules(rules({ allow: ['Read'] }), Bash, bash('ls'), cwd)).toBeUndefined()
    expect(matchRules(rules({ allow: ['Bash(ls:*)', 'Bash'] }), Bash, bash('rm x'), cwd)).toEqual({
      behavior: 'allow',
      rule: 'Bash',
    })
  })

  it('allows a compound command only if every part is allowed, naming each rule used once', () => {
    const set = rules({ allow: ['Bash(git status:*)', 'Bash(ls:*)'] })
    expect(matchRules(set, Bash, bash('ls && git status && ls -la'), cwd)).toEqual({
      behavior: 'allow',
      rule: 'Bash(ls:*), Bash(git status:*)',
    })
    expect(matchRules(set, Bash, bash('ls && rm x'), cwd)).toBeUndefined()
  })

  it('never allows by a specifier a command the analysis cannot follow, an empty one, or a writing one', () => {
    const set = rules({ allow: ['Bash(ls:*)', 'Bash(eval:*)'] })
    expect(matchRules(set, Bash, bash('eval "$x"'), cwd)).toBeUndefined()
    expect(matchRules(set, Bash, bash(''), cwd)).toBeUndefined()
    expect(matchRules(set, Bash, bash('ls > out.txt'), cwd)).toBeUndefined()
    // `{ }` is followed fully and runs no command: nothing for an allow rule to cover.
    expect(matchRules(set, Bash, bash('{ }'), cwd)).toBeUndefined()
  })

  it('allows a path only by a rule whose specifier matches it, and nothing for a call without a path', () => {
    const set = rules({ allow: ['Edit(./src/**)', 'Edit(./docs/**)'] })
    expect(matchRules(set, Edit, file('/work/proj/docs/a.md'), cwd)).toEqual({
      behavior: 'allow',
      rule: 'Edit(./docs/**)',
    })
    expect(matchRules(set, Edit, file('/work/proj/test/a.ts'), cwd)).toBeUndefined()
    expect(matchRules(set, Edit, {}, cwd)).toBeUndefined()
  })
})

describe('paths judged where they point', () => {
  const links: Record<string, string> = {
    '/work/proj/src/out': '/etc/passwd', // inside as written, outside where it points
    '/tmp/in': '/work/proj/secrets/key', // outside as written, inside where it points
  }
  const judge = (over: Partial<PathJudge> = {}): PathJudge => ({
    cwd,
    realPath: (path) => {
      if (path === '/work/proj/src/loop') throw new Error('ELOOP')
      return links[path] ?? path
    },
    protectedNames: [],
    protectedDirs: [],
    ...over,
  })

  it('denies when the path as written or where it points matches', () => {
    const set = rules({ deny: ['Read(./secrets/**)', 'Read(/etc/**)'] }, judge())
    expect(matchRules(set, Read, file('/tmp/in'), cwd)).toEqual({ behavior: 'deny', rule: 'Read(./secrets/**)' })
    expect(matchRules(set, Read, file('/work/proj/src/out'), cwd)).toEqual({ behavior: 'deny', rule: 'Read(/etc/**)' })
    expect(matchRules(set, Read, file('/work/proj/src/a.ts'), cwd)).toBeUndefined()
  })

  it('allows only when both the path as written and where it points match', () => {
    const set = rules({ allow: ['Read(./src/**)'] }, judge())
    expect(matchRules(set, Read, file('/work/proj/src/a.ts'), cwd)?.behavior).toBe('allow')
    expect(matchRules(set, Read, file('/work/proj/src/out'), cwd)).toBeUndefined()
    expect(matchRules(rules({ allow: ['Read(./secrets/**)'] }, judge()), Read, file('/tmp/in'), cwd)).toBe(undefined)
  })

  it('fails closed on a path whose real location cannot be found: every deny matches, no allow', () => {
    const loop = file('/work/proj/src/loop')
    expect(matchRules(rules({ deny: ['Read(/nowhere/**)'] }, judge()), Read, loop, cwd)?.behavior).toBe('deny')
    expect(matchRules(rules({ allow: ['Read(./src/**)'] }, judge()), Read, loop, cwd)).toBeUndefined()
  })

  it("matches relative specifiers against cwd's real location too, and its name when that fails", () => {
    const viaLink = judge({ realPath: (path) => path.replace(/^\/work\/proj/, '/srv/proj') })
    const set = rules({ allow: ['Read(./src/**)'] }, viaLink)
    expect(matchRules(set, Read, file('/work/proj/src/a.ts'), cwd)?.behavior).toBe('allow')
    const noRealCwd = judge({
      realPath: (path) => {
        if (path === cwd) throw new Error('EACCES')
        return path
      },
    })
    expect(matchRules(rules({ allow: ['Read(./src/**)'] }, noRealCwd), Read, file('/work/proj/src/a'), cwd)).toEqual({
      behavior: 'allow',
      rule: 'Read(./src/**)',
    })
  })
})

describe('readDenied', () => {
  it('is true only for a Read deny rule with a path that matches', () => {
    const set = rules({ deny: ['Read(./secrets/**)', 'Edit(./src/**)', 'Read'], ask: ['Read(./src/**)'] })
    expect(readDenied(set, '/work/proj/secrets/k', cwd)).toBe(true)
    expect(readDenied(set, '/work/proj/src/a.ts', cwd)).toBe(false)
    expect(readDenied(rules({ deny: ['Read'] }), '/work/proj/a', cwd)).toBe(false)
  })

  it('is true when the path as written or where it points matches', () => {
    const judge: PathJudge = {
      cwd,
      realPath: (path) => (path === '/tmp/in' ? '/work/proj/secrets/k' : path),
      protectedNames: [],
      protectedDirs: [],
    }
    const set = rules({ deny: ['Read(./secrets/**)'] }, judge)
    expect(readDenied(set, '/tmp/in', cwd)).toBe(true)
    expect(readDenied(set, '/tmp/out', cwd)).toBe(false)
  })
})

describe('commandOf and pathOf', () => {
  it('give the call’s command or path, and undefined when the tool has none, throws or answers a non-string', () => {
    expect(commandOf(Bash, bash('ls'))).toBe('ls')
    expect(commandOf(Read, file('a'))).toBeUndefined()
    expect(commandOf({ ...Bash, shellCommand: () => 42 as never } as Tool, bash('ls'))).toBeUndefined()
    const boom = () => {
      throw new Error('bad input')
    }
    expect(commandOf({ ...Bash, shellCommand: boom } as Tool, bash('ls'))).toBeUndefined()
    expect(pathOf(Read, file('a'))).toBe('a')
    expect(pathOf(Bash, bash('ls'))).toBeUndefined()
    expect(pathOf({ ...Read, getPath: boom } as Tool, file('a'))).toBeUndefined()
  })
})

describe('suggestRules', () => {
  it('offers the command’s first word (two for a tool with subcommands) and the whole command', () => {
    expect(suggestRules(Bash, bash('npm run test'), cwd)).toEqual(['Bash(npm run:*)', 'Bash(npm run test)'])
    expect(suggestRules(Bash, bash('git commit -m x'), cwd)).toEqual(['Bash(git commit:*)', 'Bash(git commit -m x)'])
    expect(suggestRules(Bash, bash('ls -la && rm x'), cwd)).toEqual(['Bash(ls:*)', 'Bash(ls -la && rm x)'])
  })

  it('offers nothing for a command the analysis cannot follow or an empty one', () => {
    expect(suggestRules(Bash, bash('eval "$x"'), cwd)).toEqual([])
    expect(suggestRules(Bash, bash(''), cwd)).toEqual([])
    expect(suggestRules(Bash, bash('{ }'), cwd)).toEqual([])
  })

  it("offers the path's directory, relative to cwd inside it and absolute outside", () => {
    expect(suggestRules(Read, file('/work/proj/src/a.ts'), cwd)).toEqual(['Read(./src/**)'])
    expect(suggestRules(Edit, file('/work/proj/a.ts'), cwd)).toEqual(['Edit(./**)'])
    expect(suggestRules(Read, file('/etc/ssl/cert.pem'), cwd)).toEqual(['Read(/etc/ssl/**)'])
  })

  it('offers the tool itself for a call with neither command nor path', () => {
    expect(suggestRules(Plain, {}, cwd)).toEqual(['Plain'])
    expect(suggestRules(Read, {}, cwd)).toEqual(['Read'])
  })
})

describe('deniedOutright', () => {
  it('is true for a deny rule naming the tool (or its MCP server) without a specifier', () => {
    expect(deniedOutright(rules({ deny: ['Bash'] }), Bash)).toBe(true)
    expect(deniedOutright(rules({ deny: ['Bash(rm:*)'], ask: ['Read'] }), Bash)).toBe(false)
    expect(deniedOutright(rules({ ask: ['Read'] }), Read)).toBe(false)
    const mcpTool = { ...Plain, name: 'mcp__github__create_issue' } as Tool
    expect(deniedOutright(compileRules({ deny: ['mcp__github'] }, []), mcpTool)).toBe(true)
    expect(deniedOutright(compileRules({ deny: ['mcp__gitlab'] }, []), mcpTool)).toBe(false)
  })
})
