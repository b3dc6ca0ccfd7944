/** Calls that wait for a person: parked at permission, answered later, the same message in the end. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createMemoryLog, replay, type KernelEvent } from '../../src/index.js'
import { assistant, counterIds, fixedClock, gate, testKernel } from '../helpers.js'

const ran: string[] = []
const Asker = buildTool({
  name: 'Asker',
  description: () => 'asks first',
  inputSchema: z.object({ text: z.string() }),
  checkPermissions: () => ({ behavior: 'ask', message: 'it changes things' }),
  call: async ({ text }) => {
    ran.push(text)
    return `ran ${text}`
  },
})
const Echo = buildTool({
  name: 'Echo',
  description: () => 'echo',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ text }) => `echo ${text}`,
})

const types = (events: readonly KernelEvent[]) => events.map((e) => e.type)

describe('durable approvals', () => {
  it('an ask with nobody to answer parks the call; the answer gives the message an uninterrupted run gives', async () => {
    ran.length = 0
    const message = assistant(['a', 'Echo', { text: 'x' }], ['b', 'Asker', { text: 'y' }], ['c', 'Echo', { text: 'z' }])
    const kernel = testKernel([Asker, Echo])
    const first = await kernel.runTurn(message)
    expect(first.pending.map((p) => [p.toolUseId, p.tool, p.input, p.reason])).toEqual([
      ['b', 'Asker', { text: 'y' }, 'it changes things'],
    ])
    expect(ran).toEqual([])
    expect(types(first.events)).toContain('turn.parked')
    expect(types(first.events)).not.toContain('turn.completed')
    expect(kernel.pendingApprovals().map((p) => p.toolUseId)).toEqual(['b'])

    const done = await kernel.answer('b', { behavior: 'allow', digest: first.pending[0]?.digest ?? '' })
    expect(done.pending).toEqual([])
    expect(ran).toEqual(['y'])
    expect(kernel.pendingApprovals()).toEqual([])

    const asked = testKernel([Asker, Echo], { canUseTool: () => ({ behavior: 'allow' }) })
    const uninterrupted = await asked.runTurn(message)
    expect(done.message).toEqual(uninterrupted.message)
  })

  it('a call behind a parked unsafe call waits; a safe call beside a parked safe one runs', async () => {
    ran.length = 0
    const kernel = testKernel([Asker, Echo])
    const first = await kernel.runTurn(assistant(['a', 'Asker', { text: '1' }], ['b', 'Echo', { text: '2' }]))
    expect(first.pending.map((p) => p.toolUseId)).toEqual(['a'])
    const parked = first.events.find((e) => e.type === 'turn.parked')
    expect(parked).toMatchObject({ pending: ['a'], waiting: ['b'] })
    expect(first.events.some((e) => e.type === 'tool.result' && e.toolUseId === 'b')).toBe(false)
    const done = await kernel.answer('a', { behavior: 'deny', message: 'not today' })
    expect(done.message.content.map((b) => b.tool_use_id)).toEqual(['a', 'b'])
    expect(ran).toEqual([])
  })

  it('an approval for input A cannot allow input B, and a second answer is refused', async () => {
    const kernel = testKernel([Asker])
    const first = await kernel.runTurn(assistant(['a', 'Asker', { text: 'A' }]))
    await expect(kernel.answer('a', { behavior: 'allow', digest: 'not-the-digest' })).rejects.toThrow(/digest/)
    await kernel.answer('a', { behavior: 'allow', digest: first.pending[0]?.digest ?? '' })
    await expect(kernel.answer('a', { behavior: 'allow' })).rejects.toThrow(/has its result already/)
    await expect(kernel.answer('zzz', { behavior: 'allow' })).rejects.toThrow(/no tool call zzz/)
  })

  it('answers of the wrong shape are refused by name', async () => {
    const kernel = testKernel([Asker])
    await kernel.runTurn(assistant(['a', 'Asker', { text: 'A' }]))
    await expect(kernel.answer('a', { behavior: 'maybe' } as never)).rejects.toThrow(
      /behavior must be 'allow' or 'deny'/,
    )
    await expect(kernel.answer('a', { behavior: 'deny' } as never)).rejects.toThrow(/needs a message/)
    await expect(kernel.answer('a', { behavior: 'allow', input: {} } as never)).rejects.toThrow(/unknown field input/)
    await expect(kernel.answer('a', { behavior: 'allow', grant: { scope: 'rule' } } as never)).rejects.toThrow(
      /names the rule/,
    )
  })

  it('a parked turn goes on in another kernel over the same log, and recovery keeps it parked', async () => {
    ran.length = 0
    const log = createMemoryLog(fixedClock())
    const one = testKernel([Asker], { log })
    await one.runTurn(assistant(['a', 'Asker', { text: 'later' }]))
    const two = one.resume(log)
    expect(types(log.read()).filter((t) => t === 'turn.recovered')).toEqual([])
    const [pending] = two.pendingApprovals()
    expect(pending).toMatchObject({ toolUseId: 'a', input: { text: 'later' } })
    const done = await two.answer('a', { behavior: 'allow', digest: pending?.digest ?? '' })
    expect(ran).toEqual(['later'])
    expect(done.message.content).toHaveLength(1)
    expect(done.events.filter((e) => e.type === 'tool.result')).toHaveLength(1)
  })

  it('an answer the log records for other input than the parked call has denies, whatever it said', async () => {
    const kernel = testKernel([Asker], { ports: { clock: fixedClock(), ids: counterIds() } })
    await kernel.runTurn(assistant(['a', 'Asker', { text: 'shown' }]))
    const [pending] = kernel.pendingApprovals()
    await kernel.answer('a', { behavior: 'allow', digest: pending?.digest ?? '' })
    // Control: the log as written replays.
    expect((await replay(kernel.log.read(), { tools: [Asker] })).ok).toBe(true)
    // The same log with the answer bound to other input (edited, or a digest mixed up): the
    // engine denies where the log says it allowed.
    // Edited: the answer's digest. (An edited permission.pending diverges earlier, at itself: the
    // engine computes the digest it parks with.)
    const edited = kernel.log
      .read()
      .map((e) => (e.type === 'permission.answered' ? { ...e, digest: `${e.digest}0` } : e))
    const again = await replay(edited, { tools: [Asker] })
    expect(again.ok).toBe(false)
    expect(again.ok === false && again.divergence.message).toMatch(
      /the answer was given for other input than this call has, so it does not count/,
    )
    // A person's answer, refused: the decision is the user's deny, not the rules'.
    expect(again.ok === false && again.divergence.actual).toMatchObject({
      type: 'tool.permitted',
      behavior: 'deny',
      source: 'user',
    })
  })

  it('allow with edited input validates it again', async () => {
    const kernel = testKernel([Asker], { ports: { clock: fixedClock(), ids: counterIds() } })
    await kernel.runTurn(assistant(['a', 'Asker', { text: 'A' }]))
    const done = await kernel.answer('a', { behavior: 'allow', updatedInput: { text: 5 } })
    expect(JSON.stringify(done.message.content[0])).toMatch(/Invalid input/)
  })

  it('canUseTool may defer: the call parks as if nobody could be asked', async () => {
    ran.length = 0
    const kernel = testKernel([Asker], { canUseTool: () => ({ behavior: 'defer' }) })
    const first = await kernel.runTurn(assistant(['a', 'Asker', { text: 'q' }]))
    expect(first.pending.map((p) => p.toolUseId)).toEqual(['a'])
    expect(types(first.events)).toEqual(expect.arrayContaining(['permission.requested', 'permission.pending']))
    await kernel.answer('a', { behavior: 'allow' })
    expect(ran).toEqual(['q'])
  })

  it('a hook that asks parks the call the same way, naming the hook as who asked', async () => {
    const Plain = buildTool({
      name: 'Plain',
      description: () => 'p',
      inputSchema: z.object({}),
      call: async () => 'plain ran',
    })
    const kernel = testKernel([Plain], {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Plain',
            hooks: [
              {
                type: 'function',
                name: 'guard',
                fn: () => ({
                  hookSpecificOutput: {
                    hookEventName: 'PreToolUse',
                    permissionDecision: 'ask',
                    permissionDecisionReason: 'a hook wants a look',
                  },
                }),
              },
            ],
          },
        ],
      },
    })
    const first = await kernel.runTurn(assistant(['p', 'Plain', {}]))
    expect(first.pending).toEqual([
      expect.objectContaining({ toolUseId: 'p', source: 'hook', reason: 'a hook wants a look' }),
    ])
    const done = await kernel.answer('p', { behavior: 'allow' })
    expect(done.message.content.map((b) => b.content)).toEqual(['plain ran'])
  })

  it('a rule that asks is named in the pending call; allowing for the session grants what the tool asked for', async () => {
    ran.length = 0
    const ruled = testKernel([Echo], { permissions: { ask: ['Echo'] } })
    const first = await ruled.runTurn(assistant(['e1', 'Echo', { text: '1' }]))
    expect(first.pending[0]).toMatchObject({ source: 'rule', rule: 'Echo' })

    const kernel = testKernel([Asker])
    await kernel.runTurn(assistant(['a1', 'Asker', { text: '1' }]))
    const answered = await kernel.answer('a1', { behavior: 'allow', grant: { scope: 'tool' } })
    expect(answered.events.map((e) => e.type)).toContain('permission.granted')
    const second = await kernel.runTurn(assistant(['a2', 'Asker', { text: '2' }]))
    expect(second.pending).toEqual([])
    expect(ran).toEqual(['1', '2'])
  })

  it("the app's abort cancels the parked calls of a turn still in hand: every tool_use is answered", async () => {
    ran.length = 0
    const controller = new AbortController()
    const kernel = testKernel([Asker, Echo])
    const first = await kernel.runTurn(assistant(['a', 'Asker', { text: '1' }], ['b', 'Echo', { text: '2' }]), {
      signal: controller.signal,
    })
    expect(first.pending).toHaveLength(1)
    controller.abort('the user left')
    await new Promise((resolve) => setImmediate(resolve))
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'tool.result').map((e) => e.toolUseId)).toEqual(['b', 'a'])
    expect(events.at(-1)?.type).toBe('turn.completed')
    expect(kernel.pendingApprovals()).toEqual([])
    expect(ran).toEqual([])
  })

  it('dontAsk still denies outright; approvals: deny denies instead of parking', async () => {
    const dontAsk = testKernel([Asker], { permissions: { mode: 'dontAsk' } })
    expect((await dontAsk.runTurn(assistant(['a', 'Asker', { text: '1' }]))).pending).toEqual([])
    const deny = testKernel([Asker], { approvals: 'deny' })
    const result = await deny.runTurn(assistant(['a', 'Asker', { text: '1' }]))
    expect(result.pending).toEqual([])
    expect(JSON.stringify(result.message)).toMatch(/no way to ask the user/)
    expect(() => testKernel([Asker], { approvals: 'later' as never })).toThrow(/approvals must be 'park' or 'deny'/)
  })

  it('a log with parked calls, answered in the same kernel, by another, and through a deferring prompt, replays', async () => {
    const log = createMemoryLog(fixedClock())
    const kernel = testKernel([Asker, Echo], { log })
    await kernel.runTurn(assistant(['a', 'Asker', { text: '1' }], ['b', 'Echo', { text: '2' }]))
    await kernel.answer('a', { behavior: 'allow' })
    await kernel.runTurn(assistant(['c', 'Asker', { text: '3' }]))
    await kernel.resume(log).answer('c', { behavior: 'deny', message: 'no' })
    const result = await replay(log.read(), { tools: [Asker, Echo] })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')

    const deferring = testKernel([Asker], { canUseTool: () => ({ behavior: 'defer' }) })
    await deferring.runTurn(assistant(['d', 'Asker', { text: '4' }]))
    await deferring.answer('d', { behavior: 'allow', updatedInput: { text: '5' } })
    const again = await replay(deferring.log.read(), { tools: [Asker] })
    expect(again.ok ? 'ok' : again.divergence.message).toBe('ok')

    // An answer the log does not have is a divergence, not a hang.
    const cut = log.read().filter((e) => !(e.type === 'permission.answered' && e.toolUseId === 'a'))
    const diverged = await replay(cut, { tools: [Asker, Echo] })
    expect(diverged.ok).toBe(false)
  })

  it('an answered call that is still running is not parked: the turn does not settle parked around it', async () => {
    let release!: () => void
    const Slow = buildTool({
      name: 'Slow',
      description: () => 's',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      checkPermissions: () => ({ behavior: 'ask', message: 'slow' }),
      call: () => new Promise<string>((resolve) => (release = () => resolve('slow done'))),
    })
    const Quick = buildTool({
      name: 'Quick',
      description: () => 'q',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      checkPermissions: () => ({ behavior: 'ask', message: 'quick' }),
      call: async () => 'quick done',
    })
    const kernel = testKernel([Slow, Quick, Asker])
    const first = await kernel.runTurn(assistant(['s', 'Slow', {}], ['q', 'Quick', {}], ['a', 'Asker', { text: '1' }]))
    expect(first.pending.map((p) => p.toolUseId)).toEqual(['s', 'q'])
    const next = kernel.answer('s', { behavior: 'allow' })
    await new Promise((resolve) => setImmediate(resolve))
    // Quick is answered and done while Slow still runs: nothing is parked but Asker's turn to come.
    void kernel.answer('q', { behavior: 'allow' })
    await new Promise((resolve) => setImmediate(resolve))
    const parkedTwice = kernel.log.read().filter((e) => e.type === 'turn.parked')
    expect(parkedTwice).toHaveLength(1)
    release()
    const second = await next
    expect(second.pending.map((p) => p.toolUseId)).toEqual(['a'])
  })
})

describe('a turn whose later call parks first', () => {
  it('lists its pending calls in tool_use order, in turn.parked and in the result', async () => {
    const SafeAsk = buildTool({
      name: 'SafeAsk',
      description: () => 'Asks first; safe to run beside others.',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      checkPermissions: () => ({ behavior: 'ask', message: 'asks a person' }),
      call: async () => 'asked',
    })
    const first = gate()
    const kernel = testKernel([SafeAsk], {
      // The first call's prompt answers only once the second has parked.
      canUseTool: async (request) => {
        if (request.toolUseId === 'a') await first.opened
        return { behavior: 'defer' }
      },
    })
    const turn = kernel.runTurn(assistant(['a', 'SafeAsk', {}], ['b', 'SafeAsk', {}]))
    while (!kernel.log.read().some((e) => e.type === 'permission.pending' && e.toolUseId === 'b'))
      await new Promise((resolve) => setImmediate(resolve))
    first.open()
    const result = await turn
    expect(result.pending.map((p) => p.toolUseId)).toEqual(['a', 'b'])
    expect(result.events.find((e) => e.type === 'turn.parked')).toMatchObject({ pending: ['a', 'b'] })
  })
})
