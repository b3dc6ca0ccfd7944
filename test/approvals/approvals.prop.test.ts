/**
 * Pending calls interleaved with answers, aborts, crashes and other calls. For any turn of asking
 * and plain calls (safe or not, some hanging once allowed) and any order of answers, aborts and
 * crashes (a new kernel over the log, the old one abandoned mid-call), once the dust settles:
 * every tool_use has exactly one result; results are in tool_use order; no asking call ran before
 * its approval; no unsafe call overlapped another call; a parked call is never closed by
 * recovery; and the log is in order.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  checkLogOrder,
  createKernel,
  createMemoryLog,
  projectMessages,
  RECOVERY_REASON,
  type EventLog,
  type Kernel,
  type KernelEvent,
} from '../../src/index.js'
import { counterIds, fixedClock } from '../helpers.js'
import { runs } from '../runs.js'
import { expectSnapshotResumeEqual, withSnapshotAt } from '../events/snapshot-resume.js'

interface CallSpec {
  asks: boolean
  safe: boolean
  /** The tool never settles (a crash or an abort ends it). */
  hangs: boolean
}
type Op = { kind: 'answer'; pick: number; allow: boolean } | { kind: 'crash' } | { kind: 'abort' }

const callArb = fc.record({ asks: fc.boolean(), safe: fc.boolean(), hangs: fc.boolean() })
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('answer' as const), pick: fc.nat(5), allow: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'abort' as const }) },
)

/** The tools: one per (asks, safe, hangs); each notes when it runs, and checks it was allowed. */
function toolsFor(log: () => EventLog, violations: string[], ran: string[]) {
  const tools = []
  for (const asks of [false, true])
    for (const safe of [false, true])
      for (const hangs of [false, true])
        tools.push(
          buildTool({
            name: `T_${asks ? 'ask' : 'plain'}_${safe ? 'safe' : 'unsafe'}_${hangs ? 'hang' : 'ok'}`,
            description: () => 'a test tool',
            inputSchema: z.object({ id: z.string() }),
            isConcurrencySafe: () => safe,
            checkPermissions: () => (asks ? { behavior: 'ask', message: 'asks' } : { behavior: 'allow' }),
            call: async ({ id }) => {
              ran.push(id)
              const events = log().read()
              if (
                asks &&
                !events.some((e) => e.type === 'permission.answered' && e.toolUseId === id && e.behavior === 'allow')
              )
                violations.push(`${id} ran without an approval`)
              if (hangs) await new Promise(() => {})
              return `ran ${id}`
            },
          }),
        )
  return tools
}

const nameOf = (c: CallSpec) => `T_${c.asks ? 'ask' : 'plain'}_${c.safe ? 'safe' : 'unsafe'}_${c.hangs ? 'hang' : 'ok'}`
const settle = () => new Promise((resolve) => setImmediate(resolve))

async function play(calls: CallSpec[], ops: Op[]) {
  const log = createMemoryLog(fixedClock())
  const violations: string[] = []
  const ran: string[] = []
  const tools = toolsFor(() => log, violations, ran)
  const ids = counterIds()
  const make = (): Kernel => createKernel({ tools, log, ports: { clock: fixedClock(), ids } })
  let kernel = make()
  const controller = new AbortController()
  const message = {
    role: 'assistant' as const,
    content: calls.map((c, i) => ({ type: 'tool_use' as const, id: `c${i}`, name: nameOf(c), input: { id: `c${i}` } })),
  }
  void kernel.runTurn(message, { signal: controller.signal })
  await settle()
  let inHand = true
  // The ops, then allow whatever still waits, crashing to end what hangs, until nothing is open.
  const tail: Op[] = Array.from({ length: calls.length * 2 + 2 }, (_, i) =>
    i % 2 === 0 ? { kind: 'answer', pick: 0, allow: true } : { kind: 'crash' },
  )
  for (const op of [...ops, ...tail]) {
    if (op.kind === 'crash') {
      kernel = make().resume(log)
      inHand = false
    } else if (op.kind === 'abort') {
      if (inHand) controller.abort('stop')
    } else {
      const pending = kernel.pendingApprovals().filter((p) => !p.answered)
      const call = pending[op.pick % Math.max(1, pending.length)]
      if (call !== undefined)
        void kernel
          .answer(
            call.toolUseId,
            op.allow ? { behavior: 'allow', digest: call.digest } : { behavior: 'deny', message: 'no' },
          )
          .catch((error: unknown) => violations.push(`answer failed: ${String(error)}`))
    }
    await settle()
  }
  return { events: log.read(), violations, ran }
}

function check(calls: CallSpec[], events: readonly KernelEvent[], violations: string[]) {
  expect(violations).toEqual([])
  expect(checkLogOrder(events)).toMatchObject({ ok: true })
  const results = events.filter((e) => e.type === 'tool.result')
  expect(results.map((e) => e.toolUseId).sort()).toEqual(calls.map((_, i) => `c${i}`).sort())
  const [message] = projectMessages(events)
  expect(message?.content.map((b) => b.tool_use_id)).toEqual(calls.map((_, i) => `c${i}`))
  // Nothing overlaps an unsafe call: it starts after every earlier call's result, and later calls start after its own.
  const at = (type: string, id: string) =>
    events.findIndex((e) => e.type === type && 'toolUseId' in e && e.toolUseId === id)
  calls.forEach((call, i) => {
    const started = at('tool.started', `c${i}`)
    if (call.safe || started < 0) return
    for (let j = 0; j < calls.length; j++) {
      if (j === i) continue
      const other = at('tool.started', `c${j}`)
      if (other < 0) continue
      if (j < i) expect(at('tool.result', `c${j}`), `c${j} before unsafe c${i}`).toBeLessThan(started)
      else expect(other, `c${j} after unsafe c${i}`).toBeGreaterThan(at('tool.result', `c${i}`))
    }
  })
  // Recovery never closes a parked call: a call closed as recovered had not parked, or was answered.
  for (const e of events) {
    if (e.type !== 'tool.cancelled' || e.reason !== RECOVERY_REASON) continue
    const own = events.filter((x) => 'toolUseId' in x && x.toolUseId === e.toolUseId).map((x) => x.type)
    if (own.includes('permission.pending')) expect(own, e.toolUseId).toContain('permission.answered')
  }
}

describe('pending calls with answers, aborts and crashes', () => {
  it('every call answered once, in order, nothing run unapproved, nothing overlapping an unsafe call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callArb, { minLength: 1, maxLength: 5 }),
        fc.array(opArb, { maxLength: 8 }),
        fc.nat(),
        async (calls, ops, at) => {
          const { events, violations } = await play(calls, ops)
          check(calls, events, violations)
          // Issue 33: a snapshot anywhere in this session resumes as the whole log does.
          const cut = withSnapshotAt(events, 1 + (at % events.length))
          expect(await expectSnapshotResumeEqual(cut, { tools: toolsFor(() => createMemoryLog(), [], []) })).toBe(true)
        },
      ),
      { numRuns: runs(60) },
    )
  })
})
