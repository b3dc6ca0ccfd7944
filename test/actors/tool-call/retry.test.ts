/**
 * Retries for read-only and idempotent tools (docs/design.md §Deadlines and retries):
 * real tools in process, a fake clock for the backoff — nothing here sleeps.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type KernelEvent, type ToolDef } from '../../../src/index.js'
import { fakeClock } from '../../../src/testing/index.js'
import { assistant } from '../../helpers.js'
import { kernelOn, settle } from './timing-helpers.js'

const input = z.strictObject({ key: z.string().optional() })

/** Fails `failures` times with ECONNRESET, then answers `ok <n>`. */
function flaky(failures: number, more: Partial<ToolDef<{ key?: string | undefined }>> = {}) {
  let calls = 0
  const tool = buildTool({
    name: 'Lookup',
    description: () => 'Looks a key up over the network',
    inputSchema: input,
    idempotent: true,
    retry: { attempts: 3, backoff: { initialMs: 100, factor: 2 } },
    call: async () => {
      calls++
      if (calls <= failures) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
      return `ok ${calls}`
    },
    ...more,
  })
  return { tool, calls: () => calls }
}

const ofCall = (events: readonly KernelEvent[], id = 't1') =>
  events.filter((e) => 'toolUseId' in e && e.toolUseId === id)

