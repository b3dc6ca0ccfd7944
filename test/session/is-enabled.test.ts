/** The pool reads `isEnabled` at every assembly (issue 29 item 5d): a tool that turns off leaves `apiTools()`. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, replay, type KernelEvent } from '../../src/index.js'
import { assistant, Echo, testKernel } from '../helpers.js'

const switchable = () => {
  const state = { on: true }
  const tool = buildTool({
    name: 'Lamp',
    description: () => 'A tool that can be switched off.',
    inputSchema: z.object({}),
    isEnabled: () => state.on,
    call: async () => 'lit',
  })
  return { state, tool }
}

const poolChanges = (events: readonly KernelEvent[]) =>
  events.filter((e): e is Extract<KernelEvent, { type: 'pool.changed' }> => e.type === 'pool.changed')

describe('isEnabled at every assembly', () => {
  it('a tool whose isEnabled() turns false disappears from apiTools() on the next turn and comes back when it turns true', async () => {
    const { state, tool } = switchable()
    const kernel = testKernel([Echo, tool])
    expect(kernel.apiTools().map((t) => t.name)).toEqual(['Echo', 'Lamp'])
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    state.on = false
    expect(kernel.apiTools().map((t) => t.name)).toEqual(['Echo'])
    const off = await kernel.runTurn(assistant(['b', 'Echo', { text: 'y' }]))
    expect(poolChanges(off.events)).toMatchObject([{ source: 'app', added: [], removed: [], disabled: ['Lamp'] }])
    state.on = true
    expect(kernel.apiTools().map((t) => t.name)).toEqual(['Echo', 'Lamp'])
    const on = await kernel.runTurn(assistant(['c', 'Lamp', {}]))
    expect(poolChanges(on.events)).toMatchObject([{ enabled: ['Lamp'] }])
    expect(on.message.content[0]).toMatchObject({ tool_use_id: 'c', content: 'lit' })
  })

  it('a tool disabled from the start is recorded with the first turn, and replay reads the switches from the log', async () => {
    const { state, tool } = switchable()
    state.on = false
    const kernel = testKernel([Echo, tool])
    const first = await kernel.runTurn(assistant(['a', 'Lamp', {}]))
    expect(poolChanges(first.events)).toMatchObject([{ disabled: ['Lamp'] }])
    expect(first.message.content[0]).toMatchObject({ is_error: true })
    state.on = true
    await kernel.runTurn(assistant(['b', 'Lamp', {}]))
    // Replayed with the tool switched off now: the log, not the tool, says when it was on.
    state.on = false
    const result = await replay(kernel.log.read(), { tools: [Echo, tool] })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('nothing is recorded while every tool stays enabled', async () => {
    const kernel = testKernel([Echo])
    const { events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(poolChanges(events)).toEqual([])
  })
})
