/**
 * The machine's short lane alone (at-once.ts): parse predicts that validate and permission pass
 * at once only without running anything of the tool's own — a tool's own permission check is not
 * run to predict the lane. (The turn's preview, which decides whether a call may start while the
 * message streams, runs it once; the permission step runs it once more.)
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { assistant, testKernel } from '../../helpers.js'

describe("a tool's own permission check", () => {
  it.each([
    ['answers at once', () => ({ behavior: 'allow' as const })],
    ['answers later', async () => ({ behavior: 'allow' as const })],
  ])('that %s is not run again to predict the short lane, and the call runs', async (_when, answer) => {
    let checks = 0
    const Own = buildTool({
      name: 'Own',
      description: () => 'o',
      inputSchema: z.object({}),
      checkPermissions: () => (checks++, answer()),
      call: async () => 'ran',
    })
    const { message, events } = await testKernel([Own]).runTurn(assistant(['o', 'Own', {}]))
    // The turn's preview, then the permission step.
    expect(checks).toBe(2)
    expect(message.content[0]?.content).toBe('ran')
    expect(events.find((e) => e.type === 'tool.permitted')).toMatchObject({ behavior: 'allow' })
  })
})
