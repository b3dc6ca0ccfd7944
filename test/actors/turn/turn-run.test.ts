/**
 * A turn's life (turn-run.ts) alone, through a kernel: why calls not yet started were voided
 * (the stop reason, the app's abort reason), what starts while the message still streams (only
 * what the permission preview settles without asking, a denial included), the indices of calls
 * added one by one, that the app's abort lets a 'block' tool finish, that a second interruption
 * changes nothing, and that the result waits for the log to make the turn durable.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { assistant, gate, memoryLogWith, testKernel } from '../../helpers.js'

const text = (block: { content?: unknown } | undefined) => String(block?.content)

/** A tool that must run alone (not concurrency-safe), so a streaming turn never starts it early. */
function counting() {
  const state = { ran: 0 }
  const tool = buildTool({
    name: 'Touch',
    description: () => 't',
    inputSchema: z.object({}),
    call: async () => (state.ran++, 'touched'),
  })
  return { tool, state }
}

describe('calls not yet started when the message ended otherwise than with tool_use', () => {
  // [the stop reason, why the call did not run]
  const rows: Array<[string | null, string]> = [
    [null, 'the message ended without a stop reason, so calls not yet started were not run'],
    [
      'max_tokens',
      'the message ended with stop reason "max_tokens" instead of tool use, so calls not yet started were not run',
    ],
    ['error', "the model's stream failed before the message ended, so calls not yet started were not run"],
  ]
  it.each(rows)('stop reason %j', async (stopReason, reason) => {
    const { tool, state } = counting()
    const turn = testKernel([tool]).startTurn()
    turn.addToolUse({ id: 't', name: 'Touch', input: {} })
    turn.end(stopReason as string)
    const { message } = await turn.result()
    expect(state.ran).toBe(0)
    expect(text(message.content[0])).toBe(
      `Touch was cancelled before it ran: ${reason}. It had no effect; call it again if it is still needed.`,
    )
  })
})

describe("the app's abort reason, as the model reads it", () => {
  const DEFAULT = 'the user interrupted the turn'
  // [what signal.reason is, the reason given]
  const rows: Array<[string, () => AbortSignal, string]> = [
    ['none (an AbortError)', () => AbortSignal.abort(), DEFAULT],
    ['a string', () => AbortSignal.abort('user pressed Esc'), 'user pressed Esc'],
    ['an empty string', () => AbortSignal.abort(''), DEFAULT],
    ['an Error', () => AbortSignal.abort(new Error('deadline passed')), 'deadline passed'],
    ['an Error without a message', () => AbortSignal.abort(new Error('')), DEFAULT],
    ['something else', () => AbortSignal.abort(42), DEFAULT],
  ]
  it.each(rows)('%s', async (_what, signal, reason) => {
    const { tool } = counting()
    const { message } = await testKernel([tool]).runTurn(assistant(['t', 'Touch', {}]), { signal: signal() })
    expect(text(message.content[0])).toBe(
      `Touch was cancelled before it ran: ${reason}. It had no effect; call it again if it is still needed.`,
    )
  })
})

