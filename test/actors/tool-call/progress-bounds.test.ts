/** A tool that reports progress without end costs the log a bounded number of events. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { PROGRESS_LOG_EVENTS } from '../../../src/actors/tool-call/call-scope.js'
import { assistant, testKernel } from '../../helpers.js'

const Chatty = buildTool({
  name: 'Chatty',
  description: () => 'Reports progress many times.',
  inputSchema: z.object({ times: z.number().int(), kind: z.enum(['text', 'object']) }),
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  async *call({ times, kind }) {
    for (let i = 0; i < times; i++) yield kind === 'text' ? `line ${i}\n` : { step: i }
    return 'done'
  },
})

describe('progress in the log is bounded per call', () => {
  it.each(['text', 'object'] as const)('%s progress: at most the cap of events, then one note', async (kind) => {
    const kernel = testKernel([Chatty])
    const { message, events } = await kernel.runTurn(assistant(['c', 'Chatty', { times: 20_000, kind }]))
    expect(message.content[0]?.content).toBe('done')
    const progress = events.filter((e) => e.type === 'tool.progress')
    expect(progress.length).toBe(PROGRESS_LOG_EVENTS + 1)
    expect(progress.at(-1)?.data).toMatch(/further progress of this call is not logged/)
    // The first PROGRESS_LOG_EVENTS reports are all logged as they were; the note is the only one.
    const notes = progress.filter((e) => /further progress/.test(JSON.stringify(e.data)))
    expect(notes).toHaveLength(1)
    expect(progress.at(-2)?.data).toEqual(kind === 'text' ? 'line 999\n' : { step: 999 })
  })
})

/** Yields each of `parts`, then (if `wait`) runs until its call is interrupted. */
function reporting(parts: readonly unknown[], wait: boolean) {
  let reported: () => void = () => undefined
  const all = new Promise<void>((resolve) => (reported = resolve))
  const tool = buildTool({
    name: 'Report',
    description: () => 'Reports the given progress.',
    inputSchema: z.object({}),
    isConcurrencySafe: () => true,
    interruptBehavior: () => 'cancel',
    async *call(_input, { signal }) {
      for (const part of parts) yield part
      reported()
      if (wait) await new Promise((resolve) => signal.addEventListener('abort', resolve))
      return 'done'
    },
  })
  return { tool, all }
}

describe('text progress in the log is bounded per call by characters', () => {
  it('whole up to the allowance, exactly at it too; past it, the rest is a note of its size', async () => {
    const { tool } = reporting(['a'.repeat(20_000), 'b'.repeat(12_000), 'c'.repeat(10), { step: 1 }, 'dd'], false)
    const { events } = await testKernel([tool]).runTurn(assistant(['r', 'Report', {}]))
    const logged = events.filter((e) => e.type === 'tool.progress').map((e) => e.data)
    expect(logged).toEqual([
      'a'.repeat(20_000),
      'b'.repeat(12_000),
      '[… 10 characters of progress not kept in the log]',
      { step: 1 },
      '[… 2 characters of progress not kept in the log]',
    ])
  })

  it('a report that crosses the allowance keeps what fits', async () => {
    const { tool } = reporting(['a'.repeat(31_000), 'b'.repeat(1_500)], false)
    const { events } = await testKernel([tool]).runTurn(assistant(['r', 'Report', {}]))
    const logged = events.filter((e) => e.type === 'tool.progress').map((e) => e.data)
    expect(logged[1]).toBe(`${'b'.repeat(1_000)}[… 500 characters of progress not kept in the log]`)
  })
})

describe('an interrupted call shows the tail of its progress', () => {
  async function interrupted(parts: readonly unknown[]): Promise<string> {
    const { tool, all } = reporting(parts, true)
    const controller = new AbortController()
    const turn = testKernel([tool]).runTurn(assistant(['r', 'Report', {}]), { signal: controller.signal })
    await all
    controller.abort('stop')
    const { message } = await turn
    const content = String(message.content[0]?.content)
    return content.slice(content.indexOf('Output before it stopped:\n') + 'Output before it stopped:\n'.length)
  }

  it('all of it while it fits (10,000 characters), objects as JSON', async () => {
    expect(await interrupted(['x'.repeat(9_990), { n: 1 }])).toBe(`${'x'.repeat(9_990)}{"n":1}`)
    expect(await interrupted(['x'.repeat(6_000), 'y'.repeat(4_000)])).toBe(`${'x'.repeat(6_000)}${'y'.repeat(4_000)}`)
  })

  it('past that, its last 10,000 characters after a mark that the start is cut', async () => {
    expect(await interrupted(['x'.repeat(6_000), 'y'.repeat(4_001)])).toBe(`…${'x'.repeat(5_999)}${'y'.repeat(4_001)}`)
    // Once cut, always cut: a later short report does not lose the mark.
    expect(await interrupted(['x'.repeat(10_001), 'z'])).toBe(`…${'x'.repeat(9_999)}z`)
    expect(await interrupted(['x'.repeat(10_001), ''])).toBe(`…${'x'.repeat(10_000)}`)
  })
})
