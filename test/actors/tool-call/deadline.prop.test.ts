/**
 * Deadlines and retries over random turns (docs/design.md §Deadlines and retries): calls
 * of both interrupt kinds that hang, finish or fail a few times, under a drawn kernel deadline and
 * grace, on a fake clock moved in drawn steps, with an abort at a drawn point. Checked: every
 * tool_use gets exactly one tool_result, in order; a call that timed out says timed_out; a call
 * that finishes before its deadline keeps its own result; an abort before a deadline wins; and
 * the log replays.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, replay, type KernelEvent, type Tool } from '../../../src/index.js'
import { fakeClock } from '../../../src/testing/index.js'
import { assistant } from '../../helpers.js'
import { runs } from '../../runs.js'
import { advanceInSteps, kernelOn, settle } from './timing-helpers.js'

const input = z.strictObject({ hang: z.boolean(), ms: z.number(), fails: z.number() })
type Input = z.infer<typeof input>
const BACKOFF = { initialMs: 50, factor: 2 }
const ATTEMPTS = 3

/** Four tools: both kinds, with and without retries; each runs `ms` per attempt on the kernel's clock. */
function tools(): Tool[] {
  const attempts = new Map<string, number>()
  const make = (name: string, interrupt: 'cancel' | 'block', retry: boolean) =>
    buildTool<Input, string>({
      name,
      description: () => name,
      inputSchema: input,
      interruptBehavior: () => interrupt,
      isConcurrencySafe: () => true,
      idempotent: true,
      ...(retry ? { retry: { attempts: ATTEMPTS, backoff: BACKOFF } } : {}),
      call: ({ hang, ms, fails }, { signal, toolUseId, ports }) =>
        new Promise<string>((resolve, reject) => {
          const attempt = (attempts.get(toolUseId) ?? 0) + 1
          attempts.set(toolUseId, attempt)
          if (interrupt === 'cancel') signal.addEventListener('abort', () => reject(signal.reason as Error))
          if (hang) return
          ports.clock.setTimeout?.(() => {
            if (attempt <= fails) reject(new Error(`boom ${attempt}`))
            else resolve(`ok ${attempt}`)
          }, ms)
        }),
    })
  return [
    make('Cancel', 'cancel', false),
    make('Block', 'block', false),
    make('CancelR', 'cancel', true),
    make('BlockR', 'block', true),
  ]
}

const callArb = fc.record({
  tool: fc.constantFrom('Cancel', 'Block', 'CancelR', 'BlockR'),
  hang: fc.boolean(),
  // Multiples of 10, deadlines end in 5: a call never finishes on the very tick its deadline falls.
  ms: fc.integer({ min: 1, max: 40 }).map((n) => n * 10),
  fails: fc.integer({ min: 0, max: 3 }),
})

/** When an unhindered call would end, from its start, and whether with its own success. */
function ending(tool: string, call: Input): { at: number; ok: boolean } | undefined {
  if (call.hang) return undefined
  const retries = tool.endsWith('R') ? Math.min(call.fails, ATTEMPTS - 1) : 0
  let at = call.ms
  for (let k = 1; k <= retries; k++) at += BACKOFF.initialMs * BACKOFF.factor ** (k - 1) + call.ms
  return { at, ok: call.fails <= retries }
}

const ofCall = (events: readonly KernelEvent[], id: string) =>
  events.filter((e) => 'toolUseId' in e && e.toolUseId === id)

describe('deadline and retry properties', () => {
  it('pairing, order, timed_out only past the deadline, abort wins, and the log replays', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(callArb, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 10, max: 120 }).map((n) => n * 10 + 5),
        fc.integer({ min: 0, max: 30 }).map((n) => n * 10),
        fc.array(
          fc.integer({ min: 1, max: 80 }).map((n) => n * 5),
          { minLength: 1, maxLength: 8 },
        ),
        fc.option(fc.nat({ max: 8 }), { nil: undefined }),
        async (calls, timeoutMs, graceMs, steps, abortAt) => {
          const clock = fakeClock()
          const kernel = kernelOn(clock, tools(), { toolTimeoutMs: timeoutMs, timeoutGraceMs: graceMs })
          const controller = new AbortController()
          const ids = calls.map((_, i) => `c${i}`)
          const turn = kernel.runTurn(
            assistant(
              ...calls.map((c, i): [string, string, unknown] => [
                ids[i]!,
                c.tool,
                { hang: c.hang, ms: c.ms, fails: c.fails },
              ]),
            ),
            { signal: controller.signal },
          )
          for (const [i, ms] of steps.entries()) {
            await settle()
            if (i === abortAt) controller.abort('stop')
            await advanceInSteps(clock, ms)
          }
          // Every call has a deadline: past the longest, everything has ended.
          await settle()
          await advanceInSteps(clock, timeoutMs + graceMs + 10)
          const { message } = await turn
          const events = kernel.log.read()

          // Exactly one result per tool_use, in order.
          expect(message.content.map((b) => b.tool_use_id)).toEqual(ids)
          for (const id of ids) expect(ofCall(events, id).filter((e) => e.type === 'tool.result')).toHaveLength(1)

          const aborted = events.find((e) => e.type === 'turn.aborted')
          calls.forEach((call, i) => {
            const id = ids[i]!
            const own = ofCall(events, id)
            const block = message.content[i]!
            const text = String(block.content)
            const timedOut = own.find((e) => e.type === 'tool.timed_out')
            // Said as timed_out exactly when the log says so.
            expect(text.includes(' timed out: it ran out of time after ')).toBe(timedOut !== undefined)
            if (timedOut !== undefined) expect(block.is_error).toBe(true)
            const started = own.find((e) => e.type === 'tool.started')
            const end = ending(call.tool, call)
            const cancelKind = call.tool.startsWith('Cancel')
            const abortedFirst =
              aborted !== undefined && (started === undefined || aborted.seq < (timedOut?.seq ?? Infinity))
            if (aborted === undefined && end !== undefined && end.at < timeoutMs) {
              // Nothing else is affected: a call that ends before its deadline keeps its own answer.
              expect(timedOut).toBeUndefined()
              expect(text).toEqual(end.ok ? `ok ${call.fails + 1}` : expect.stringContaining('failed'))
            }
            if (aborted === undefined && end === undefined) expect(timedOut).toBeDefined()
            if (aborted === undefined && cancelKind && end !== undefined && end.at > timeoutMs)
              expect(timedOut).toBeDefined()
            // An abort before the deadline wins for a 'cancel' call that was running: interrupted, not timed out.
            if (abortedFirst && cancelKind && started !== undefined && started.seq < aborted.seq) {
              const answered = own.find((e) => e.type === 'tool.result')!
              if (answered.seq > aborted.seq) expect(timedOut === undefined || timedOut.seq < aborted.seq).toBe(true)
            }
          })

          const replayed = await replay(events, { tools: tools() })
          expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
        },
      ),
      { numRuns: runs(100) },
    )
  }, 120_000)
})
