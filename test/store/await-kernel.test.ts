/**
 * Awaiting a kernel is harmless, as awaiting any non-promise is in JavaScript: a kernel over a
 * store (still opening, or open) is not a thenable, so `await createKernel({ store, session })`
 * gives the kernel back instead of throwing "still opening". Inspecting it (console.log reads
 * symbols) does not throw either.
 */
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createKernel, createMemoryEventStore } from '../../src/index.js'
import { assistant, Echo } from '../helpers.js'

describe('a kernel over a store', () => {
  it('can be awaited while its session is still opening, and runs turns after ready()', async () => {
    const store = createMemoryEventStore()
    const created = createKernel({ tools: [Echo], store, session: 's-await' })
    const kernel = await created
    expect(kernel).toBe(created)
    await kernel.ready()
    expect(await kernel).toBe(created)
    const { message } = await kernel.runTurn(assistant(['e1', 'Echo', { text: 'hi' }]))
    expect(message.content.map((block) => block.tool_use_id)).toEqual(['e1'])
    await kernel.close()
  })

  it('can be inspected while opening', async () => {
    const kernel = createKernel({ tools: [Echo], store: createMemoryEventStore(), session: 's-inspect' })
    expect(() => inspect(kernel)).not.toThrow()
    await kernel.ready()
    await kernel.close()
  })

  it('still says what to do when a member is used before it is open', async () => {
    const kernel = createKernel({ tools: [Echo], store: createMemoryEventStore(), session: 's-early' })
    expect(() => kernel.startTurn()).toThrow('toolkernel: session s-early is still opening; await kernel.ready()')
    await kernel.ready()
    await kernel.close()
  })
})
