/**
 * Session grants on their own: what each scope covers, the fingerprint of a call, a grant's rule
 * checked when it is added, and grants rebuilt from the log's permission.granted events.
 */
import { homedir } from 'node:os'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type KernelEvent } from '../../src/index.js'
import { fingerprint, Grants } from '../../src/permissions/grants.js'

const Write = buildTool({
  name: 'Write',
  description: () => 'Writes a file.',
  inputSchema: z.object({ file_path: z.string(), content: z.string() }),
  getPath: (input) => input.file_path,
  call: async () => 'ok',
})
const Other = buildTool({
  name: 'Other',
  description: () => 'Another tool.',
  inputSchema: z.object({ file_path: z.string(), content: z.string() }),
  call: async () => 'ok',
})
const cwd = '/work/proj'
const input = { file_path: '/work/proj/src/a.ts', content: 'x' }

describe('fingerprint', () => {
  it('is 32 hex characters, the same for the same call whatever the key order, different otherwise', () => {
    const one = fingerprint('Write', { file_path: 'a', content: 'x' })
    expect(one).toMatch(/^[0-9a-f]{32}$/)
    expect(fingerprint('Write', { content: 'x', file_path: 'a' })).toBe(one)
    expect(fingerprint('Write', { file_path: 'a', content: 'y' })).not.toBe(one)
    expect(fingerprint('Edit', { file_path: 'a', content: 'x' })).not.toBe(one)
    // The separator keeps the tool name and the input apart: "a" + "bc" is not "ab" + "c".
    expect(fingerprint('a', 'bc')).not.toBe(fingerprint('ab', 'c'))
  })
})

describe('Grants', () => {
  it('covers nothing when empty, and only the tool it names', () => {
    const grants = new Grants()
    expect(grants.find(Write, input, cwd)).toBeUndefined()
    grants.add({ tool: 'Write', scope: 'tool' })
    expect(grants.find(Write, input, cwd)).toEqual({ tool: 'Write', scope: 'tool' })
    expect(grants.find(Other, input, cwd)).toBeUndefined()
  })

  it("a call grant covers that exact call only (by the call's fingerprint)", () => {
    const grants = new Grants()
    grants.add({ tool: 'Write', scope: 'call', fingerprint: fingerprint('Write', input) })
    expect(grants.find(Write, { content: 'x', file_path: '/work/proj/src/a.ts' }, cwd)?.scope).toBe('call')
    expect(grants.find(Write, { ...input, content: 'y' }, cwd)).toBeUndefined()
    expect(grants.find(Other, input, cwd)).toBeUndefined()
  })

  it('a rule grant covers the calls its rule allows, and a rule that does not parse is refused when added', () => {
    const grants = new Grants()
    grants.add({ tool: 'Write', scope: 'rule', rule: 'Write(./src/**)' })
    expect(grants.find(Write, input, cwd)?.rule).toBe('Write(./src/**)')
    expect(grants.find(Write, { ...input, file_path: '/work/proj/docs/a.md' }, cwd)).toBeUndefined()
    expect(() => grants.add({ tool: 'Write', scope: 'rule', rule: 'Write(' })).toThrow(/does not parse/)
    expect(() => grants.add({ tool: 'Write', scope: 'rule' })).toThrow('permission rule "" (allow) does not parse')
    expect(() => grants.add({ tool: 'Write', scope: 'tool' })).not.toThrow()
  })

  it('rebuilds the grants of permission.granted events and ignores every other event', () => {
    const envelope = { v: 2, seq: 0, at: 0, turnId: 't', toolUseId: 'u' } as const
    const events = [
      { ...envelope, type: 'tool.requested', index: 0, name: 'Write', input },
      {
        ...envelope,
        type: 'permission.granted',
        tool: 'Write',
        scope: 'call',
        fingerprint: fingerprint('Write', input),
      },
      { ...envelope, type: 'permission.granted', tool: 'Other', scope: 'tool' },
      { ...envelope, type: 'permission.granted', tool: 'Write', scope: 'rule', rule: `Write(~/notes/**)` },
    ] as unknown as KernelEvent[]
    const grants = Grants.fromLog(events)
    expect(grants.find(Write, input, cwd)?.scope).toBe('call')
    expect(grants.find(Write, { ...input, content: 'other' }, cwd)).toBeUndefined()
    // Only what the event carries: no fingerprint or rule keys for a tool grant.
    expect(grants.find(Other, input, cwd)).toStrictEqual({ tool: 'Other', scope: 'tool' })
    const home = { file_path: `${homedir()}/notes/today.md`, content: 'x' }
    expect(grants.find(Write, home, cwd)).toEqual({ tool: 'Write', scope: 'rule', rule: 'Write(~/notes/**)' })
    expect(Grants.fromLog([]).find(Other, input, cwd)).toBeUndefined()
  })
})
