/**
 * `@flag` rules (docs/decisions/permissions.md, 170): a rule written against what a call says about
 * itself. Through real kernel turns on real temp files: `ask: ['@destructive']` makes Write, Edit
 * and a changing Bash command ask, while Read and a read-only command run unasked.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Bash, buildTool, createKernel, Edit, Read, Write, type PermissionRequest } from '../../src/index.js'
import { parseRule } from '../../src/permissions/rules.js'
import { loadBashGrammar } from '../../src/adapters/bash-grammar.js'
import { assistant, scratchDirs, testKernel } from '../helpers.js'

const scratch = scratchDirs()
beforeAll(async () => {
  await loadBashGrammar()
})

function project(): string {
  const dir = scratch('tk-flags-')
  writeFileSync(join(dir, 'a.txt'), 'alpha\n')
  return dir
}

const textOf = (block: { content: unknown } | undefined): string =>
  typeof block?.content === 'string' ? block.content : JSON.stringify(block?.content)

describe('@flag rules', () => {
  it('ask @destructive: Write, Edit and a changing Bash command ask; Read and `cat` run unasked', async () => {
    const cwd = project()
    const asked: PermissionRequest[] = []
    const kernel = testKernel([Read, Write, Edit, Bash], {
      cwd,
      // Allow everything by name; the flag rule still asks first (deny > ask > allow).
      permissions: { allow: ['Read', 'Write', 'Edit', 'Bash'], ask: ['@destructive'] },
      canUseTool: (request) => {
        asked.push(request)
        return { behavior: 'allow' }
      },
    })
    await kernel.ready()
    const a = join(cwd, 'a.txt')
    const { message, events } = await kernel.runTurn(
      assistant(
        ['r', 'Read', { file_path: a }],
        ['w', 'Write', { file_path: join(cwd, 'b.txt'), content: 'beta\n' }],
        ['e', 'Edit', { file_path: a, old_string: 'alpha', new_string: 'gamma' }],
        ['b', 'Bash', { command: 'touch c.txt' }],
        ['l', 'Bash', { command: 'cat a.txt' }],
      ),
    )
    expect(asked.map((r) => r.toolUseId)).toEqual(['w', 'e', 'b'])
    expect(asked.every((r) => r.flags.destructive && !r.flags.readOnly)).toBe(true)
    expect(asked.map((r) => r.flags.activity)).toEqual([
      `Writing ${join(cwd, 'b.txt')}`,
      `Editing ${a}`,
      'Running touch c.txt',
    ])
    expect(message.content.every((block) => block.is_error !== true)).toBe(true)
    expect(readFileSync(a, 'utf8')).toBe('gamma\n')
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('beta\n')
    expect(textOf(message.content[4])).toContain('gamma')
    // Every decision is logged with the call's flags; the read-only ones were allowed by their rule.
    const permitted = events.filter((e) => e.type === 'tool.permitted')
    expect(permitted.map((e) => [e.toolUseId, e.source, e.flags?.destructive])).toEqual([
      ['r', 'rule', false],
      ['w', 'user', true],
      ['e', 'user', true],
      ['b', 'user', true],
      ['l', 'rule', false],
    ])
    expect(permitted[0]?.flags).toEqual({
      readOnly: true,
      destructive: false,
      openWorld: false,
      userFacingName: 'Read',
      activity: `Reading ${a}`,
    })
  })

  it('deny @destructive denies a command the shell analysis cannot follow (fail-closed) and keeps ls', async () => {
    const cwd = project()
    const kernel = testKernel([Bash], { cwd, permissions: { allow: ['Bash'], deny: ['@destructive'] } })
    await kernel.ready()
    const { message } = await kernel.runTurn(
      assistant(['x', 'Bash', { command: 'eval "$(echo rm a.txt)"' }], ['l', 'Bash', { command: 'ls' }]),
    )
    expect(message.content[0]?.is_error).toBe(true)
    expect(textOf(message.content[0])).toContain('the rule @destructive denies it')
    expect(textOf(message.content[1])).toContain('a.txt')
  })

  it('a tool that declares no flags is destructive; one that says read-only is not', () => {
    const plain = buildTool({ name: 'Plain', description: () => 'p', inputSchema: z.object({}), call: async () => '' })
    const reader = buildTool({
      name: 'Reader',
      description: () => 'r',
      inputSchema: z.object({}),
      isReadOnly: () => true,
      call: async () => '',
    })
    expect(plain.isDestructive({})).toBe(true)
    expect(reader.isDestructive({})).toBe(false)
    expect(plain.activityDescription({})).toBe('Running Plain')
  })

  it('an unknown flag, a flag with a specifier, or a flag-looking tool name is refused at createKernel', () => {
    expect(() => createKernel({ tools: [Read], permissions: { ask: ['@dangerous'] } })).toThrow(
      /"@dangerous" \(ask\) names no flag: flag rules are @destructive, @openWorld, @readOnly/,
    )
    expect(() => createKernel({ tools: [Read], permissions: { ask: ['@destructive(x)'] } })).toThrow(/names no flag/)
    expect(parseRule(' @openWorld ', 'deny')).toMatchObject({ flag: 'openWorld', tool: '@openWorld' })
  })
})
