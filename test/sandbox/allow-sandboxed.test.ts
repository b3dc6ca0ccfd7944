/**
 * `permissions.allowSandboxed` (issue 30): an allow rule that holds only for a call that will run
 * in a working OS sandbox. Real kernels; with no canUseTool and `approvals: 'deny'`, a call the
 * rules do not allow is denied, so "the rule did not allow" shows as a denial and the command did
 * not run. The rows where the sandbox runs need bubblewrap; the others run everywhere.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Bash, createBubblewrap, createKernel, Read, replay, type KernelOptions } from '../../src/index.js'
import { bubblewrap } from '../programs.js'
import { makePlace, removePlaces, type Place } from './sandbox.fixtures.js'

afterAll(removePlaces)

async function bash(place: Place, command: string, options: Partial<KernelOptions>) {
  const kernel = createKernel({ tools: [Bash, Read], cwd: place.ws, approvals: 'deny', ...options })
  const { message } = await kernel.runTurn({
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command, timeout: 20_000 } }],
    stop_reason: 'tool_use',
  })
  const block = message.content[0]
  if (block === undefined) throw new Error('no tool_result')
  const permitted = kernel.log.read().find((e) => e.type === 'tool.permitted')
  return { block, text: JSON.stringify(block.content), permitted, kernel }
}

const rules = { allowSandboxed: ['Bash(touch made)'] }

describe('allowSandboxed is checked at createKernel', () => {
  const make = (allowSandboxed: unknown) => () =>
    createKernel({ tools: [Bash, Read], permissions: { allowSandboxed: allowSandboxed as string[] } })

  it.for([
    [
      ['Read(./src/**)'],
      /"Read\(\.\/src\/\*\*\)" \(allowSandboxed\) names Read, whose calls do not run in the OS sandbox: only tools that run commands there \(Bash\)/,
    ],
    [['@readOnly'], /"@readOnly" \(allowSandboxed\) is a flag rule/],
    [['Nope'], /"Nope" \(allowSandboxed\) names no tool of this kernel/],
    [['Bash('], /does not parse/],
    [[7], /permissions\.allowSandboxed must list rule strings, got 7/],
  ] as const)('%j is refused', ([list, message]) => {
    expect(make(list)).toThrow(message)
  })

  it('is accepted for Bash, and createKernel knows the option', () => {
    expect(make(['Bash', 'Bash(make test)'])).not.toThrow()
  })
})

describe('without a sandbox that runs, the rule allows nothing (runs everywhere)', () => {
  it('no sandbox configured: the call is not allowed and does not run', async () => {
    const place = makePlace()
    const { block, permitted } = await bash(place, 'touch made', { permissions: rules })
    expect(block.is_error).toBe(true)
    expect(permitted).toMatchObject({ behavior: 'deny' })
    expect(existsSync(join(place.ws, 'made'))).toBe(false)
  })

  it("the tool's sandbox is 'off': not allowed", async () => {
    const place = makePlace()
    const { block } = await bash(place, 'touch made', {
      permissions: rules,
      sandbox: { mode: 'workspace-write', tools: { Bash: { mode: 'off' } } },
    })
    expect(block.is_error).toBe(true)
    expect(existsSync(join(place.ws, 'made'))).toBe(false)
  })

  it('bubblewrap missing: the call never runs; once the check has failed, the rule allows nothing', async () => {
    const place = makePlace()
    const options: Partial<KernelOptions> = {
      permissions: rules,
      sandbox: { mode: 'workspace-write' },
      ports: { sandbox: createBubblewrap({ program: '/nonexistent/tk/bwrap' }) },
    }
    // The first decision comes before the machine was checked: the rule allows, the sandbox fails closed.
    const first = await bash(place, 'touch made', options)
    expect(first.block.is_error).toBe(true)
    expect(first.text).toMatch(/bubblewrap \(bwrap\)/)
    expect(existsSync(join(place.ws, 'made'))).toBe(false)
    const { message } = await first.kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'touch made' } }],
      stop_reason: 'tool_use',
    })
    expect(message.content[0]?.is_error).toBe(true)
    const second = first.kernel.log.read().filter((e) => e.type === 'tool.permitted')[1]
    expect(second).toMatchObject({ behavior: 'deny' })
    expect(existsSync(join(place.ws, 'made'))).toBe(false)
  })

  it('control: the same rule in allow allows the call without a sandbox', async () => {
    const place = makePlace()
    const { block } = await bash(place, 'touch made', { permissions: { allow: ['Bash(touch made)'] } })
    expect(block.is_error).not.toBe(true)
    expect(existsSync(join(place.ws, 'made'))).toBe(true)
  })
})

describe.skipIf(!bubblewrap)('with the sandbox running (needs bubblewrap)', () => {
  it('the rule allows the call, which runs sandboxed; the decision says why', async () => {
    const place = makePlace()
    const { block, permitted } = await bash(place, `touch made && touch ${place.out}/X`, {
      permissions: { allowSandboxed: ['Bash(touch:*)'] },
      sandbox: { mode: 'workspace-write' },
    })
    expect(permitted).toMatchObject({
      behavior: 'allow',
      source: 'rule',
      reason: expect.stringMatching(/allowSandboxed: it runs in the OS sandbox/),
    })
    expect(existsSync(join(place.ws, 'made'))).toBe(true)
    // Allowed, and still bounded: the write outside the workspace failed.
    expect(JSON.stringify(block.content)).toMatch(/read-only file system/i)
    expect(existsSync(join(place.out, 'X'))).toBe(false)
  })

  it('a command the rule does not cover is not allowed', async () => {
    const place = makePlace()
    const { block } = await bash(place, 'mkdir made', { permissions: rules, sandbox: { mode: 'workspace-write' } })
    expect(block.is_error).toBe(true)
    expect(existsSync(join(place.ws, 'made'))).toBe(false)
  })

  it('deny still beats it', async () => {
    const place = makePlace()
    const { block } = await bash(place, 'touch made', {
      permissions: { ...rules, deny: ['Bash(touch:*)'] },
      sandbox: { mode: 'workspace-write' },
    })
    expect(block.is_error).toBe(true)
    expect(existsSync(join(place.ws, 'made'))).toBe(false)
  })

  it('the rules are logged, and a replay decides the same', async () => {
    const place = makePlace()
    const { kernel } = await bash(place, 'touch made', { permissions: rules, sandbox: { mode: 'workspace-write' } })
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'session.configured')).toMatchObject({
      rules: { allowSandboxed: ['Bash(touch made)'] },
    })
    expect(events.find((e) => e.type === 'turn.started')).toMatchObject({
      permissions: { allowSandboxed: ['Bash(touch made)'] },
    })
    const again = await replay(events, { tools: [Bash, Read], cwd: place.ws })
    expect(again.ok, JSON.stringify(again)).toBe(true)
  })
})
