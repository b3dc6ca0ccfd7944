/**
 * Each step's events, through a kernel: the exact events each step decides for a
 * call that succeeds, one with hooks, one a hook blocks, one whose tool throws (after a pre-hook
 * too), one interrupted while the app is asked or while a hook runs, one persisted by the budget
 * step (or not, when the store fails), one whose mapper throws and one called by an alias.
 * Compared strictly: a key with an undefined value is a different event in memory, whatever JSON
 * makes of it.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type HooksConfig, type KernelEvent } from '../../../src/index.js'
import type { HookOutput } from '../../../src/hooks/config.js'
import { assistant, Echo, gate, testKernel } from '../../helpers.js'

/** The call's events without their envelope and ids. */
function steps(events: readonly KernelEvent[]): unknown[] {
  return events
    .filter((e) => e.type.startsWith('tool.') && e.type !== 'tool.requested' && e.type !== 'tool.queued')
    .map((e) => {
      const {
        v: _v,
        seq: _seq,
        at: _at,
        turnId: _turn,
        toolUseId: _id,
        ...rest
      } = e as KernelEvent & {
        toolUseId: string
      }
      return rest
    })
}

const hook = (name: string, answer: () => HookOutput): HooksConfig[keyof HooksConfig] => [
  { hooks: [{ type: 'function', name, fn: () => answer() }] },
]

/** An Echo call whose only hook, in `event`, never answers: the app aborts ('stop') while it runs. */
async function interruptedInHook(event: 'PreToolUse' | 'PostToolUse'): Promise<KernelEvent[]> {
  const controller = new AbortController()
  const running = gate()
  const hooks: HooksConfig = {
    [event]: [{ hooks: [{ type: 'function', name: 'slow', fn: () => (running.open(), new Promise(() => {})) }] }],
  }
  const turn = testKernel([Echo], { hooks }).runTurn(assistant(['a', 'Echo', { text: 'x' }]), {
    signal: controller.signal,
  })
  await running.opened
  controller.abort('stop')
  return (await turn).events
}

const echoed = {
  type: 'tool.result',
  outcome: 'success',
  block: { type: 'tool_result', tool_use_id: 'a', content: 'x' },
}

