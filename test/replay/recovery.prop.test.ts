/**
 * For random turns with random faults and abort points, cutting the log at any event (a crash) and
 * recovering yields a log in which every tool_use has exactly one result, and which re-executes
 * without divergence.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemoryLog, recover, replay, type KernelEvent } from '../../src/index.js'
import { assistant, fixedClock, testKernel } from '../helpers.js'
import { idPoolArb, idsFor, inputOf, makeTools, scheduledHooks, specsArb } from '../prop-helpers.js'
import { runs } from '../runs.js'

const cutAnywhere = () =>
  fc.asyncProperty(
    fc.scheduler(),
    idPoolArb,
    specsArb,
    fc.integer({ min: 1, max: 3 }),
    fc.boolean(),
    fc.nat(),
    async (s, pool, specs, cap, abort, cutSeed) => {
      const { tools } = makeTools(s, cap)
      const kernel = testKernel(tools, { maxConcurrency: cap, hooks: scheduledHooks(s) })
      const ids = idsFor(specs, pool)
      const controller = new AbortController()
      if (abort) void s.schedule(Promise.resolve(), 'abort').then(() => controller.abort('user pressed Esc'))
      await s.waitFor(
        kernel.runTurn(
          assistant(
            ...specs.map(
              (spec, i) => [ids[i], spec.tool, inputOf(spec, ids[i] as string)] as [string, string, unknown],
            ),
          ),
          { signal: controller.signal },
        ),
      )

      const full = kernel.log.read()
      const cut = cutSeed % (full.length + 1)
      const log = createMemoryLog(fixedClock(), full.slice(0, cut))
      const recovered = recover(log.read())
      for (const event of recovered) log.append(event)
      const closed: readonly KernelEvent[] = log.read()

      // The wording tells the truth: a call that was started may have had its effect; only one
      // that never started is said to have had none.
      const started = new Set(
        full
          .slice(0, cut)
          .filter((e) => e.type === 'tool.started')
          .map((e) => e.toolUseId),
      )
      for (const event of recovered) {
        if (event.type !== 'tool.result') continue
        const text = String(event.block.content)
        if (started.has(event.toolUseId)) {
          expect(text).not.toMatch(/had no effect|before it ran/)
          expect(text).toMatch(/may have|has taken effect|took effect/)
        } else expect(text).toMatch(/cancelled before it ran: .* It had no effect/)
      }

      const requested = closed.filter((e) => e.type === 'tool.requested').map((e) => e.toolUseId)
      const answered = closed.filter((e) => e.type === 'tool.result').map((e) => e.toolUseId)
      expect([...answered].sort()).toEqual([...requested].sort())
      expect(recover(closed)).toEqual([])

      const result = await replay(closed, { tools })
      expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
    },
  )

describe('recovery and replay properties', () => {
  it('cut anywhere, recovered: one result per tool_use, and replay finds no divergence', async () => {
    await fc.assert(cutAnywhere(), { numRuns: runs(200) })
  })

  // Found by the property above (1 run in several hundred): two failing calls with post-hooks and
  // an abort; a post-hook the abort abandoned finished after its step had moved on, and replay
  // logged its hook.finished at once instead of where the recording has it.
  it('the counterexample it found: a post-hook that finishes after an abort replays in recorded order', async () => {
    const path =
      '180:0:5:6:5:5:10:11:10:10:12:11:15:15:15:15:16:16:16:16:16:16:18:18:18:18:18:18:19:19:19:19:19:19:35:32'
    const tail = ':21:21:11:10:11:21:10:13:17:10'
    await fc.assert(cutAnywhere(), { numRuns: 200, seed: -1348885793, path: path + tail, endOnFailure: true })
  })
})
