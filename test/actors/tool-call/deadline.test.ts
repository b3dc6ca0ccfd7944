/**
 * Deadlines for app tools (docs/design.md §Deadlines and retries): real tools in
 * process, on a fake clock — nothing here sleeps.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createKernel, createMemoryLog, recover, type KernelEvent } from '../../../src/index.js'
import { fakeClock } from '../../../src/testing/index.js'
import { assistant } from '../../helpers.js'
import { kernelOn, settle } from './timing-helpers.js'

const input = z.strictObject({})

/** A tool that never settles unless its signal is aborted (then it rejects, as fetch does). */
function hanging(name: string, interrupt: 'cancel' | 'block', more: Partial<Parameters<typeof buildTool>[0]> = {}) {
  const seen: { signal?: AbortSignal } = {}
  const tool = buildTool({
    name,
    description: () => `${name} hangs`,
    inputSchema: input,
    interruptBehavior: () => interrupt,
    call: (_input, { signal }) => {
      seen.signal = signal
      return new Promise((_resolve, reject) => {
        if (interrupt === 'cancel') signal.addEventListener('abort', () => reject(signal.reason as Error))
      })
    },
    ...more,
  })
  return { tool, seen }
}

/** A tool whose call settles when the test says. */
function held(name: string, interrupt: 'cancel' | 'block', timeoutMs?: number) {
  let settle: (value: string) => void = () => undefined
  const tool = buildTool({
    name,
    description: () => `${name} waits`,
    inputSchema: input,
    interruptBehavior: () => interrupt,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    call: () => new Promise<string>((resolve) => (settle = resolve)),
  })
  return { tool, settle: (value: string) => settle(value) }
}

