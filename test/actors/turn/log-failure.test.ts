/**
 * A log append that throws mid-turn (disk full) must not orphan calls: what started is stopped,
 * every tool_use is answered, and the kernel says the log failed instead of pretending.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type EventLog } from '../../../src/index.js'
import { assistant, Echo, memoryLogWith, testKernel } from '../../helpers.js'
import { runs } from '../../runs.js'

function failingLog(after: number): EventLog {
  let appends = 0
  return memoryLogWith((inner) => ({
    append: (event) => {
      if (++appends > after) throw new Error('ENOSPC: no space left on device, write')
      return inner.append(event)
    },
  }))
}

const Slow = buildTool({
  name: 'Slow',
  description: () => 'Waits until aborted.',
  inputSchema: z.object({}),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  interruptBehavior: () => 'cancel',
  call: (_input, { signal }) =>
    new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('stopped'), { once: true })),
})

describe('a log that fails mid-turn', () => {
  it('at every append position: runTurn settles with one result per tool_use, and says the log failed', async () => {
    const total = await (async () => {
      const kernel = testKernel([Echo, Slow], { log: failingLog(Infinity) })
      const turn = kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }], ['b', 'Echo', { text: 'y' }]))
      return (await turn).events.length
    })()
    await fc.assert(
      // Below the events the Echo calls alone log, so the log always fails while Slow waits.
      fc.asyncProperty(fc.integer({ min: 0, max: total - 3 }), async (after) => {
        const kernel = testKernel([Echo, Slow], { log: failingLog(after) })
        const result = await kernel.runTurn(
          assistant(['a', 'Echo', { text: 'x' }], ['s', 'Slow', {}], ['b', 'Echo', { text: 'y' }]),
        )
        expect(result.message.content.map((b) => b.tool_use_id)).toEqual(['a', 's', 'b'])
        expect(result.logError).toMatch(/ENOSPC/)
        // Slow never ends by itself: the failure stopped it, and its result says why.
        expect(String(result.message.content[1]?.content)).toMatch(/event log could not be written \(ENOSPC/)
        await expect(kernel.runTurn(assistant(['c', 'Echo', { text: 'z' }]))).rejects.toThrow(/event log failed/)
      }),
      { numRuns: runs(40) },
    )
  })
})
