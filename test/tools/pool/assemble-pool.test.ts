/** assemblePool alone: filters first, then the threshold, then the loaded set; bad deferral options throw. */
import { describe, expect, it } from 'vitest'
import { assemblePool, poolSnapshot } from '../../../src/tools/pool/assemble-pool.js'
import { checkDeferralOptions, definitionChars, deferralOutcome } from '../../../src/tools/pool/threshold.js'
import { assistant, testKernel } from '../../helpers.js'
import { syntheticTool, syntheticTools } from './synthetic.js'

const base = { denied: () => false, mode: 'default', loaded: [] as string[] }

describe('assemblePool', () => {
  it('leaves out disabled, denied and mode-excluded tools, and says why', () => {
    const tools = [
      syntheticTool(0, { enabled: false }),
      syntheticTool(1),
      syntheticTool(2, { modes: ['plan'] }),
      syntheticTool(3, { defer: false }),
    ]
    const pool = assemblePool({ ...base, tools, denied: (t) => t.name === tools[1]?.name })
    expect(pool.filtered).toEqual([
      { name: tools[0]?.name, reason: 'disabled' },
      { name: tools[1]?.name, reason: 'denied' },
      { name: tools[2]?.name, reason: 'mode' },
    ])
    expect(poolSnapshot(pool)).toEqual({ visible: [tools[3]?.name], deferred: [], loaded: [] })
  })

  it('a tool that throws in isEnabled or in the deny check is left out (fail closed)', () => {
    const tool = syntheticTool(0)
    const throwing = {
      ...tool,
      isEnabled: () => {
        throw new Error('boom')
      },
    }
    expect(assemblePool({ ...base, tools: [throwing] }).filtered).toEqual([{ name: tool.name, reason: 'disabled' }])
    const denyThrows = assemblePool({
      ...base,
      tools: [tool],
      denied: () => {
        throw new Error('x')
      },
    })
    expect(denyThrows.filtered).toEqual([{ name: tool.name, reason: 'denied' }])
  })

  it('alwaysLoad wins over shouldDefer; loaded names keep their load order; unknown or visible loads are ignored', () => {
    const tools = [
      syntheticTool(0, { alwaysLoad: true }),
      ...syntheticTools(4).slice(1),
      syntheticTool(9, { defer: false }),
    ]
    const names = tools.map((t) => t.name)
    const pool = assemblePool({
      ...base,
      tools,
      loaded: [names[3] as string, 'Nope', names[1] as string, names[4] as string, names[3] as string],
      deferral: { mode: 'always' },
    })
    expect(poolSnapshot(pool)).toEqual({
      visible: [names[0], names[4]],
      deferred: [names[2]],
      loaded: [names[3], names[1]],
    })
    expect(pool.searchable.map((t) => t.name)).toEqual([names[1], names[2], names[3]])
  })

  it('the automatic threshold: a share of the context, or a count; never defers nothing', () => {
    const tools = syntheticTools(10)
    const chars = tools.reduce((sum, t) => sum + definitionChars(t), 0)
    const tokens = Math.ceil(chars / 4)
    expect(deferralOutcome(tools)).toEqual({ tokens, maxTokens: 20_000, count: 10, maxCount: 100, deferred: false })
    expect(deferralOutcome(tools, { contextTokens: tokens * 10 - 10 }).deferred).toBe(true)
    expect(deferralOutcome(tools, { contextTokens: tokens * 10 + 10 }).deferred).toBe(false)
    expect(deferralOutcome(tools, { maxTools: 9 }).deferred).toBe(true)
    expect(deferralOutcome(tools, { mode: 'never', maxTools: 0 }).deferred).toBe(false)
    expect(deferralOutcome([], { mode: 'always' }).deferred).toBe(false)
  })

  it('deferral options that could never work throw at createKernel', () => {
    expect(() => checkDeferralOptions({ share: 2 })).toThrow(/deferral.share must be between 0 and 1, got 2/)
    expect(() => checkDeferralOptions({ contextTokens: 0 })).toThrow(/contextTokens must be a positive number/)
    expect(() => checkDeferralOptions({ maxTools: 1.5 })).toThrow(/maxTools must be a non-negative integer/)
    expect(() => testKernel([], { deferral: { mode: 'sometimes' as 'auto' } })).toThrow(
      /deferral.mode must be auto, always or never/,
    )
  })

  it('session.configured records the pool settings when the pool is dynamic', async () => {
    const { events } = await testKernel(syntheticTools(2), { deferral: { maxTools: 1 } }).runTurn(assistant())
    expect(events.find((e) => e.type === 'session.configured')).toMatchObject({
      pool: { format: 'anthropic', deferral: { mode: 'auto', contextTokens: 200_000, share: 0.1, maxTools: 1 } },
    })
  })
})
