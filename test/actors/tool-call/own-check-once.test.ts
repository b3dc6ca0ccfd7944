/**
 * A tool's own permission check is the tool's code: it runs once per call, in the permission
 * step, whether it answers at once or later. (In a streaming turn, the preview that decides
 * whether a concurrency-safe call may start before the message ends runs it once more.)
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { assistant, testKernel } from '../../helpers.js'

describe("a tool's own permission check", () => {
  const now = () => ({ behavior: 'allow' as const })
  const later = async () => ({ behavior: 'allow' as const })
  // [when it answers, whether the tool is concurrency-safe]: a whole message has no early start, so
  // only the permission step runs it (test/actors/turn/turn-run.test.ts has the streaming preview)
  it.each([
    ['answers at once', now, false],
    ['answers later', later, false],
    ['answers at once', now, true],
    ['answers later', later, true],
  ])('that %s runs once (safe: %s), and the call runs', async (_when, answer, safe) => {
    let checks = 0
    const Own = buildTool({
      name: 'Own',
      description: () => 'o',
      inputSchema: z.object({}),
      isConcurrencySafe: () => safe,
      checkPermissions: () => (checks++, answer()),
      call: async () => 'ran',
    })
    const { message, events } = await testKernel([Own]).runTurn(assistant(['o', 'Own', {}]))
    expect(checks).toBe(1)
    expect(message.content[0]?.content).toBe('ran')
    expect(events.find((e) => e.type === 'tool.permitted')).toMatchObject({ behavior: 'allow' })
  })
})