/** Whether a promise has settled yet. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false
  void promise.then(
    () => (done = true),
    () => (done = true),
  )
  await settle()
  return done
}

const types = (events: readonly KernelEvent[], id: string) =>
  events.filter((e) => 'toolUseId' in e && e.toolUseId === id).map((e) => e.type)

describe('a deadline', () => {
  it("ends a hanging 'cancel' tool at its deadline: its signal aborted, a timed_out result the model can read", async () => {
    const clock = fakeClock()
    const { tool, seen } = hanging('Fetch', 'cancel', { timeoutMs: 1_000 })
    const kernel = kernelOn(clock, [tool])
    const turn = kernel.runTurn(assistant(['t1', 'Fetch', {}]))
    await settle()
    clock.advance(999)
    expect(await settled(turn)).toBe(false)
    clock.advance(1)
    const { message } = await turn
    const block = message.content[0]!
    expect(block.is_error).toBe(true)
    expect(block.content).toContain('Fetch timed out: it ran out of time after 1000 ms (its deadline)')
    expect(block.content).toContain('may or may not have finished its work')
    expect(seen.signal?.aborted).toBe(true)
    expect(seen.signal?.reason).toMatchObject({ name: 'TimeoutError', message: 'Fetch ran out of time after 1000 ms' })
    const events = kernel.log.read()
    expect(types(events, 't1')).toEqual([
      'tool.requested',
      'tool.queued',
      'tool.dispatched',
      'tool.parsed',
      'tool.validated',
      'tool.permitted',
      'tool.started',
      'tool.timed_out',
      'tool.mapped',
      'tool.result',
    ])
    expect(events.find((e) => e.type === 'tool.timed_out')).toMatchObject({ timeoutMs: 1_000 })
    expect(events.find((e) => e.type === 'tool.result')).toMatchObject({ outcome: 'error' })
  })

  it("gives a hanging 'block' tool the grace, then abandons it with a timed_out result", async () => {
    const clock = fakeClock()
    const { tool, seen } = hanging('Deploy', 'block', { timeoutMs: 1_000 })
    const kernel = kernelOn(clock, [tool], { timeoutGraceMs: 500 })
    const turn = kernel.runTurn(assistant(['t1', 'Deploy', {}]))
    await settle()
    clock.advance(1_000)
    expect(await settled(turn)).toBe(false)
    // A 'block' tool is not told to stop at the deadline, only once it is abandoned.
    expect(seen.signal?.aborted ?? false).toBe(false)
    clock.advance(499)
    expect(await settled(turn)).toBe(false)
    clock.advance(1)
    const { message } = await turn
    expect(message.content[0]?.content).toContain(
      'Deploy timed out: it ran out of time after 1000 ms (its deadline and the 500 ms of grace after it)',
    )
    expect(seen.signal?.aborted).toBe(true)
    expect(kernel.log.read().find((e) => e.type === 'tool.timed_out')).toMatchObject({ timeoutMs: 1_000, graceMs: 500 })
  })

  it("keeps a 'block' tool's own result when it finishes within the grace", async () => {
    const clock = fakeClock()
    const { tool, settle: finish } = held('Deploy', 'block', 1_000)
    const kernel = kernelOn(clock, [tool])
    const turn = kernel.runTurn(assistant(['t1', 'Deploy', {}]))
    await settle()
    clock.advance(1_500)
    finish('deployed')
    const { message } = await turn
    expect(message.content[0]).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'deployed' })
    expect(types(kernel.log.read(), 't1')).not.toContain('tool.timed_out')
    clock.advance(10_000) // the grace timer was cleared: nothing more is logged
    expect(kernel.log.read().at(-1)?.type).toBe('turn.completed')
  })

  it('applies the kernel default to tools without their own; Infinity opts out; none by default', async () => {
    const clock = fakeClock()
    const slow = hanging('Slow', 'cancel')
    const own = held('Own', 'cancel', Infinity)
    const kernel = kernelOn(clock, [slow.tool, own.tool], { toolTimeoutMs: 2_000 })
    const turn = kernel.runTurn(assistant(['a', 'Slow', {}]))
    await settle()
    clock.advance(2_000)
    expect((await turn).message.content[0]?.content).toContain('ran out of time after 2000 ms')
    const second = kernel.runTurn(assistant(['b', 'Own', {}]))
    await settle()
    clock.advance(60_000)
    expect(await settled(second)).toBe(false)
    own.settle('done')
    expect((await second).message.content[0]?.content).toBe('done')
    // The default is in the log's configuration, for replay.
    const configured = kernel.log.read().find((e) => e.type === 'session.configured')
    expect(configured).toMatchObject({ limits: { toolTimeoutMs: 2_000, timeoutGraceMs: 1_000 } })

    const plain = kernelOn(fakeClock(), [hanging('Slow', 'cancel').tool])
    const never = plain.runTurn(assistant(['c', 'Slow', {}]))
    expect(await settled(never)).toBe(false)
    expect(plain.log.read().find((e) => e.type === 'session.configured')).not.toHaveProperty('limits.toolTimeoutMs')
  })

  it('lets an abort before the deadline win, and clears the deadline', async () => {
    const clock = fakeClock()
    const { tool } = hanging('Fetch', 'cancel', { timeoutMs: 1_000 })
    const kernel = kernelOn(clock, [tool])
    const controller = new AbortController()
    const turn = kernel.runTurn(assistant(['t1', 'Fetch', {}]), { signal: controller.signal })
    await settle()
    clock.advance(500)
    controller.abort('the user pressed stop')
    const { message } = await turn
    expect(message.content[0]?.content).toContain('Fetch was interrupted while running: the user pressed stop')
    clock.advance(5_000)
    await settle()
    expect(types(kernel.log.read(), 't1')).not.toContain('tool.timed_out')
  })

  it("ends a 'block' tool at its deadline even after a plain abort let it run on", async () => {
    const clock = fakeClock()
    const { tool } = hanging('Deploy', 'block', { timeoutMs: 1_000 })
    const kernel = kernelOn(clock, [tool], { timeoutGraceMs: 0 })
    const controller = new AbortController()
    const turn = kernel.runTurn(assistant(['t1', 'Deploy', {}]), { signal: controller.signal })
    await settle()
    controller.abort('stop')
    expect(await settled(turn)).toBe(false)
    clock.advance(1_000)
    expect((await turn).message.content[0]?.content).toContain('Deploy timed out')
  })

  it('refuses deadlines that could never work', () => {
    const def = { name: 'T', description: () => 'T', inputSchema: input, call: async () => 'x' }
    for (const timeoutMs of [0, -1, Number.NaN, '5' as unknown as number])
      expect(() => buildTool({ ...def, timeoutMs })).toThrow(/timeoutMs must be a positive number of milliseconds/)
    for (const toolTimeoutMs of [0, -1, Number.NaN, '5' as unknown as number])
      expect(() => createKernel({ tools: [], toolTimeoutMs })).toThrow(/toolTimeoutMs must be a positive number/)
    for (const timeoutGraceMs of [-1, Infinity, Number.NaN, '5' as unknown as number])
      expect(() => createKernel({ tools: [], timeoutGraceMs })).toThrow(/timeoutGraceMs must be a number/)
    // The edges that work: any positive deadline (Infinity: none), and no grace at all.
    expect(() => createKernel({ tools: [], toolTimeoutMs: Infinity, timeoutGraceMs: 0 })).not.toThrow()
    expect(() => createKernel({ tools: [], toolTimeoutMs: 0.5 })).not.toThrow()
  })

  // A clock port without timers (clock.port.ts): the deadline runs on the platform's setTimeout,
  // fires, and a call that ends first leaves no timer behind.
  it("a clock without setTimeout: the platform's timers fire the deadline, and are cleared when the call ends", async () => {
    const now = { now: () => Date.now() }
    const Hang = buildTool({
      name: 'Hang',
      description: () => 'Never returns until stopped.',
      inputSchema: input,
      interruptBehavior: () => 'cancel',
      timeoutMs: 20,
      call: (_input, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    })
    const hung = await createKernel({ tools: [Hang], ports: { clock: now } }).runTurn(assistant(['h', 'Hang', {}]))
    expect(hung.message.content[0]?.content).toContain('Hang timed out')

    const Quick = buildTool({
      name: 'Quick',
      description: () => 'Answers.',
      inputSchema: input,
      timeoutMs: 600_000,
      call: async () => 'done',
    })
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
    const before = timers()
    const quick = await createKernel({ tools: [Quick], ports: { clock: now } }).runTurn(assistant(['q', 'Quick', {}]))
    expect(quick.message.content[0]?.content).toBe('done')
    expect(timers()).toBeLessThanOrEqual(before)

    // Infinity is no deadline at all (the platform would fire a timer of Infinity ms at once).
    const Patient = buildTool({
      name: 'Patient',
      description: () => 'Takes its time.',
      inputSchema: input,
      timeoutMs: Infinity,
      call: () => new Promise<string>((resolve) => setTimeout(() => resolve('in time'), 30)),
    })
    const patient = await createKernel({ tools: [Patient], ports: { clock: now } }).runTurn(
      assistant(['p', 'Patient', {}]),
    )
    expect(patient.message.content[0]?.content).toBe('in time')
  })

  it('recovery words a call that timed out before the process stopped as timed out', () => {
    const clock = fakeClock()
    const log = createMemoryLog(clock)
    const ids = { turnId: 'turn_1', toolUseId: 't1' }
    log.append({ type: 'turn.started', turnId: 'turn_1', mode: 'batch', maxConcurrency: 1 })
    log.append({ type: 'tool.requested', ...ids, index: 0, name: 'Fetch', input: {} })
    log.append({ type: 'tool.parsed', ...ids, tool: 'Fetch' })
    log.append({ type: 'tool.validated', ...ids })
    log.append({ type: 'tool.permitted', ...ids, behavior: 'allow', source: 'default' })
    log.append({ type: 'tool.started', ...ids, interrupt: 'cancel' })
    log.append({ type: 'tool.progress', ...ids, data: 'halfway' })
    log.append({ type: 'tool.timed_out', ...ids, timeoutMs: 300 })
    const closed = recover(log.read())
    const result = closed.find((e) => e.type === 'tool.result')
    expect(result).toMatchObject({ outcome: 'cancelled' })
    const text = (result as { block: { content: string } }).block.content
    expect(text).toContain('Fetch timed out: it ran out of time after 300 ms')
    expect(text).toContain('Output before it was stopped:\nhalfway')
  })
})
