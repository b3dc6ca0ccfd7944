import { beforeAll, describe, expect, it } from 'vitest'
import { loadBashGrammar } from '../../../src/adapters/bash-grammar.js'
import { analyzeCommand, commandReadOnly } from '../../../src/permissions/shell/installed.js'
import { commandsForRules, covers, matchesSpecifier } from '../../../src/permissions/shell/match.js'
import { compileRules, matchRules } from '../../../src/permissions/ruleset.js'
import { Bash } from '../../../src/tools/builtin/bash.tool.js'

// What is derived from one analysis is kept with it: these tests pin that sharing changes no answer.
beforeAll(async () => {
  await loadBashGrammar()
})

describe('answers derived from a cached analysis', () => {
  it('prepares the commands of an analysis once, frozen, so no caller can change what the next one reads', () => {
    const analysis = analyzeCommand('git status && ls -la | head')
    const first = commandsForRules(analysis)
    expect(commandsForRules(analysis)).toBe(first)
    if (first.kind !== 'known') throw new Error('expected a known analysis')
    expect(Object.isFrozen(first.commands)).toBe(true)
    expect(() => (first.commands[0]?.denyLines as string[]).push('rm -rf /')).toThrow(TypeError)
    expect(first.commands.map((c) => c.line)).toEqual(['git status', 'ls -la', 'head'])
  })

  it('keeps one frozen read-only verdict per analysis', () => {
    const verdict = commandReadOnly('npm test > out.txt')
    expect(commandReadOnly('npm test > out.txt')).toBe(verdict)
    expect(verdict.readOnly).toBe(false)
    expect(() => Object.assign(verdict, { readOnly: true })).toThrow(TypeError)
    expect(commandReadOnly('npm test > out.txt').readOnly).toBe(false)
  })

  it('covers a prepared command exactly as matchesSpecifier covers the command', () => {
    const specs = ['git status', 'git status:*', 'git *', 'ls:*', 'head', '* -la', 'npm run test:*', 'rm:*']
    for (const line of ['git status --short', 'git status', 'ls -la', 'head', 'npm run test:unit', 'rm -rf x']) {
      const rules = commandsForRules(analyzeCommand(line))
      if (rules.kind !== 'known') throw new Error(`expected ${line} to be known`)
      for (const rule of rules.commands)
        for (const spec of specs)
          expect(covers(spec, rule), `${spec} on ${line}`).toBe(matchesSpecifier(spec, rule.command))
    }
  })

  it('decides the same command by each rule set, whichever was asked first', () => {
    const input = { command: 'git status && ls' }
    const allowing = compileRules({ allow: ['Bash(git status:*)', 'Bash(ls:*)'] }, [Bash])
    const partial = compileRules({ allow: ['Bash(git status:*)'] }, [Bash])
    const denying = compileRules({ deny: ['Bash(ls:*)'], allow: ['Bash(git status:*)', 'Bash(ls:*)'] }, [Bash])
    for (let round = 0; round < 2; round++) {
      expect(matchRules(partial, Bash, input, '/tmp')).toBeUndefined()
      expect(matchRules(allowing, Bash, input, '/tmp')).toEqual({
        behavior: 'allow',
        rule: 'Bash(git status:*), Bash(ls:*)',
      })
      expect(matchRules(denying, Bash, input, '/tmp')).toEqual({ behavior: 'deny', rule: 'Bash(ls:*)' })
    }
  })

  it('still matches a specifier after many others pushed it out of the bounded specifier cache', () => {
    const rules = commandsForRules(analyzeCommand('make build'))
    if (rules.kind !== 'known' || rules.commands[0] === undefined) throw new Error('expected one command')
    const rule = rules.commands[0]
    expect(covers('make:*', rule)).toBe(true)
    for (let i = 0; i < 1_000; i++) expect(covers(`tool${i}:*`, rule)).toBe(false)
    expect(covers('make:*', rule)).toBe(true)
    expect(covers('make test', rule)).toBe(false)
  })
})
