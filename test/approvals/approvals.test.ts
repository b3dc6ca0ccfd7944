/** Calls that wait for a person: parked at permission, answered later, the same message in the end. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createMemoryLog, type KernelEvent } from '../../src/index.js'
import { assistant, counterIds, fixedClock, testKernel } from '../helpers.js'

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

  it('allow with edited input validates it again', async () => {
    const kernel = testKernel([Asker], { ports: { clock: fixedClock(), ids: counterIds() } })
    await kernel.runTurn(assistant(['a', 'Asker', { text: 'A' }]))
    const done = await kernel.answer('a', { behavior: 'allow', updatedInput: { text: 5 } })
    expect(JSON.stringify(done.message.content[0])).toMatch(/Invalid input/)
  })
})