describe('the events each step records', () => {
  it('a call that succeeds', async () => {
    const { events } = await testKernel([Echo]).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(steps(events)).toStrictEqual([
      { type: 'tool.dispatched', batch: 0, running: 1 },
      { type: 'tool.parsed', tool: 'Echo' },
      { type: 'tool.validated' },
      {
        type: 'tool.permitted',
        behavior: 'allow',
        source: 'tool',
        // What the call says of itself, recorded with the decision (decision 141).
        flags: {
          readOnly: true,
          destructive: false,
          openWorld: false,
          userFacingName: 'Echo',
          activity: 'Running Echo',
        },
      },
      { type: 'tool.started', interrupt: 'block' },
      { type: 'tool.completed', output: 'x' },
      { type: 'tool.mapped', isError: false },
      echoed,
    ])
  })

  it('with hooks: parse says which phases have them, each hook step what it decided', async () => {
    const hooks: HooksConfig = {
      PreToolUse: hook('pre', () => ({})),
      PostToolUse: hook('post', () => ({ additionalContext: 'ctx' })),
    }
    const { events } = await testKernel([Echo], { hooks }).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    const recorded = steps(events)
    expect(recorded[1]).toStrictEqual({ type: 'tool.parsed', tool: 'Echo', hooks: { pre: true, post: true } })
    expect(recorded[3]).toStrictEqual({ type: 'tool.hooked', phase: 'pre', outcome: 'continue' })
    expect(recorded[8]).toStrictEqual({
      type: 'tool.hooked',
      phase: 'post',
      outcome: 'continue',
      additionalContext: 'ctx',
    })
  })

  it('a call a pre-hook blocks: the rejection, then what the hook said; nothing permitted or started', async () => {
    const hooks: HooksConfig = { PreToolUse: hook('pre', () => ({ decision: 'block', reason: 'no echo today' })) }
    const { events } = await testKernel([Echo], { hooks }).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(steps(events).slice(1, -1)).toStrictEqual([
      { type: 'tool.parsed', tool: 'Echo', hooks: { pre: true, post: false } },
      { type: 'tool.validated' },
      {
        type: 'tool.rejected',
        step: 'preHook',
        code: 'hook_blocked',
        message: 'A PreToolUse hook blocked this Echo call: no echo today',
      },
      { type: 'tool.hooked', phase: 'pre', outcome: 'block', reason: 'no echo today', decision: 'deny' },
      { type: 'tool.mapped', isError: true },
    ])
  })

  it('a tool that throws: the error and its class (Error when it has none of its own), no completion', async () => {
    const Boom = buildTool({
      name: 'Boom',
      description: () => 'b',
      inputSchema: z.object({}),
      call: async () => {
        throw Object.assign(new Error('connection reset'), { code: 'ECONNRESET' })
      },
    })
    const plain = buildTool({
      name: 'Plain',
      description: () => 'p',
      inputSchema: z.object({}),
      call: async () => Promise.reject(new Error('no class')),
    })
    const { events } = await testKernel([Boom, plain]).runTurn(assistant(['a', 'Boom', {}], ['b', 'Plain', {}]))
    const errored = steps(events).filter((e) => (e as { type: string }).type === 'tool.errored')
    expect(errored).toStrictEqual([
      { type: 'tool.errored', message: 'Boom failed: connection reset', errorClass: 'ECONNRESET' },
      { type: 'tool.errored', message: 'Plain failed: no class', errorClass: 'Error' },
    ])
    expect(events.some((e) => e.type === 'tool.completed')).toBe(false)
  })

  it('interrupted while the app is asked: cancelled at permission, nothing permitted', async () => {
    const W = buildTool({ name: 'W', description: () => 'w', inputSchema: z.object({}), call: async () => 'w' })
    const controller = new AbortController()
    let asked: () => void = () => undefined
    const asking = new Promise<void>((resolve) => (asked = resolve))
    const kernel = testKernel([W], {
      permissions: { mode: 'default', ask: ['W'] },
      canUseTool: () => (asked(), new Promise(() => {})),
    })
    const turn = kernel.runTurn(assistant(['a', 'W', {}]), { signal: controller.signal })
    await asking
    controller.abort('stop')
    const { events } = await turn
    expect(steps(events).slice(1, -1)).toStrictEqual([
      { type: 'tool.parsed', tool: 'W' },
      { type: 'tool.validated' },
      { type: 'tool.cancelled', step: 'permission', reason: 'stop' },
      { type: 'tool.mapped', isError: true },
    ])
  })

  it('an output the budget step persists: the completion names no output, the budget event the file', async () => {
    const Big = buildTool({
      name: 'Big',
      description: () => 'b',
      inputSchema: z.object({}),
      maxResultSizeChars: 10,
      call: async () => 'b'.repeat(50),
    })
    const results = { save: async () => '/r/a.txt' }
    const { events } = await testKernel([Big], { results }).runTurn(assistant(['a', 'Big', {}]))
    const recorded = steps(events)
    expect(recorded.slice(5, 8)).toStrictEqual([
      { type: 'tool.completed', persisted: true },
      { type: 'tool.budgeted', path: '/r/a.txt', chars: 50 },
      { type: 'tool.mapped', isError: false },
    ])
    // A store that fails saves nothing: the budget event says why, and claims no file.
    const failing = { save: async () => Promise.reject(new Error('disk full')) }
    const unsaved = await testKernel([Big], { results: failing }).runTurn(assistant(['a', 'Big', {}]))
    expect(steps(unsaved.events).slice(5, 8)).toStrictEqual([
      { type: 'tool.completed', persisted: true },
      { type: 'tool.budgeted', error: 'disk full', chars: 50 },
      { type: 'tool.mapped', isError: false },
    ])
  })

  it('a pre-hook that let the call through is recorded once, not again when the tool then fails', async () => {
    const Boom = buildTool({
      name: 'Boom',
      description: () => 'b',
      inputSchema: z.object({}),
      call: async () => Promise.reject(new Error('x')),
    })
    const hooks: HooksConfig = { PreToolUse: hook('pre', () => ({})) }
    const { events } = await testKernel([Boom], { hooks }).runTurn(assistant(['a', 'Boom', {}]))
    expect(steps(events).slice(1, -1)).toStrictEqual([
      { type: 'tool.parsed', tool: 'Boom', hooks: { pre: true, post: false } },
      { type: 'tool.validated' },
      { type: 'tool.hooked', phase: 'pre', outcome: 'continue' },
      {
        type: 'tool.permitted',
        behavior: 'allow',
        source: 'tool',
        // Declares neither read-only nor destructive: destructive, fail-closed (decision 142).
        flags: {
          readOnly: false,
          destructive: true,
          openWorld: false,
          userFacingName: 'Boom',
          activity: 'Running Boom',
        },
      },
      { type: 'tool.started', interrupt: 'block' },
      { type: 'tool.errored', message: 'Boom failed: x', errorClass: 'Error' },
      { type: 'tool.mapped', isError: true },
    ])
  })

  it('interrupted while a pre-hook runs: cancelled at preHook, and no hook outcome it never gave', async () => {
    expect(steps(await interruptedInHook('PreToolUse')).slice(1, -1)).toStrictEqual([
      { type: 'tool.parsed', tool: 'Echo', hooks: { pre: true, post: false } },
      { type: 'tool.validated' },
      { type: 'tool.cancelled', step: 'preHook', reason: 'stop' },
      { type: 'tool.mapped', isError: true },
    ])
  })

  it('interrupted while a post-hook runs: the result stands, and the post phase says continue', async () => {
    expect(steps(await interruptedInHook('PostToolUse')).slice(-2)).toStrictEqual([
      { type: 'tool.hooked', phase: 'post', outcome: 'continue' },
      echoed,
    ])
  })

  it('a mapper that throws: the map step records an error block and why, and no rejection', async () => {
    const BadMap = buildTool({
      name: 'BadMap',
      description: () => 'b',
      inputSchema: z.object({}),
      call: async () => 'o',
      mapToolResultToToolResultBlockParam: () => {
        throw new Error('map boom')
      },
    })
    const { events } = await testKernel([BadMap]).runTurn(assistant(['a', 'BadMap', {}]))
    expect(steps(events).slice(5, -1)).toStrictEqual([
      { type: 'tool.completed', output: 'o' },
      {
        type: 'tool.mapped',
        isError: true,
        failure: 'BadMap ran, but its result could not be turned into text: map boom',
      },
    ])
  })

  it('a call by an alias is parsed as the tool it names', async () => {
    const { events } = await testKernel([Echo]).runTurn(assistant(['a', 'Say', { text: 'x' }]))
    expect(steps(events)[1]).toStrictEqual({ type: 'tool.parsed', tool: 'Echo' })
  })
})
