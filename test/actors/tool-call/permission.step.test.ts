/**
 * The permission step alone, through a kernel: what it records for a denial, for input the app
 * edited (validated again: a call runs with it, or is refused at permission), and for a tool's own
 * check that throws.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type KernelEvent } from '../../../src/index.js'
import { assistant, Echo, testKernel } from '../../helpers.js'

const asking = { permissions: { mode: 'default' as const, ask: ['Echo'] } }
const find = (events: readonly KernelEvent[], type: KernelEvent['type']) => events.find((e) => e.type === type)

describe('the permission step', () => {
  it('a denial: the decision with its reason, and a rejection at permission', async () => {
    const kernel = testKernel([Echo], {
      ...asking,
      canUseTool: async () => ({ behavior: 'deny', message: 'not now' }),
    })
    const { events, message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(find(events, 'tool.permitted')).toMatchObject({ behavior: 'deny', reason: 'not now' })
    expect(find(events, 'tool.rejected')).toMatchObject({ step: 'permission', code: 'permission_denied' })
    expect(String(message.content[0]?.content)).toContain('not now')
  })

  it('input the app edited runs, validated again', async () => {
    const kernel = testKernel([Echo], {
      ...asking,
      canUseTool: async () => ({ behavior: 'allow', updatedInput: { text: 'edited' } }),
    })
    const { events, message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(find(events, 'tool.permitted')).toMatchObject({ behavior: 'allow', updatedInput: { text: 'edited' } })
    expect(message.content[0]?.content).toBe('edited')
  })

  it('edited input the schema refuses: the call is refused at permission, and does not run', async () => {
    const kernel = testKernel([Echo], {
      ...asking,
      canUseTool: async () => ({ behavior: 'allow', updatedInput: { text: 7 } }),
    })
    const { events, message } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(find(events, 'tool.rejected')).toMatchObject({ step: 'permission' })
    expect(events.some((e) => e.type === 'tool.started')).toBe(false)
    expect(message.content[0]?.is_error).toBe(true)
  })

  it("a tool's own check that denies without a message: the denial says no reason was given", async () => {
    const Terse = buildTool({
      name: 'Terse',
      description: () => 't',
      inputSchema: z.object({}),
      // A JavaScript tool can leave the message out; the model is still told it was denied.
      checkPermissions: () => ({ behavior: 'deny' }) as never,
      call: async () => 'ran',
    })
    const { events, message } = await testKernel([Terse]).runTurn(assistant(['t', 'Terse', {}]))
    expect(find(events, 'tool.rejected')).toMatchObject({ step: 'permission', code: 'permission_denied' })
    expect(String(message.content[0]?.content)).toContain('no reason given')
    expect(events.some((e) => e.type === 'tool.started')).toBe(false)
  })

  it("a tool's own check that throws: denied by the tool, saying the check failed", async () => {
    const Picky = buildTool({
      name: 'Picky',
      description: () => 'p',
      inputSchema: z.object({}),
      checkPermissions: () => {
        throw new Error('policy server down')
      },
      call: async () => 'ran',
    })
    const { events, message } = await testKernel([Picky]).runTurn(assistant(['p', 'Picky', {}]))
    expect(find(events, 'tool.permitted')).toMatchObject({
      behavior: 'deny',
      source: 'tool',
      reason: 'policy server down',
    })
    expect(find(events, 'tool.rejected')).toMatchObject({ step: 'permission', code: 'permission_denied' })
    expect(String(message.content[0]?.content)).toContain('the permission check failed (policy server down)')
  })
})
