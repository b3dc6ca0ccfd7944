/**
 * The call's state is the fold of its events: over random turns (completion order, failures,
 * invalid input, unknown tools, hooks, the cap, an abort at any point), after every move of every
 * call's machine, its context equals `foldCall` over that call's events in the log at that moment —
 * so recovery, inspect, the timeline and replay, which fold the log, see the state the machine is in.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { foldCall, type CallState } from '../../../src/events/tool-call.steps.js'
import type { KernelEvent } from '../../../src/events/event.schema.js'
import { createKernelInternals } from '../../../src/kernel.js'
import { createMemoryLog } from '../../../src/index.js'
import { assistant, counterIds, fixedClock } from '../../helpers.js'
import { idPoolArb, idsFor, inputOf, makeTools, scheduledHooks, specsArb } from '../../prop-helpers.js'
import { runs } from '../../runs.js'

type CallEvent = Parameters<typeof foldCall>[0] extends Iterable<infer E> ? E : never

/** The call's own events in the log (a tool_use id may come back in a later turn). */
function eventsOf(log: readonly KernelEvent[], turnId: string, toolUseId: string): CallEvent[] {
  return log.filter((e) => e.turnId === turnId && 'toolUseId' in e && e.toolUseId === toolUseId) as CallEvent[]
}

describe('the machine is in the state its events fold to', () => {
  it('after every move of every call, and at its end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        idPoolArb,
        specsArb,
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        async (s, pool, specs, cap, abort) => {
          const { tools } = makeTools(s, cap)
          const clock = fixedClock()
          const log = createMemoryLog(clock)
          const mismatches: Array<{ id: string; machine: CallState; folded: CallState }> = []
          const finals = new Map<string, CallState>()
          const kernel = createKernelInternals(
            { tools, log, maxConcurrency: cap, hooks: scheduledHooks(s), ports: { clock, ids: counterIds() } },
            {
              observeCalls: ({ turnId, toolUseId }, state) => {
                const folded = foldCall(eventsOf(log.read(), turnId, toolUseId))
                if (JSON.stringify(folded) !== JSON.stringify(state))
                  mismatches.push({ id: toolUseId, machine: state, folded })
                finals.set(toolUseId, state)
              },
            },
          )
          const ids = idsFor(specs, pool)
          const message = assistant(
            ...specs.map(
              (spec, i) => [ids[i], spec.tool, inputOf(spec, ids[i] as string)] as [string, string, unknown],
            ),
          )
          const controller = new AbortController()
          if (abort) void s.schedule(Promise.resolve(), 'abort').then(() => controller.abort('user pressed Esc'))
          const { message: result } = await s.waitFor(kernel.runTurn(message, { signal: controller.signal }))

          expect(mismatches).toEqual([])
          expect(result.content).toHaveLength(ids.length)
          // Every call's machine ended answered, as its folded log says.
          for (const id of ids) expect(finals.get(id)?.answered, id).toBe(true)
        },
      ),
      { numRuns: runs(150) },
    )
  })
})
