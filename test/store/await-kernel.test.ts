/**
 * Awaiting a kernel is harmless, as awaiting any non-promise is in JavaScript: a kernel over a
 * store (still opening, open, closed, or whose session could not open) is not a thenable, so
 * `await createKernel({ store, session })` gives the kernel back instead of throwing "still
 * opening". Inspecting it (console.log reads symbols) does not throw either. `ready()` rejects
 * only where the kernel's docs say it does: when the session cannot open.
 */
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createKernel, createMemoryEventStore, type Kernel } from '../../src/index.js'
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

  it('after close(): awaiting it, ready() and inspecting it are harmless', async () => {
    const kernel = createKernel({ tools: [Echo], store: createMemoryEventStore(), session: 's-closed' })
    await kernel.ready()
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'hi' }]))
    await kernel.close()
    expect(await kernel).toBe(kernel)
    await expect(kernel.ready()).resolves.toBeUndefined()
    expect(() => inspect(kernel)).not.toThrow()
    await kernel.close() // twice: harmless too
    expect(await kernel).toBe(kernel)
  })

  it('whose session could not open (another kernel holds its lease): awaiting is harmless, ready() says why', async () => {
    const store = createMemoryEventStore()
    const holder = createKernel({ tools: [Echo], store, session: 's-held', lease: { owner: 'a' } })
    await holder.ready()
    const kernel = createKernel({ tools: [Echo], store, session: 's-held', lease: { owner: 'b' } })
    expect(await kernel).toBe(kernel)
    await expect(kernel.ready()).rejects.toThrow(/session s-held is leased to a/)
    expect(await kernel).toBe(kernel)
    expect(() => inspect(kernel)).not.toThrow()
    // A member used now says the session could not open, and why — not that it is still opening.
    expect(() => kernel.startTurn()).toThrow(/^toolkernel: session s-held could not be opened: .*leased to a/)
    expect(() => kernel.pendingApprovals()).toThrow(/could not be opened/)
    await expect(kernel.ready()).rejects.toThrow(/leased to a/)
    await kernel.close()
    expect(await kernel).toBe(kernel)
    await holder.close()
  })
})

describe('a kernel without a store', () => {
  it('is not a thenable: awaiting it, before and after close(), gives it back; ready() resolves', async () => {
    const kernel: Kernel = createKernel({ tools: [Echo] })
    expect('then' in kernel).toBe(false)
    expect(await kernel).toBe(kernel)
    await expect(kernel.ready()).resolves.toBeUndefined()
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'hi' }]))
    await kernel.close()
    expect(await kernel).toBe(kernel)
    await expect(kernel.ready()).resolves.toBeUndefined()
    expect(() => inspect(kernel)).not.toThrow()
  })
})
