/**
 * Property tests of the kernel's promises, over random turns: random safety, completion order
 * (fast-check's scheduler decides when each tool call finishes), failures, throwing predicates,
 * invalid inputs, unknown tools, caps and abort points.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, parseJsonl, projectMessages, toJsonLine, type KernelEvent } from '../src/index.js'
import { assistant, testKernel } from './helpers.js'

interface Spec {
  tool: 'Block' | 'Cancel' | 'Missing'
  safe: boolean
  fail: boolean
  throwsInPredicate: boolean
  invalid: boolean
  progress: number
}

const rare = (weight: number) => fc.integer({ min: 0, max: weight }).map((n) => n === 0)
const specsArb = fc.array(
  fc.record({
    tool: fc.constantFrom<Spec['tool']>('Block', 'Block', 'Block', 'Cancel', 'Cancel', 'Missing'),
    safe: fc.boolean(),
    fail: rare(4),
    throwsInPredicate: rare(6),
    invalid: rare(6),
    progress: fc.nat({ max: 2 }),
  }),
  { maxLength: 10 },
)

const Input = z.object({ id: z.string(), safe: z.boolean(), fail: z.boolean(), throwsInPredicate: z.boolean(), progress: z.number() })
type In = z.infer<typeof Input>

/** Tools whose calls finish when the fast-check scheduler says, and that watch for overlaps. */
function makeTools(s: fc.Scheduler, cap: number) {
  const running = new Map<string, boolean>()
  const violations: string[] = []
  const make = (name: 'Block' | 'Cancel') =>
    buildTool({
      name,
      description: () => name,
      inputSchema: Input,
      interruptBehavior: () => (name === 'Cancel' ? 'cancel' : 'block'),
      isConcurrencySafe: (input: In) => {
        if (input.throwsInPredicate) throw new Error('predicate bug')
        return input.safe
      },
      async *call(input: In, ctx) {
        const safe = input.safe && !input.throwsInPredicate
        if (running.size >= cap) violations.push(`${input.id} started over the cap`)
        if (!safe && running.size > 0) violations.push(`unsafe ${input.id} overlapped ${[...running.keys()].join(',')}`)
        if (safe && [...running.values()].some((v) => !v)) violations.push(`safe ${input.id} overlapped an unsafe call`)
        running.set(input.id, safe)
        try {
          for (let i = 0; i < input.progress; i++) yield `${input.id}:p${i}`
          const finished = s.schedule(Promise.resolve(), input.id)
          if (name === 'Cancel') {
            await Promise.race([finished, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))])
          } else {
            await finished
          }
          if (input.fail) throw new Error(`${input.id} failed`)
          return `out:${input.id}`
        } finally {
          running.delete(input.id)
        }
      },
    })
  return { tools: [make('Block'), make('Cancel')], violations }
}

const isSafe = (spec: Spec) => spec.tool !== 'Missing' && !spec.invalid && !spec.throwsInPredicate && spec.safe

function inputOf(spec: Spec, id: string): unknown {
  const input = { id, safe: spec.safe, fail: spec.fail, throwsInPredicate: spec.throwsInPredicate, progress: spec.progress }
  return spec.invalid ? { ...input, safe: 'yes' } : input
}

/** Expected batch of each call: consecutive safe calls share one; each unsafe call has its own. */
function expectedBatches(specs: readonly Spec[]): number[] {
  let batch = -1
  let lastSafe = false
  return specs.map((spec) => {
    const safe = isSafe(spec)
    batch = safe && lastSafe ? batch : batch + 1
    lastSafe = safe
    return batch
  })
}

/** Checks ordering, the cap and batch isolation from the log alone. */
function checkLog(events: readonly KernelEvent[], specs: readonly Spec[], ids: readonly string[], cap: number): void {
  const open = new Map<string, boolean>()
  const safeById = new Map(ids.map((id, i) => [id, isSafe(specs[i] as Spec)]))
  const batchOf = new Map<string, number>()
  const resultSeq = new Map<string, number>()
  for (const e of events) {
    if (e.type === 'tool.dispatched') {
      const safe = safeById.get(e.toolUseId) as boolean
      expect(open.size, `cap exceeded at ${e.toolUseId}`).toBeLessThan(cap)
      if (!safe) expect([...open.keys()], `unsafe ${e.toolUseId} overlapped`).toEqual([])
      else expect([...open.values()].every(Boolean), `safe ${e.toolUseId} overlapped an unsafe call`).toBe(true)
      open.set(e.toolUseId, safe)
      batchOf.set(e.toolUseId, e.batch)
    }
    if (e.type === 'tool.result') {
      expect(resultSeq.has(e.toolUseId), `second result for ${e.toolUseId}`).toBe(false)
      resultSeq.set(e.toolUseId, e.seq)
      open.delete(e.toolUseId)
    }
  }
  expect([...resultSeq.keys()].sort()).toEqual([...ids].sort())
  // Batches never overlap: every result of an earlier batch precedes every dispatch of a later one.
  const dispatchSeq = new Map(events.filter((e) => e.type === 'tool.dispatched').map((e) => [e.toolUseId, e.seq]))
  for (const [a, ba] of batchOf) {
    for (const [b, bb] of batchOf) {
      if (ba < bb) expect(resultSeq.get(a) as number).toBeLessThan(dispatchSeq.get(b) as number)
    }
  }
}

function reprojected(events: readonly KernelEvent[]): string {
  const text = events.map(toJsonLine).join('')
  return JSON.stringify(projectMessages(parseJsonl(text).events))
}

describe('kernel properties', () => {
  it('every tool_use gets exactly one result, in order; no overlap of unsafe calls; batches in order; the cap holds; the log re-projects', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), specsArb, fc.integer({ min: 1, max: 4 }), async (s, specs, cap) => {
        const { tools, violations } = makeTools(s, cap)
        const kernel = testKernel(tools, { maxConcurrency: cap })
        const ids = specs.map((_, i) => `call_${i}`)
        const message = assistant(...specs.map((spec, i) => [ids[i], spec.tool, inputOf(spec, ids[i] as string)] as [string, string, unknown]))
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
      }),
      { numRuns: 200 },
    )
  })

  it('abort at any point: still exactly one result each; nothing starts after abort; started block calls keep their real result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), specsArb, fc.integer({ min: 1, max: 4 }), async (s, specs, cap) => {
        const { tools } = makeTools(s, cap)
        const kernel = testKernel(tools, { maxConcurrency: cap })
        const ids = specs.map((_, i) => `call_${i}`)
        const message = assistant(...specs.map((spec, i) => [ids[i], spec.tool, inputOf(spec, ids[i] as string)] as [string, string, unknown]))
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
      }),
      { numRuns: 200 },
    )
  })

  it('no tool, validator, predicate, permission check or mapper that throws makes runTurn throw', async () => {
    const throwing = fc.constantFrom('call', 'validateInput', 'isConcurrencySafe', 'checkPermissions', 'map', 'isEnabled', 'interruptBehavior', 'none')
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
        const { message } = await testKernel(tools).runTurn(assistant(...where.map((_, i) => [`id${i}`, `T${i}`, {}] as [string, string, unknown])))
        expect(message.content.map((b) => b.tool_use_id)).toEqual(where.map((_, i) => `id${i}`))
        where.forEach((w, i) => {
          const fine = w === 'none' || w === 'isConcurrencySafe' || w === 'interruptBehavior'
          expect(message.content[i]?.is_error === true).toBe(!fine)
          expect(JSON.stringify(message.content[i])).not.toMatch(/\n\s+at /)
        })
      }),
      { numRuns: 100 },
    )
  })
})
