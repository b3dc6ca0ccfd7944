/** A tool that reports progress without end costs the log a bounded number of events. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { PROGRESS_LOG_EVENTS } from '../../../src/actors/tool-call/call-env.js'
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
  })
})
