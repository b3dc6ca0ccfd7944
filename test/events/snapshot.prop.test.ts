/**
 * Session snapshots (issue 33): for any session — turns of plain, context-changing and asking
 * calls; answers with and without grants; mode changes; deferred tools loaded by the app and by
 * ToolSearch; snapshots every 1–4 turns — and for the log cut anywhere (a crash mid-turn), a
 * kernel resumed from the last snapshot and what follows sees the same session as one resumed
 * from the whole log, and goes on the same way.
 */
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  changeContext,
  createKernel,
  createMemoryLog,
  TOOL_SEARCH_NAME,
  type Kernel,
  type KernelEvent,
  type PermissionMode,
} from '../../src/index.js'
import { Ask, counterIds, fixedClock } from '../helpers.js'
import { runs } from '../runs.js'
import { expectSnapshotResumeEqual, withSnapshotAt } from './snapshot-resume.js'
import { compactLog, resumeHistory } from '../../src/events/snapshot.js'

const workspace = mkdtempSync(join(tmpdir(), 'tk-snapshot-'))
for (const sub of ['a', 'b']) mkdirSync(join(workspace, sub))

const tools = [
  buildTool({
    name: 'Echo',
    description: () => 'Echoes.',
    inputSchema: z.object({ text: z.string() }),
    isConcurrencySafe: () => true,
    call: async ({ text }) => text,
  }),
  buildTool({
    name: 'Set',
    description: () => 'Changes the session.',
    inputSchema: z.object({ change: z.record(z.string(), z.unknown()) }),
    isConcurrencySafe: () => false,
    call: async ({ change }, context) => changeContext(`set by ${context.toolUseId}`, change),
  }),
  Ask,
  ...['Deep', 'Far'].map((name) =>
    buildTool({
      name,
      description: () => `${name}, deferred.`,
      inputSchema: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      shouldDefer: true,
      call: async ({ text }) => `${name} ${text}`,
    }),
  ),
]
const options = { tools, cwd: workspace, deferral: { mode: 'always' as const } }

type Call =
  | { tool: 'Echo' | 'Ask' | 'Deep' }
  | { tool: 'Set'; change: Record<string, unknown> }
  | { tool: 'Search'; query: string }
type Op =
  | { kind: 'turn'; calls: Call[] }
  | { kind: 'mode'; mode: PermissionMode }
  | { kind: 'load'; name: 'Deep' | 'Far' }
  | { kind: 'answer'; pick: number; allow: boolean; grant: 'none' | 'call' | 'tool' | 'rule' }

const changeArb = fc.oneof(
  fc.constantFrom('a', 'b', '.').map((dir) => ({ cwd: join(workspace, dir) })),
  fc.record({ env: fc.dictionary(fc.constantFrom('K', 'L'), fc.option(fc.constantFrom('1', '2'), { nil: null })) }),
  fc.record({ data: fc.dictionary(fc.constantFrom('x', 'y'), fc.nat(3)) }),
)
const callArb: fc.Arbitrary<Call> = fc.oneof(
  fc.constantFrom<Call>({ tool: 'Echo' }, { tool: 'Ask' }, { tool: 'Ask' }, { tool: 'Deep' }),
  changeArb.map((change): Call => ({ tool: 'Set', change })),
  fc.constantFrom('select:Deep', 'select:Far', 'far').map((query): Call => ({ tool: 'Search', query })),
)
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      calls: fc.array(callArb, { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('mode' as const),
      mode: fc.constantFrom<PermissionMode>('default', 'acceptEdits', 'plan', 'dontAsk'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('load' as const), name: fc.constantFrom<'Deep' | 'Far'>('Deep', 'Far') }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      pick: fc.nat(4),
      allow: fc.boolean(),
      grant: fc.constantFrom<'none' | 'call' | 'tool' | 'rule'>('none', 'call', 'tool', 'rule'),
    }),
  },
)

