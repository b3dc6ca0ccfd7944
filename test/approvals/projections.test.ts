/** What inspect, stats and the timeline say of a parked call. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../src/index.js'
import { callStatesAt, projectStats } from '../../src/projections/stats.projection.js'
import { projectTimeline } from '../../src/projections/timeline.projection.js'
import { assistant, testKernel } from '../helpers.js'

const Asker = buildTool({
  name: 'Asker',
  description: () => 'asks',
  inputSchema: z.object({}),
  checkPermissions: () => ({ behavior: 'ask', message: 'it deletes things' }),
  call: async () => 'ran',
})

describe('a parked call in the CLI projections', () => {
  it('inspect says it waits for a person and why; stats count it pending until answered', async () => {
    const kernel = testKernel([Asker])
    await kernel.runTurn(assistant(['a', 'Asker', {}]))
    const events = kernel.log.read()
    const [state] = callStatesAt(events, events.at(-1)?.seq ?? 0)
    expect(state?.state).toBe("parked: waiting for a person's approval (it deletes things)")
    expect(projectStats(events).byOutcome).toMatchObject({ pending: 1 })
    expect(projectTimeline(events).map((row) => row.type)).toEqual(
      expect.arrayContaining(['permission.pending', 'turn.parked']),
    )
    await kernel.answer('a', { behavior: 'allow' })
    expect(projectStats(kernel.log.read()).byOutcome).toMatchObject({ success: 1 })
  })
})
