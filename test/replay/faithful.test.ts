/**
 * Replay is faithful: what a validator saw of the world is an outside answer fed back, the engine
 * says when it is idle (no guessing from ticks), ids may repeat across turns, and a log out of
 * order is reported instead of "ok".
 */
import { stat } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, replay, type KernelEvent } from '../../src/index.js'
import { assistant, Echo, testKernel } from '../helpers.js'

const slowIo = () => new Promise((resolve) => setTimeout(resolve, 5))

/** A validator that awaits real I/O: timing replay cannot reproduce by counting ticks. */
const Checked = buildTool({
  name: 'Checked',
  description: () => 'Checks a path exists, then echoes it.',
  inputSchema: z.object({ path: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  async validateInput({ path }) {
    await slowIo()
    const exists = await stat(path).then(
      () => true,
      () => false,
    )
    return exists ? { result: true } : { result: false, message: `no such path ${path}` }
  },
  async call({ path }) {
    await slowIo()
    return `checked ${path}`
  },
})

describe('replay', () => {
  it('feeds back what an I/O-bound validateInput answered, and waits for the engine to be idle', async () => {
    const kernel = testKernel([Checked, Echo])
    await kernel.runTurn(
      assistant(['a', 'Checked', { path: '/' }], ['b', 'Checked', { path: '/nope/x' }], ['c', 'Echo', { text: 'e' }]),
    )
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'd', name: 'Checked', input: { path: '/tmp' } })
    turn.addToolUse({ id: 'e', name: 'Echo', input: { text: 'x' } })
    turn.end('tool_use')
    await turn.result()
    const result = await replay(kernel.log.read(), { tools: [Checked, Echo] })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('the world changed since: replay still decides as the log recorded the validator', async () => {
    const kernel = testKernel([Checked])
    await kernel.runTurn(assistant(['a', 'Checked', { path: '/' }]))
    const events = kernel.log
      .read()
      .map((e) =>
        e.type === 'tool.requested' ? ({ ...e, input: { path: '/definitely/not/there' } } as KernelEvent) : e,
      )
    const result = await replay(events, { tools: [Checked] })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('the same tool_use id in two turns replays each with its own answers', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['same', 'Echo', { text: 'first' }]))
    await kernel.runTurn(assistant(['same', 'Echo', { text: 'second' }]))
    const result = await replay(kernel.log.read(), { tools: [Echo] })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('reports a log whose events are out of order or repeat a seq, never "ok"', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    await kernel.runTurn(assistant(['b', 'Echo', { text: 'y' }]))
    const events = kernel.log.read()
    const half = events.findIndex((e, i) => i > 0 && e.type === 'turn.started')
    const swapped = [...events.slice(half), ...events.slice(0, half)]
    const swappedResult = await replay(swapped, { tools: [Echo] })
    expect(swappedResult.ok).toBe(false)
    if (!swappedResult.ok) expect(swappedResult.divergence.message).toMatch(/out of order|seq/)
    const repeated = [...events.slice(0, 3), events[2] as KernelEvent, ...events.slice(3)]
    const repeatedResult = await replay(repeated, { tools: [Echo] })
    expect(repeatedResult.ok).toBe(false)
    if (!repeatedResult.ok) expect(repeatedResult.divergence.message).toMatch(/seq/)
  })
})