describe('retries', () => {
  it('runs an idempotent tool again after its backoff, each failure and attempt in the log', async () => {
    const clock = fakeClock()
    const { tool, calls } = flaky(2)
    const kernel = kernelOn(clock, [tool])
    const turn = kernel.runTurn(assistant(['t1', 'Lookup', {}]))
    await settle()
    expect(calls()).toBe(1)
    clock.advance(99)
    await settle()
    expect(calls()).toBe(1)
    clock.advance(1)
    await settle()
    expect(calls()).toBe(2)
    clock.advance(200)
    const { message } = await turn
    expect(message.content[0]).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'ok 3' })
    const ladder = ofCall(kernel.log.read()).filter((e) => e.type === 'tool.retrying' || e.type === 'tool.restarted')
    expect(ladder.map((e) => ({ ...e, v: undefined, seq: undefined, at: undefined }))).toMatchObject([
      { type: 'tool.retrying', attempt: 1, delayMs: 100, error: 'socket hang up', errorClass: 'ECONNRESET' },
      { type: 'tool.restarted', attempt: 2 },
      { type: 'tool.retrying', attempt: 2, delayMs: 200 },
      { type: 'tool.restarted', attempt: 3 },
    ])
    // The backoff ran on the kernel's clock: the attempts are that far apart.
    expect(ladder[1]!.at - ladder[0]!.at).toBe(100)
  })

  it('says how many attempts were made when the last one fails too', async () => {
    const clock = fakeClock()
    const { tool, calls } = flaky(5)
    const kernel = kernelOn(clock, [tool])
    const turn = kernel.runTurn(assistant(['t1', 'Lookup', {}]))
    await settle()
    clock.advance(100)
    await settle()
    clock.advance(200)
    const { message } = await turn
    expect(calls()).toBe(3)
    expect(message.content[0]).toMatchObject({
      is_error: true,
      content: 'Lookup failed after 3 attempts: socket hang up',
    })
    expect(ofCall(kernel.log.read()).find((e) => e.type === 'tool.errored')).toMatchObject({
      attempts: 3,
      errorClass: 'ECONNRESET',
    })
  })

  it('asks retryOn, and never retries an abort by default', async () => {
    const clock = fakeClock()
    const refused = flaky(5, {
      retry: { attempts: 4, retryOn: (error) => (error as { code?: string }).code === 'EAI_AGAIN' },
    })
    const kernel = kernelOn(clock, [refused.tool])
    const { message } = await kernel.runTurn(assistant(['t1', 'Lookup', {}]))
    expect(refused.calls()).toBe(1)
    expect(message.content[0]?.content).toBe('Lookup failed after 1 attempt: socket hang up')

    let runs = 0
    const aborting = buildTool({
      name: 'Lookup',
      description: () => 'd',
      inputSchema: input,
      idempotent: true,
      retry: { attempts: 3 },
      call: async () => {
        runs++
        throw new DOMException('the request was aborted', 'AbortError')
      },
    })
    await kernelOn(clock, [aborting]).runTurn(assistant(['t2', 'Lookup', {}]))
    expect(runs).toBe(1)
  })

  it('retries a tool only for input it says is read-only', async () => {
    const clock = fakeClock()
    const { tool, calls } = flaky(5, {
      idempotent: false,
      isReadOnly: (value) => value.key === 'read',
      retry: { attempts: 2, backoff: { initialMs: 10 } },
    })
    const kernel = kernelOn(clock, [tool])
    const first = await kernel.runTurn(assistant(['t1', 'Lookup', { key: 'write' }]))
    expect(calls()).toBe(1)
    expect(first.message.content[0]?.content).toBe('Lookup failed: socket hang up')
    const second = kernel.runTurn(assistant(['t2', 'Lookup', { key: 'read' }]))
    await settle()
    clock.advance(10)
    expect((await second).message.content[0]?.content).toBe('Lookup failed after 2 attempts: socket hang up')
    expect(calls()).toBe(3)
  })

  it("stops the backoff at once on an abort, even for a 'block' tool", async () => {
    const clock = fakeClock()
    const { tool, calls } = flaky(5, { retry: { attempts: 3, backoff: { initialMs: 60_000 } } })
    const kernel = kernelOn(clock, [tool])
    const controller = new AbortController()
    const turn = kernel.runTurn(assistant(['t1', 'Lookup', {}]), { signal: controller.signal })
    await settle()
    expect(ofCall(kernel.log.read()).at(-1)?.type).toBe('tool.retrying')
    controller.abort('the user pressed stop')
    const { message } = await turn
    expect(message.content[0]?.content).toContain('Lookup was interrupted while running: the user pressed stop')
    clock.advance(120_000)
    await settle()
    expect(calls()).toBe(1)
    expect(ofCall(kernel.log.read()).map((e) => e.type)).not.toContain('tool.restarted')
  })

  // Fail closed: a tool that cannot say its input is read-only, or a retryOn that throws, is
  // not run again.
  it.each([
    [
      'isReadOnly throws',
      {
        idempotent: false,
        isReadOnly: () => {
          throw new Error('cannot tell')
        },
      },
    ],
    [
      'retryOn throws',
      {
        retry: {
          attempts: 3,
          retryOn: () => {
            throw new Error('cannot tell')
          },
        },
      },
    ],
  ] as const)('%s: no second attempt', async (_case, more) => {
    const { tool, calls } = flaky(5, more as Partial<ToolDef<{ key?: string | undefined }>>)
    const kernel = kernelOn(fakeClock(), [tool])
    const { message } = await kernel.runTurn(assistant(['t1', 'Lookup', {}]))
    expect(calls()).toBe(1)
    expect(String(message.content[0]?.content)).toMatch(/^Lookup failed/)
    expect(ofCall(kernel.log.read()).filter((e) => e.type === 'tool.retrying')).toEqual([])
  })

  it('lets one deadline cover every attempt, ending a backoff at once', async () => {
    const clock = fakeClock()
    const { tool, calls } = flaky(5, {
      timeoutMs: 250,
      interruptBehavior: () => 'block',
      retry: { attempts: 5, backoff: { initialMs: 100, factor: 2 } },
    })
    const kernel = kernelOn(clock, [tool])
    const turn = kernel.runTurn(assistant(['t1', 'Lookup', {}]))
    await settle()
    clock.advance(100)
    await settle()
    clock.advance(150)
    const { message } = await turn
    expect(calls()).toBe(2)
    expect(message.content[0]?.content).toContain(
      'Lookup timed out: it ran out of time after 250 ms (its deadline) over 2 attempts',
    )
    expect(ofCall(kernel.log.read()).find((e) => e.type === 'tool.timed_out')).toMatchObject({ attempts: 2 })
  })

  it('is refused by buildTool for a tool that is neither read-only nor idempotent, or with a bad policy', () => {
    const def = { name: 'Pay', description: () => 'Pays', inputSchema: input, call: async () => 'paid' }
    expect(() => buildTool({ ...def, retry: { attempts: 3 } })).toThrow(
      'buildTool(Pay): retry is only for tools that declare themselves read-only (isReadOnly) or idempotent (idempotent: true)',
    )
    const ok = { ...def, idempotent: true }
    expect(() => buildTool({ ...ok, retry: { attempts: 1 } })).toThrow(/retry.attempts must be a whole number/)
    expect(() => buildTool({ ...ok, retry: { attempts: 2.5 } })).toThrow(/retry.attempts/)
    expect(() => buildTool({ ...ok, retry: { attempts: 2, backoff: { initialMs: -1 } } })).toThrow(/initialMs/)
    expect(() => buildTool({ ...ok, retry: { attempts: 2, backoff: { initialMs: 1, factor: 0.5 } } })).toThrow(/factor/)
    expect(() => buildTool({ ...ok, retry: { attempts: 2, backoff: { initialMs: 10, maxMs: 5 } } })).toThrow(/maxMs/)
    expect(() => buildTool({ ...ok, retry: { attempts: 2, retryOn: 'yes' as never } })).toThrow(/retryOn/)
    expect(buildTool({ ...ok, retry: { attempts: 2 } }).retry).toEqual({ attempts: 2 })
  })
})
