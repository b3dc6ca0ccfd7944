/** The rule syntax and its matchers on their own: parsing, which tools a rule names, paths. */
import { homedir } from 'node:os'
import { describe, expect, it } from 'vitest'
import {
  insideOf,
  matchesPath,
  namesTool,
  parseRule,
  PATTERN_USES,
  PATTERNS_KEPT,
} from '../../src/permissions/rules.js'

describe('parseRule', () => {
  it('trims the rule and its specifier, and keeps the source as written', () => {
    expect(parseRule('  Bash( npm test:* )  ', 'ask')).toEqual({
      source: '  Bash( npm test:* )  ',
      behavior: 'ask',
      tool: 'Bash',
      specifier: 'npm test:*',
    })
    expect(parseRule(' Read ', 'allow')).toEqual({ source: ' Read ', behavior: 'allow', tool: 'Read' })
  })

  it('says what is wrong with a rule that does not parse or has an empty specifier', () => {
    expect(() => parseRule('Bash(', 'deny')).toThrow(
      'permission rule "Bash(" (deny) does not parse: write Tool or Tool(specifier), e.g. Bash(npm run test:*) or Read(./src/**)',
    )
    expect(() => parseRule('Bash(  )', 'allow')).toThrow(
      'permission rule "Bash(  )" (allow) has an empty specifier; drop the parentheses to match every call of Bash',
    )
  })
})

describe('namesTool', () => {
  const rule = (tool: string) => parseRule(tool, 'allow')
  it('names its own tool, and mcp__server every tool of that server only', () => {
    expect(namesTool(rule('Bash'), 'Bash')).toBe(true)
    expect(namesTool(rule('Bash'), 'BashOutput')).toBe(false)
    expect(namesTool(rule('mcp__github'), 'mcp__github__create_issue')).toBe(true)
    expect(namesTool(rule('mcp__github'), 'mcp__githubx__create_issue')).toBe(false)
    expect(namesTool(rule('mcp__github'), 'mcp__gitlab__create_issue')).toBe(false)
    // A rule naming one tool of a server does not name its siblings.
    expect(namesTool(rule('mcp__github__create_issue'), 'mcp__github__create_issue__x')).toBe(false)
    expect(namesTool(rule('mcp__github__create_issue'), 'mcp__github__delete_repo')).toBe(false)
    // Only the mcp__ prefix names a family.
    expect(namesTool(rule('github'), 'github__create_issue')).toBe(false)
    expect(namesTool(rule('github__repo'), 'github__repo__create_issue')).toBe(false)
  })
})

describe('insideOf', () => {
  it("gives the path relative to base with forward slashes, '' for base itself, undefined outside", () => {
    expect(insideOf('/work/proj', '/work/proj/src/a.ts')).toBe('src/a.ts')
    expect(insideOf('/work/proj', '/work/proj')).toBe('')
    expect(insideOf('/work/proj', '/work/other/a.ts')).toBeUndefined()
    expect(insideOf('/work/proj', '/work/proj-2/a.ts')).toBeUndefined()
  })
})

describe('matchesPath', () => {
  const cwd = '/work/proj'
  it('reads ./x and x against cwd, /x from the root and ~/x from home', () => {
    expect(matchesPath('./src/**', '/work/proj/src/a.ts', cwd)).toBe(true)
    expect(matchesPath('src/**', '/work/proj/src/a.ts', cwd)).toBe(true)
    expect(matchesPath('./src/**', '/work/proj/docs/a.md', cwd)).toBe(false)
    expect(matchesPath('/etc/**', '/etc/passwd', cwd)).toBe(true)
    expect(matchesPath('/etc/**', '/work/proj/etc/passwd', cwd)).toBe(false)
    expect(matchesPath('~/notes/**', `${homedir()}/notes/a.md`, cwd)).toBe(true)
    expect(matchesPath('~/notes/**', '/work/proj/notes/a.md', cwd)).toBe(false)
  })

  it('takes a relative path from cwd, and never matches cwd itself or a path outside the base', () => {
    expect(matchesPath('./src/**', 'src/a.ts', cwd)).toBe(true)
    expect(matchesPath('**', '/work/proj', cwd)).toBe(false)
    expect(matchesPath('**', '/work/elsewhere/a.ts', cwd)).toBe(false)
  })

  it('answers the same for a pattern compiled once, past its uses and past the patterns kept', () => {
    // Each pattern is compiled once and reused; a wrong reuse would answer with another pattern.
    const patterns = Array.from({ length: PATTERNS_KEPT + 6 }, (_, i) => (i % 2 === 0 ? `d${i}/**` : `*.e${i}`))
    for (let round = 0; round < 3; round++)
      patterns.forEach((pattern, i) => {
        expect(matchesPath(pattern, `/work/proj/d${i}/x.e${i}`, cwd)).toBe(true)
        expect(matchesPath(pattern, `/work/proj/d${i + 1}/x.e${i + 1}`, cwd)).toBe(false)
      })
    for (let n = 0; n < PATTERN_USES + 5; n++) {
      expect(matchesPath('./keys/**', `/work/proj/keys/k${n}`, cwd)).toBe(true)
      expect(matchesPath('./keys/**', `/work/proj/other/k${n}`, cwd)).toBe(false)
    }
  })
})
