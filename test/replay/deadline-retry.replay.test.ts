/**
 * A log with deadlines and retry ladders replays without divergence (docs/design.md
 * §Deadlines and retries): the timers open where the log shows they fired, and each attempt answers
 * as it did. Recorded live on a fake clock, with real tools in process.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, replay, type Tool } from '../../src/index.js'
import { toolsForReplay } from '../../src/cli/stand-ins.js'
import { fakeClock } from '../../src/testing/index.js'
import { assistant } from '../helpers.js'
import { kernelOn, settle } from '../actors/tool-call/timing-helpers.js'

const input = z.strictObject({ n: z.number() })

/** Tools whose behaviour depends only on their input (the n-th attempt of input n succeeds). */
function tools(hangTimeoutMs?: number): Tool[] {
  const runs = new Map<string, number>()
  const lookup = (name: string, initialMs: number, attempts: number) =>
    buildTool({
      name,
      description: () => 'd',
      inputSchema: input,
      idempotent: true,
      timeoutMs: 1_000,
      retry: { attempts, backoff: { initialMs } },
      call: async ({ n }, { toolUseId, onProgress }) => {
        const run = (runs.get(toolUseId) ?? 0) + 1
        runs.set(toolUseId, run)
        await Promise.resolve()
        onProgress(`attempt ${run}`)
        if (run < n) throw Object.assign(new Error(`refused (${run})`), { code: 'ECONNREFUSED' })
        return `found on attempt ${run}`
      },
    })
  const hang = (name: string, interrupt: 'cancel' | 'block') =>
    buildTool({
      name,
      description: () => 'd',
      inputSchema: input,
      interruptBehavior: () => interrupt,
      isConcurrencySafe: () => true,
      ...(hangTimeoutMs === undefined ? {} : { timeoutMs: hangTimeoutMs }),
      call: (_input, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))),
    })
  return [
    lookup('Lookup', 100, 3),
    lookup('SlowBackoff', 600, 5),
    hang('HangCancel', 'cancel'),
    hang('HangBlock', 'block'),
  ]
}

describe('replay of deadlines and retries', () => {
  it('re-reads a retry ladder, a spent ladder, and timeouts of both kinds', async () => {
    const clock = fakeClock()
    const kernel = kernelOn(clock, tools(), { toolTimeoutMs: 500, timeoutGraceMs: 200 })
    const turn = kernel.runTurn(assistant(['a', 'HangCancel', { n: 0 }], ['b', 'HangBlock', { n: 0 }]))
    await settle()
    clock.advance(500)
    await settle()
    clock.advance(200)
    await turn
    const ladder = kernel.runTurn(assistant(['c', 'Lookup', { n: 3 }]))
    for (let i = 0; i < 4; i++) {
      await settle()
      clock.advance(100)
    }
    await ladder
    const spent = kernel.runTurn(assistant(['d', 'Lookup', { n: 9 }]))
    for (let i = 0; i < 4; i++) {
      await settle()
      clock.advance(100)
    }
    const { message } = await spent
    expect(message.content[0]?.content).toBe('Lookup failed after 3 attempts: refused (3)')
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'tool.timed_out')).toHaveLength(2)
    expect(events.filter((e) => e.type === 'tool.retrying')).toHaveLength(4)

    const result = await replay(events, { tools: tools() })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
    // Without the app's tools (the CLI's stand-ins, built from the log), the ladders replay too.
    const { tools: standIns, standIns: stood } = toolsForReplay(events, undefined, [])
    expect(stood).toEqual(['Lookup', 'SlowBackoff', 'HangCancel', 'HangBlock'])
    const standalone = await replay(events, { tools: standIns })
    expect(standalone.ok ? 'ok' : standalone.divergence.message).toBe('ok')
  })

  it('re-reads an abort during a backoff, and a deadline that fell in one', async () => {
    const clock = fakeClock()
    const kernel = kernelOn(clock, tools())
    const controller = new AbortController()
    const aborted = kernel.runTurn(assistant(['a', 'Lookup', { n: 3 }]), { signal: controller.signal })
    await settle()
    controller.abort('stop')
    await aborted
    const late = kernel.runTurn(assistant(['b', 'Lookup', { n: 9 }]))
    for (let i = 0; i < 12; i++) {
      await settle()
      clock.advance(100)
    }
    expect((await late).message.content[0]?.content).toContain('Lookup failed after 3 attempts')
    const expired = kernel.runTurn(assistant(['c', 'SlowBackoff', { n: 9 }]))
    for (let i = 0; i < 12; i++) {
      await settle()
      clock.advance(100)
    }
    expect((await expired).message.content[0]?.content).toContain(
      'ran out of time after 1000 ms (its deadline) over 2 attempts',
    )
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'tool.cancelled')).toHaveLength(1)
    const result = await replay(events, { tools: tools() })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('reports where a changed deadline now decides differently', async () => {
    const clock = fakeClock()
    const kernel = kernelOn(clock, tools(), { toolTimeoutMs: 500 })
    const turn = kernel.runTurn(assistant(['a', 'HangCancel', { n: 0 }]))
    await settle()
    clock.advance(500)
    await turn
    const changed = tools(700)
    const result = await replay(kernel.log.read(), { tools: changed })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.divergence.expected?.type).toBe('tool.timed_out')
  })
})
