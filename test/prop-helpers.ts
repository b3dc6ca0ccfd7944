/** Shared pieces of the property tests: tools timed by fast-check's scheduler, and log checks. */
import fc from 'fast-check'
import { stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { expect } from 'vitest'
import { z } from 'zod'
import { buildTool, parseJsonl, projectMessages, toJsonLine, type HooksConfig, type KernelEvent } from '../src/index.js'

export interface Spec {
  tool: 'Block' | 'Cancel' | 'Missing'
  safe: boolean
  fail: boolean
  throwsInPredicate: boolean
  invalid: boolean
  progress: number
}

const rare = (weight: number) => fc.integer({ min: 0, max: weight }).map((n) => n === 0)
export const specsArb = fc.array(
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

const Input = z.object({
  id: z.string(),
  safe: z.boolean(),
  fail: z.boolean(),
  throwsInPredicate: z.boolean(),
  progress: z.number(),
})
type In = z.infer<typeof Input>

/** Tools whose calls finish when the fast-check scheduler says, and that watch for overlaps. */
export function makeTools(s: fc.Scheduler, cap: number) {
  const running = new Map<string, boolean>()
  const violations: string[] = []
  const make = (name: 'Block' | 'Cancel') =>
    buildTool({
      name,
      description: () => name,
      inputSchema: Input,
      interruptBehavior: () => (name === 'Cancel' ? 'cancel' : 'block'),
      // A validator that awaits real I/O for some calls: replay must feed back its answer and know
      // when the engine is idle from the engine, not from counting ticks.
      validateInput: async (input: In) => {
        if (input.progress === 1) await stat(tmpdir())
        return { result: true }
      },
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

export const isSafe = (spec: Spec) => spec.tool !== 'Missing' && !spec.invalid && !spec.throwsInPredicate && spec.safe

export function inputOf(spec: Spec, id: string): unknown {
  const input = {
    id,
    safe: spec.safe,
    fail: spec.fail,
    throwsInPredicate: spec.throwsInPredicate,
    progress: spec.progress,
  }
  return spec.invalid ? { ...input, safe: 'yes' } : input
}

/** Expected batch of each call: consecutive safe calls share one; each unsafe call has its own. */
/**
 * The batch of each call, by a formulation of its own (not the scheduler's running counter):
 * write the message as a string, S for a safe call and U for an unsafe one; the batches are the
 * tokens of /S+|U/g — maximal runs of safe calls, each unsafe call alone — in order.
 */
export function expectedBatches(specs: readonly Spec[]): number[] {
  const tokens =
    specs
      .map((spec) => (isSafe(spec) ? 'S' : 'U'))
      .join('')
      .match(/S+|U/g) ?? []
  return tokens.flatMap((token, batch) => Array.from(token, () => batch))
}

/** Checks ordering, the cap and batch isolation from the log alone. */
export function checkLog(
  events: readonly KernelEvent[],
  specs: readonly Spec[],
  ids: readonly string[],
  cap: number,
): void {
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

export function reprojected(events: readonly KernelEvent[]): string {
  const text = events.map(toJsonLine).join('')
  return JSON.stringify(projectMessages(parseJsonl(text).events))
}

/** Pre- and post-hooks that answer "go on" when fast-check's scheduler says. */
export function scheduledHooks(s: fc.Scheduler): HooksConfig {
  const hook = {
    type: 'function' as const,
    name: 'scheduled',
    fn: () => s.schedule(Promise.resolve(undefined), 'hook'),
  }
  return { PreToolUse: [{ hooks: [hook] }], PostToolUse: [{ hooks: [hook] }], PostToolUseFailure: [{ hooks: [hook] }] }
}

/** Ids from outside as hostile as they come: prototype keys, unicode, very long. */
export const HOSTILE_IDS = [
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'toolu_é漢字🙂',
  'x'.repeat(3000),
]

/** A permutation of hostile ids to draw from; calls past its end get plain ids. */
export const idPoolArb = fc.shuffledSubarray(HOSTILE_IDS)

export function idsFor(specs: readonly unknown[], pool: readonly string[]): string[] {
  return specs.map((_, i) => pool[i] ?? `call_${i}`)
}
