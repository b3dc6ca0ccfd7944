/**
 * Results that arrive together share the message budget largest-first (docs/decisions/results.md,
 * 154), whatever order they arrive in: fast-check's scheduler decides when each tool returns. For
 * each group the log decided, the persisted results are the largest, no more than it takes to fit
 * the message; a result decided alone is claimed as before (decision 16); the message is in
 * tool_use order; what is kept whole fits the budget; and the log replays without divergence.
 * A crash while a result waits for its group still gives every tool_use its tool_result.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createMemoryLog,
  recover,
  replay,
  type KernelEvent,
  type EventOf,
  type Tool,
} from '../../../src/index.js'
import { assistant, fixedClock, testKernel } from '../../helpers.js'
import { runs } from '../../runs.js'

const KEEP_WHOLE = 1_000

/** Returns `chars` characters once `wait` lets it (the scheduler, or nothing in replay). */
function sizedTool(wait: (toolUseId: string) => Promise<unknown>): Tool {
  return buildTool({
    name: 'Sized',
    description: () => 'Returns chars characters.',
    inputSchema: z.strictObject({ chars: z.number() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ chars }, { toolUseId }) {
      await wait(toolUseId)
      return 'x'.repeat(chars)
    },
  })
}

const textOf = (block: EventOf<'tool.result'>['block']): string =>
  typeof block.content === 'string'
    ? block.content
    : block.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')

/**
 * Walks the log as the engine claimed the budget, checking each decision: a group's (at its
 * budget.decided) and a result's decided alone (at its tool.completed). Returns how many groups.
 */
function checkDecisions(events: readonly KernelEvent[], chars: ReadonlyMap<string, number>, limit: number): number {
  const grouped = new Set(events.flatMap((e) => (e.type === 'budget.decided' ? e.group : [])))
  const previews = new Map(
    events.flatMap((e) => (e.type === 'tool.result' ? [[e.toolUseId, textOf(e.block).length] as const] : [])),
  )
  const size = (id: string): number => chars.get(id) ?? NaN
  let used = 0
  let groups = 0
  for (const e of events) {
    if (e.type === 'budget.held') expect(e.chars).toBe(size(e.toolUseId))
    if (e.type === 'budget.decided') {
      groups++
      const persisted = new Set(e.persisted)
      const kept = e.group.filter((id) => !persisted.has(id))
      const keptChars = kept.reduce((sum, id) => sum + size(id), 0)
      for (const id of e.persisted) expect(e.group).toContain(id)
      // Only what the budget can decide waits in a group.
      for (const id of e.group) expect(size(id)).toBeGreaterThan(KEEP_WHOLE)
      if (persisted.size > 0) {
        const smallestPersisted = Math.min(...e.persisted.map(size))
        // The largest first: no kept result is larger than a persisted one.
        for (const id of kept) expect(size(id)).toBeLessThanOrEqual(smallestPersisted)
        // No more than it takes: keeping the smallest persisted one too would overflow.
        expect(used + keptChars + smallestPersisted).toBeGreaterThan(limit)
      }
      // What is kept fits (every result here is one the budget may persist).
      if (kept.length > 0) expect(used + keptChars).toBeLessThanOrEqual(limit)
      used += keptChars
    }
    if (e.type === 'tool.completed' && !grouped.has(e.toolUseId)) {
      const n = size(e.toolUseId)
      if (e.persisted === true) expect(n > KEEP_WHOLE && used + n > limit).toBe(true)
      else {
        expect(n <= KEEP_WHOLE || used + n <= limit).toBe(true)
        used += n
      }
    }
    // The budget step's preview takes its room once the output is saved.
    if (e.type === 'tool.budgeted') used += previews.get(e.toolUseId) ?? 0
  }
  return groups
}

describe('the message budget over any arrival order', () => {
  it('persists the largest of each group, no more than needed; tool_use order; whole results fit; replays as recorded', async () => {
    let withGroups = 0
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.oneof(fc.integer({ min: 1, max: KEEP_WHOLE }), fc.integer({ min: KEEP_WHOLE + 1, max: 9_000 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 2_000, max: 20_000 }),
        fc.integer({ min: 1, max: 4 }),
        async (s, sizes, limit, cap) => {
          const store = new Map<string, string>()
          const results = {
            save: async ({ toolUseId }: { toolUseId: string }, text: string) => {
              store.set(`/r/${toolUseId}`, text)
              return `/r/${toolUseId}`
            },
          }
          const tool = sizedTool((id) => s.schedule(Promise.resolve(), id))
          const kernel = testKernel([tool], { results, messageBudgetChars: limit, maxConcurrency: cap })
          const ids = sizes.map((_, i) => `c${i}`)
          const chars = new Map(ids.map((id, i) => [id, sizes[i] as number]))
          const { message, events } = await s.waitFor(
            kernel.runTurn(
              assistant(...ids.map((id) => [id, 'Sized', { chars: chars.get(id) }] as [string, string, unknown])),
            ),
          )
          expect(message.content.map((b) => b.tool_use_id)).toEqual(ids)
          const persisted = new Set(
            events.flatMap((e) => (e.type === 'tool.completed' && e.persisted === true ? [e.toolUseId] : [])),
          )
          expect([...store.keys()].sort()).toEqual([...persisted].map((id) => `/r/${id}`).sort())
          let whole = 0
          message.content.forEach((block, i) => {
            const id = ids[i] as string
            const n = chars.get(id) as number
            if (persisted.has(id)) expect(block.content).not.toBe('x'.repeat(n))
            else {
              expect(block.content).toBe('x'.repeat(n))
              if (n > KEEP_WHOLE) whole += n
            }
          })
          expect(whole).toBeLessThanOrEqual(limit)
          if (checkDecisions(events, chars, limit) > 0) withGroups++
          const replayed = await replay(kernel.log.read(), {
            tools: [sizedTool(async () => undefined)],
            messageBudgetChars: limit,
            readResult: (path) => store.get(path),
          })
          expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
        },
      ),
      { numRuns: runs(60) },
    )
    // Not vacuous: results did arrive together.
    expect(withGroups).toBeGreaterThan(0)
  })
})

describe('a crash while a result waits for its group', () => {
  it('still gives every tool_use its tool_result, says what the held call returned, and replays up to the recovery', async () => {
    let release!: () => void
    const hang = new Promise<void>((resolve) => (release = resolve))
    const Hang = buildTool({
      name: 'Hang',
      description: () => 'Returns when let go.',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call: async () => (await hang, 'late'),
    })
    const tools = [sizedTool(async () => undefined), Hang]
    const log = createMemoryLog(fixedClock())
    void testKernel(tools, { log }).runTurn(assistant(['big', 'Sized', { chars: 2_000 }], ['hang', 'Hang', {}]))
    while (!log.read().some((e) => e.type === 'budget.held')) await new Promise((resolve) => setImmediate(resolve))
    // The process dies here: the log is all that is left.
    const cut = createMemoryLog(fixedClock(), log.read())
    release()
    for (const event of recover(cut.read())) cut.append(event)
    const events = cut.read()
    const answered = events.flatMap((e) => (e.type === 'tool.result' ? [e.toolUseId] : []))
    expect(answered.sort()).toEqual(['big', 'hang'])
    const big = events.find((e): e is EventOf<'tool.result'> => e.type === 'tool.result' && e.toolUseId === 'big')
    expect(textOf(big?.block as EventOf<'tool.result'>['block'])).toContain('It returned 2000 characters of output')
    const replayed = await replay(events, { tools: [sizedTool(async () => undefined), Hang] })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })
})
