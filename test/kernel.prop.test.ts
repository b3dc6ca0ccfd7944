/**
 * Property tests of the kernel's promises, over random turns: random safety, completion order
 * (fast-check's scheduler decides when each tool call finishes), failures, throwing predicates,
 * invalid inputs, unknown tools, caps and abort points.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../src/index.js'
import { assistant, testKernel } from './helpers.js'
import {
  idPoolArb,
  idsFor,
  checkLog,
  expectedBatches,
  inputOf,
  makeTools,
  reprojected,
  scheduledHooks,
  specsArb,
} from './prop-helpers.js'
import { runs } from './runs.js'

describe('kernel properties', () => {
  it('every tool_use gets exactly one result, in order; no overlap of unsafe calls; batches in order; the cap holds; the log re-projects', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        idPoolArb,
        specsArb,
        fc.integer({ min: 1, max: 4 }),
        async (s, pool, specs, cap) => {
          const { tools, violations } = makeTools(s, cap)
          const kernel = testKernel(tools, { maxConcurrency: cap })
          const ids = idsFor(specs, pool)
          const message = assistant(
            ...specs.map(
              (spec, i) => [ids[i], spec.tool, inputOf(spec, ids[i] as string)] as [string, string, unknown],
            ),
          )
          const { message: result, events } = await s.waitFor(kernel.runTurn(message))

          expect(violations).toEqual([])
          expect(result.content.map((b) => b.tool_use_id)).toEqual(ids)
          checkLog(events, specs, ids, cap)
          const batches = new Map(events.filter((e) => e.type === 'tool.dispatched').map((e) => [e.toolUseId, e.batch]))
          expect(ids.map((id) => batches.get(id))).toEqual(expectedBatches(specs))
          specs.forEach((spec, i) => {
            const block = result.content[i]
            const ok = spec.tool !== 'Missing' && !spec.invalid && !spec.fail
            expect(block?.is_error === true, `${ids[i]}: ${JSON.stringify(block)}`).toBe(!ok)
            if (ok) expect(block?.content).toBe(`out:${ids[i]}`)
          })
          expect(reprojected(kernel.log.read())).toBe(JSON.stringify([result]))
        },
      ),
      { numRuns: runs(200) },
    )
  })

  it('abort at any point: still exactly one result each; nothing starts after abort; started block calls keep their real result', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        idPoolArb,
        specsArb,
        fc.integer({ min: 1, max: 4 }),
        async (s, pool, specs, cap) => {
          const { tools } = makeTools(s, cap)
          // Hooks whose answers the scheduler also times, so aborts land inside hook steps too.
          const kernel = testKernel(tools, { maxConcurrency: cap, hooks: scheduledHooks(s) })
          const ids = idsFor(specs, pool)
          const message = assistant(
            ...specs.map(
              (spec, i) => [ids[i], spec.tool, inputOf(spec, ids[i] as string)] as [string, string, unknown],
            ),
          )
          const controller = new AbortController()
          void s.schedule(Promise.resolve(), 'abort').then(() => controller.abort('user pressed Esc'))
          const { message: result, events } = await s.waitFor(kernel.runTurn(message, { signal: controller.signal }))

          expect(result.content.map((b) => b.tool_use_id)).toEqual(ids)
          checkLog(events, specs, ids, cap)
          const abortedAt = events.find((e) => e.type === 'turn.aborted')?.seq ?? Infinity
          expect(events.filter((e) => e.type === 'tool.started' && e.seq > abortedAt)).toEqual([])
          const started = new Map(events.filter((e) => e.type === 'tool.started').map((e) => [e.toolUseId, e.seq]))
          const outcome = new Map(events.filter((e) => e.type === 'tool.result').map((e) => [e.toolUseId, e]))
          specs.forEach((spec, i) => {
            const id = ids[i] as string
            const result_ = outcome.get(id)
            const startedAt = started.get(id)
            if (startedAt === undefined) {
              // Never ran: cancelled by the abort, or ended early (unknown tool, bad input) on its own.
              if (result_?.outcome !== 'cancelled') expect(spec.tool === 'Missing' || spec.invalid).toBe(true)
            } else if (spec.tool === 'Block') {
              expect(result_?.outcome).not.toBe('cancelled')
              expect(result_?.block.content).toBe(spec.fail ? `Block failed: ${id} failed` : `out:${id}`)
            }
          })
          expect(reprojected(kernel.log.read())).toBe(JSON.stringify([result]))
        },
      ),
      { numRuns: runs(200) },
    )
  })

  it('no tool, validator, predicate, permission check or mapper that throws makes runTurn throw', async () => {
    const throwing = fc.constantFrom(
      'call',
      'validateInput',
      'isConcurrencySafe',
      'checkPermissions',
      'map',
      'isEnabled',
      'interruptBehavior',
      'none',
    )
    await fc.assert(
      fc.asyncProperty(fc.array(throwing, { maxLength: 6 }), async (where) => {
        const boom = () => {
          throw new Error('boom')
        }
        const tools = where.map((w, i) =>
          buildTool({
            name: `T${i}`,
            description: () => 't',
            inputSchema: z.object({}),
            call: w === 'call' ? boom : async () => 'ok',
            ...(w === 'validateInput' ? { validateInput: boom } : {}),
            ...(w === 'isConcurrencySafe' ? { isConcurrencySafe: boom } : {}),
            ...(w === 'checkPermissions' ? { checkPermissions: boom } : {}),
            ...(w === 'map' ? { mapToolResultToToolResultBlockParam: boom } : {}),
            ...(w === 'isEnabled' ? { isEnabled: boom } : {}),
            ...(w === 'interruptBehavior' ? { interruptBehavior: boom } : {}),
          }),
        )
        const { message } = await testKernel(tools).runTurn(
          assistant(...where.map((_, i) => [`id${i}`, `T${i}`, {}] as [string, string, unknown])),
        )
        expect(message.content.map((b) => b.tool_use_id)).toEqual(where.map((_, i) => `id${i}`))
        where.forEach((w, i) => {
          const fine = w === 'none' || w === 'isConcurrencySafe' || w === 'interruptBehavior'
          expect(message.content[i]?.is_error === true).toBe(!fine)
          expect(JSON.stringify(message.content[i])).not.toMatch(/\n\s+at /)
        })
      }),
      { numRuns: runs(100) },
    )
  })
})