describe('what starts while the message still streams', () => {
  function safeTool(name: string, ran: string[]) {
    return buildTool({
      name,
      description: () => name,
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call: async () => (ran.push(name), 'looked'),
    })
  }

  it('a safe call the rules allow starts at once; one the rules ask about waits for the end', async () => {
    const ran: string[] = []
    const asked: string[] = []
    const kernel = testKernel([safeTool('Look', ran), safeTool('Peek', ran)], {
      permissions: { mode: 'default', allow: ['Look'], ask: ['Peek'] },
      canUseTool: async (request) => (asked.push(request.tool), { behavior: 'allow' }),
    })
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'a', name: 'Look', input: {} })
    turn.addToolUse({ id: 'b', name: 'Peek', input: {} })
    await new Promise((resolve) => setImmediate(resolve))
    expect(ran).toEqual(['Look'])
    expect(asked).toEqual([])
    turn.end()
    await turn.result()
    expect(asked).toEqual(['Peek'])
    expect(ran).toEqual(['Look', 'Peek'])
  })

  it('a safe call the rules deny is answered while the message still streams', async () => {
    const ran: string[] = []
    const kernel = testKernel([safeTool('Look', ran)], { permissions: { mode: 'default', deny: ['Look'] } })
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'a', name: 'Look', input: {} })
    await new Promise((resolve) => setImmediate(resolve))
    // Denied before the end: the preview settled it, so it did not wait for the message.
    expect(kernel.log.read().find((e) => e.type === 'tool.result')).toMatchObject({ toolUseId: 'a', outcome: 'error' })
    turn.end()
    await turn.result()
    expect(ran).toEqual([])
  })

  it('calls added one by one keep their order as indices 0, 1, 2', async () => {
    const ran: string[] = []
    const turn = testKernel([safeTool('Look', ran)]).startTurn()
    for (const id of ['a', 'b', 'c']) turn.addToolUse({ id, name: 'Look', input: {} })
    turn.end()
    const { events } = await turn.result()
    expect(events.filter((e) => e.type === 'tool.requested').map((e) => [e.toolUseId, e.index])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ])
  })

  // The early-start preview runs the tool's checkPermissions once more than the permission step. It
  // ran for every call, though only a safe call under earlyStart 'safe' reads it.
  it.each<['safe' | 'none' | 'all', boolean, number]>([
    ['safe', true, 2],
    ['safe', false, 1],
    ['none', true, 1],
    ['all', true, 1],
  ])(
    "earlyStart %j, concurrency-safe %j: the tool's checkPermissions runs %j times",
    async (earlyStart, safe, times) => {
      let checked = 0
      const Checked = buildTool({
        name: 'Checked',
        description: () => 'c',
        inputSchema: z.object({}),
        isConcurrencySafe: () => safe,
        checkPermissions: () => (checked++, { behavior: 'allow' as const }),
        call: async () => 'ok',
      })
      const turn = testKernel([Checked], { earlyStart }).startTurn()
      turn.addToolUse({ id: 'c', name: 'Checked', input: {} })
      turn.end()
      await turn.result()
      expect(checked).toBe(times)
    },
  )
})

describe('interruptions', () => {
  it("the app's abort does not force a running 'block' tool to stop: it finishes, and its result stands", async () => {
    const release = gate()
    const started = gate()
    const Block = buildTool({
      name: 'Block',
      description: () => 'b',
      inputSchema: z.object({}),
      call: async () => (started.open(), await release.opened, 'finished'),
    })
    const controller = new AbortController()
    const turn = testKernel([Block]).runTurn(assistant(['b', 'Block', {}]), { signal: controller.signal })
    await started.opened
    controller.abort('stop')
    release.open()
    const { message, events } = await turn
    expect(events.find((e) => e.type === 'turn.aborted')).toMatchObject({ reason: 'stop' })
    expect(text(message.content[0])).toBe('finished')
  })

  it('a second discard, or one once the turn is over, logs nothing more', async () => {
    const release = gate()
    const Hold = buildTool({
      name: 'Hold',
      description: () => 'h',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      call: async () => (await release.opened, 'held'),
    })
    const kernel = testKernel([Hold])
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'h', name: 'Hold', input: {} })
    turn.discard('first')
    turn.discard('second')
    release.open()
    const { events, discarded } = await turn.result()
    expect(discarded).toBe(true)
    expect(events.filter((e) => e.type === 'turn.discarded')).toMatchObject([{ reason: 'first' }])
    const logged = kernel.log.read().length
    turn.discard('late')
    expect(kernel.log.read().length).toBe(logged)
  })
})

describe('the result', () => {
  it('has no logError while the log works', async () => {
    const { tool } = counting()
    const result = await testKernel([tool]).runTurn(assistant(['t', 'Touch', {}]))
    expect('logError' in result).toBe(false)
  })

  it('waits for the fence after turn.completed: it is returned once the turn is durable', async () => {
    const fences: Array<() => void> = []
    const log = memoryLogWith(() => ({ fence: () => new Promise<void>((resolve) => fences.push(resolve)) }))
    const { tool } = counting()
    let settled = false
    const turn = testKernel([tool], { log })
      .runTurn(assistant(['t', 'Touch', {}]))
      .then((result) => ((settled = true), result))
    // The write-ahead fence before the tool, then the fence after turn.completed.
    for (let fence = 0; fence < 2; fence++) {
      while (fences.length <= fence) await new Promise((resolve) => setImmediate(resolve))
      expect(settled).toBe(false)
      fences[fence]?.()
    }
    const { message } = await turn
    expect(log.read().at(-1)?.type).toBe('turn.completed')
    expect(text(message.content[0])).toBe('touched')
  })
})