function use(call: Call, id: string): { type: 'tool_use'; id: string; name: string; input: unknown } {
  if (call.tool === 'Set') return { type: 'tool_use', id, name: 'Set', input: { change: call.change } }
  if (call.tool === 'Search') return { type: 'tool_use', id, name: TOOL_SEARCH_NAME, input: { query: call.query } }
  return { type: 'tool_use', id, name: call.tool, input: { text: id } }
}

/** Plays the session on one kernel; returns its log. */
async function play(ops: readonly Op[], snapshotEvery: number): Promise<readonly KernelEvent[]> {
  const log = createMemoryLog(fixedClock())
  const kernel: Kernel = createKernel({
    ...options,
    snapshotEvery,
    log,
    ports: { clock: fixedClock(), ids: counterIds() },
  })
  let n = 0
  for (const op of ops) {
    if (op.kind === 'turn') {
      const content = op.calls.map((call) => use(call, `c${++n}`))
      await kernel.runTurn({ role: 'assistant', content, stop_reason: 'tool_use' } as never)
    } else if (op.kind === 'mode') kernel.setMode(op.mode)
    else if (op.kind === 'load') {
      if (kernel.apiTools().some((t) => 'name' in t && t.name === op.name && 'defer_loading' in t))
        kernel.loadTools([op.name])
    } else {
      const pending = kernel.pendingApprovals().filter((p) => !p.answered)
      const call = pending[op.pick % Math.max(1, pending.length)]
      if (call === undefined) continue
      const grant =
        op.grant === 'none'
          ? {}
          : { grant: op.grant === 'rule' ? { scope: 'rule' as const, rule: 'Ask' } : { scope: op.grant } }
      await kernel.answer(
        call.toolUseId,
        op.allow ? { behavior: 'allow', ...grant } : { behavior: 'deny', message: 'no' },
      )
    }
  }
  await kernel.close()
  return log.read()
}

/** The same next steps on each resumed kernel: a probe turn (grants, loads, mode at work), then an answer. */
async function goOn(kernel: Kernel): Promise<unknown[]> {
  const probe = await kernel.runTurn({
    role: 'assistant',
    content: [
      use({ tool: 'Ask' }, 'probe_ask'),
      use({ tool: 'Deep' }, 'probe_deep'),
      use({ tool: 'Echo' }, 'probe_echo'),
    ],
    stop_reason: 'tool_use',
  } as never)
  const first = kernel.pendingApprovals().find((p) => !p.answered && p.toolUseId !== 'probe_ask')
  const answered = first === undefined ? undefined : await kernel.answer(first.toolUseId, { behavior: 'allow' })
  return [probe.message, probe.pending, answered?.message, answered?.pending]
}

describe('session snapshots (issue 33)', () => {
  it('a resume from the last snapshot equals a resume from the whole log, for the whole log and every cut', async () => {
    let withSnapshot = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 2, maxLength: 14 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        async (ops, every, cuts) => {
          const events = await play(ops, every)
          expect(events.some((e) => e.type === 'session.snapshot')).toBe(
            ops.filter((op) => op.kind === 'turn').length >= every,
          )
          for (const end of [events.length, ...cuts.map((c) => c % (events.length + 1))]) {
            const log = events.slice(0, end)
            if (await expectSnapshotResumeEqual(log, options, goOn)) withSnapshot++
            // The next snapshot a resumed kernel writes carries what one over the whole log would.
            expect(compactLog(resumeHistory(log))).toEqual(compactLog(log))
          }
        },
      ),
      { numRuns: runs(60) },
    )
    expect(withSnapshot).toBeGreaterThan(20)
  })

  it('a snapshot taken anywhere — between turns, mid-turn, mid-call — resumes as the whole log does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 2, maxLength: 12 }), fc.nat(), async (ops, at) => {
        const events = await play(ops, 0)
        if (events.length === 0) return
        const log = withSnapshotAt(events, 1 + (at % events.length))
        expect(await expectSnapshotResumeEqual(log, options, goOn)).toBe(true)
      }),
      { numRuns: runs(60) },
    )
  })
})
