/** The timeline model: segments from the step table, calls and turns in order, details, summary. */
import { readFileSync, readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseJsonl } from '../../src/events/jsonl.js'
import { STEPS, type KernelEventInput } from '../../src/events/event.schema.js'
import { STEP_TABLE } from '../../src/events/tool-call.steps.js'
import { projectStats } from '../../src/projections/stats.projection.js'
import { capped, MAX_EMBEDDED_CHARS, projectTimelineModel } from '../../src/projections/timeline-model.projection.js'
import { callSegments, stepOfEvent } from '../../src/projections/timeline-segments.js'
import { requested, result, stamp } from './events.js'

const T = 'T'
/** A call event for call `id` of turn T; the fields are checked where the test reads them. */
const ev = (input: Record<string, unknown> & { type: string }, id = 'c') =>
  ({ turnId: T, toolUseId: id, ...input }) as KernelEventInput
const short = (segments: ReturnType<typeof callSegments>) => segments.map((s) => [s.kind, s.start, s.end, s.doing])

const FIXTURES = new URL('../fixtures/logs/', import.meta.url)
const fixture = (name: string) => parseJsonl(readFileSync(new URL(name, FIXTURES), 'utf8')).events

describe('callSegments', () => {
  it('splits a call into queued, checks, hooks, the wait for the user, running, budget and finishing', () => {
    const events = stamp(
      [requested(T, 'c', 0, 'Writer'), 100],
      [ev({ type: 'tool.queued', safe: false }), 101],
      [ev({ type: 'tool.dispatched', batch: 1, running: 1 }), 130],
      [ev({ type: 'tool.parsed', tool: 'Writer', hooks: { pre: true, post: true } }), 131],
      [ev({ type: 'tool.validated' }), 132],
      [ev({ type: 'hook.finished', phase: 'pre', hook: 'h', outcome: 'continue' }), 150],
      [ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue' }), 152],
      [ev({ type: 'permission.requested', tool: 'Writer', reason: 'asks', suggestions: [] }), 153],
      [ev({ type: 'tool.permitted', behavior: 'allow', source: 'user' }), 953],
      [ev({ type: 'tool.started', interrupt: 'block' }), 954],
      [ev({ type: 'tool.progress', data: 'half' }), 1000],
      [ev({ type: 'tool.completed', persisted: true }), 1074],
      [ev({ type: 'tool.budgeted', path: '/r/c.txt', chars: 9 }), 1080],
      [ev({ type: 'tool.mapped', isError: false }), 1081],
      [ev({ type: 'hook.finished', phase: 'post', hook: 'p', outcome: 'continue' }), 1090],
      [ev({ type: 'tool.hooked', phase: 'post', outcome: 'continue' }), 1091],
      [result(T, 'c', 'ok'), 1092],
    )
    expect(short(callSegments(events, 100))).toEqual([
      ['queued', 0, 30, 'waiting in the queue'],
      ['checks', 30, 31, STEP_TABLE.parse.doing],
      ['checks', 31, 32, STEP_TABLE.validate.doing],
      ['hooks', 32, 52, STEP_TABLE.preHook.doing],
      ['permission', 52, 53, STEP_TABLE.permission.doing],
      ['permission', 53, 853, 'waiting for the user'],
      ['running', 853, 974, STEP_TABLE.call.doing],
      ['budget', 974, 980, STEP_TABLE.budget.doing],
      ['finishing', 980, 981, STEP_TABLE.map.doing],
      ['hooks', 981, 991, STEP_TABLE.postHook.doing],
      ['finishing', 991, 992, STEP_TABLE.emit.doing],
    ])
  })

  it('never goes back a step: a permission request logged before the parse it followed stays permission', () => {
    // The order the denial fixture has: the request is recorded while parse's event is still pending.
    const events = stamp(
      [requested(T, 'c', 0, 'Writer'), 0],
      [ev({ type: 'tool.dispatched', batch: 0, running: 1 }), 1],
      [ev({ type: 'permission.requested', tool: 'Writer', reason: 'asks', suggestions: [] }), 2],
      [ev({ type: 'tool.parsed', tool: 'Writer' }), 3],
      [ev({ type: 'tool.validated' }), 4],
      [ev({ type: 'tool.permitted', behavior: 'deny', source: 'user', reason: 'no' }), 9],
      [ev({ type: 'tool.rejected', step: 'permission', code: 'permission_denied', message: 'no' }), 10],
    )
    expect(
      short(callSegments(events, 0)).map(([kind, start, end, doing]) => `${kind}:${start}-${end}:${doing}`),
    ).toEqual([
      'queued:0-1:waiting in the queue',
      `permission:1-2:${STEP_TABLE.permission.doing}`,
      'permission:2-9:waiting for the user',
      `permission:9-10:${STEP_TABLE.permission.doing}`,
    ])
  })

  it('reads hooks from the hook events even when tool.parsed did not record them (older logs)', () => {
    const call = projectTimelineModel(fixture('hook-block.jsonl')).calls.find((c) => c.id === 'h1')
    expect(call?.segments.map((s) => s.kind)).toEqual([
      'queued',
      'checks',
      'checks',
      'hooks',
      'permission',
      'running',
      'finishing',
      'hooks',
      'finishing',
    ])
  })

  it('a call cancelled in the queue was queued until then; a call cut off by a crash ends at its last event', () => {
    const abort = projectTimelineModel(fixture('abort.jsonl'))
    const w1 = abort.calls.find((c) => c.id === 'w1')
    expect(w1?.batch).toBeNull()
    expect(w1?.segments.map((s) => s.kind)).toEqual(['queued', 'finishing', 'finishing'])
    expect(w1?.errorClass).toBe('cancelled')
    expect(abort.calls.find((c) => c.id === 's1')?.errorClass).toBe('interrupted')
    const crash = projectTimelineModel(fixture('crash-mid-call.jsonl'))
    const c2 = crash.calls.find((c) => c.id === 'c2')
    expect(c2?.outcome).toBe('open')
    expect(c2?.end).toBe(22) // its last progress, at 23, less the origin 1
    expect(c2?.segments.at(-1)).toMatchObject({ kind: 'running', end: 22 })
    expect(c2?.progress).toBe(2)
  })

  it('drops zero-length stretches and merges neighbours doing the same thing', () => {
    const events = stamp(
      [requested(T, 'c', 0), 5],
      [ev({ type: 'tool.queued', safe: true }), 5],
      [ev({ type: 'tool.dispatched', batch: 0, running: 1 }), 7],
      [ev({ type: 'tool.parsed', tool: 'Echo' }), 7],
      [ev({ type: 'tool.validated' }), 7],
      [ev({ type: 'tool.permitted', behavior: 'allow', source: 'tool' }), 7],
      [ev({ type: 'tool.started', interrupt: 'block' }), 8],
      [ev({ type: 'tool.progress', data: 1 }), 9],
      [ev({ type: 'tool.progress', data: 2 }), 12],
      [ev({ type: 'tool.completed', output: 'x' }), 15],
      [ev({ type: 'tool.mapped', isError: false }), 15],
      [result(T, 'c', 'x'), 15],
    )
    expect(short(callSegments(events, 5))).toEqual([
      ['queued', 0, 2, 'waiting in the queue'],
      ['running', 2, 10, STEP_TABLE.call.doing],
    ])
  })

  it('knows each step by the event the step table says closes it (or records its failure)', () => {
    for (const step of STEPS) {
      const closedBy = STEP_TABLE[step].closedBy
      if (closedBy === 'tool.hooked') continue // two steps: the phase says which
      expect(stepOfEvent({ ...stamp(ev({ type: closedBy }))[0]!, type: closedBy } as never), step).toBe(step)
    }
    const [pre, post] = stamp(
      ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue' }),
      ev({ type: 'tool.hooked', phase: 'post', outcome: 'continue' }),
    )
    expect([stepOfEvent(pre!), stepOfEvent(post!)]).toEqual(['preHook', 'postHook'])
    expect(stepOfEvent(stamp(ev({ type: 'tool.errored', message: 'x' }))[0]!)).toBe('call')
    expect(stepOfEvent(stamp(ev({ type: 'tool.queued', safe: true }))[0]!)).toBeUndefined()
  })
})

describe('projectTimelineModel', () => {
  it('puts every turn and call on one axis from the first event, in log order; an id reused in a later turn is a new call', () => {
    const model = projectTimelineModel(
      stamp(
        [{ type: 'turn.started', turnId: 'A', mode: 'batch', maxConcurrency: 2 }, 1000],
        [requested('A', 'x', 0, 'Read'), 1001],
        [requested('A', 'y', 1, 'Bash'), 1002],
        [result('A', 'y', 'no', 'error'), 1010],
        [result('A', 'x', 'ok'), 1020],
        [{ type: 'turn.ended', turnId: 'A', stopReason: 'tool_use' }, 1021],
        [{ type: 'turn.started', turnId: 'B', mode: 'stream', maxConcurrency: 1 }, 1500],
        [requested('B', 'x', 0, 'Read'), 1501],
      ),
    )
    expect(model.origin).toBe(1000)
    expect(model.span).toBe(501)
    expect(model.turns.map((t) => [t.n, t.id, t.start, t.end, t.mode, t.stopReason, t.calls])).toEqual([
      [0, 'A', 0, 21, 'batch', 'tool_use', 2],
      [1, 'B', 500, 501, 'stream', null, 1],
    ])
    expect(model.calls.map((c) => [c.n, c.turn, c.id, c.tool, c.start, c.end, c.outcome])).toEqual([
      [0, 0, 'x', 'Read', 1, 20, 'success'],
      [1, 0, 'y', 'Bash', 2, 10, 'error'],
      [2, 1, 'x', 'Read', 501, 501, 'open'],
    ])
    expect(model.turns[0]?.events.map((e) => e[2])).toEqual(['turn.started', 'turn.ended'])
  })

  it('keeps what the detail shows: input, rewrites, output, error, hook answers, the decision and who made it, events', () => {
    const model = projectTimelineModel(fixture('denial.jsonl'))
    const asked = model.calls.find((c) => c.id === 'd2')!
    expect(asked.input).toEqual({ note: 'first' })
    expect(asked.permission).toMatchObject({ behavior: 'allow', source: 'user', t: 18 })
    expect(asked.asked).toMatchObject({
      reason: 'the rule Writer asks first',
      suggestions: ['Writer(/notes/**)'],
      t: 14,
    })
    expect(asked.granted).toMatchObject({ scope: 'tool', tool: 'Writer' })
    expect(asked.output).toBe('wrote 5 characters')
    expect(asked.result).toBe('wrote 5 characters')
    expect(asked.events.map((e) => e[2])).toEqual(
      fixture('denial.jsonl').flatMap((e) => ('toolUseId' in e && e.toolUseId === 'd2' ? [e.type] : [])),
    )
    expect(asked.events[0]).toEqual([10, 10, 'tool.requested', '#1 Writer {"note":"first"}'])
    const denied = model.calls.find((c) => c.id === 'd1')!
    expect(denied.permission).toMatchObject({ behavior: 'deny', source: 'rule', reason: 'the rule Broken denies it' })
    expect(denied.errorClass).toBe('permission_denied')
    expect(denied.error).toMatch(/^Permission to use Broken was denied/)

    const hooks = projectTimelineModel(fixture('hook-block.jsonl')).calls
    expect(hooks[0]?.hooks.map((h) => [h.phase, h.hook, h.outcome, h.additionalContext])).toEqual([
      ['pre', 'PreToolUse[1].hooks[0] (context)', 'continue', 'keys are case-sensitive'],
      ['post', 'PostToolUse[0].hooks[0] (audit)', 'continue', undefined],
    ])
    expect(hooks[1]?.verdicts).toEqual([
      { t: 23, phase: 'pre', outcome: 'block', reason: 'writes are frozen', decision: 'deny' },
    ])
    const persisted = projectTimelineModel(fixture('persisted-output.jsonl')).calls[0]!
    expect(persisted.persisted).toEqual({ path: 'test/fixtures/logs/results/p1.txt', chars: 4391 })
    expect(persisted.output).toBeUndefined() // the marker, not output: the result store has it
  })

  it('keeps long values from the log short enough to open, and says how much it cut', () => {
    expect(capped('x'.repeat(MAX_EMBEDDED_CHARS))).toBe('x'.repeat(MAX_EMBEDDED_CHARS))
    expect(capped('y'.repeat(MAX_EMBEDDED_CHARS + 5))).toBe(
      `${'y'.repeat(MAX_EMBEDDED_CHARS)}… (5 more characters; the log has them all)`,
    )
    const big = { text: 'z'.repeat(MAX_EMBEDDED_CHARS) }
    expect(capped(big)).toMatch(/^\{"text":"z+… \(11 more characters; the log has them all\)$/)
    expect(capped({ small: [1, 2] })).toEqual({ small: [1, 2] })
    expect(capped(undefined)).toBeUndefined()
  })

  it('summarises: counts and error classes as toolkernel stats has them, the slowest calls, the time by segment kind', () => {
    for (const name of readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl'))) {
      const events = fixture(name)
      const { summary } = projectTimelineModel(events)
      const stats = projectStats(events)
      expect(Object.fromEntries(summary.errorClasses), name).toEqual({ ...stats.errorClasses })
      expect(Object.fromEntries(summary.byOutcome), name).toEqual({ ...stats.byOutcome })
      expect(Object.fromEntries(summary.byTool), name).toEqual({ ...stats.byTool })
      expect([summary.events, summary.turns, summary.calls], name).toEqual([stats.events, stats.turns, stats.calls])
    }
    const model = projectTimelineModel(fixture('parallel-batch.jsonl'))
    const durations = model.summary.slowest.map((n) => model.calls[n]!.end - model.calls[n]!.start)
    expect(durations).toEqual([...durations].sort((a, b) => b - a))
    const total = model.calls.flatMap((c) => c.segments).reduce((sum, s) => sum + s.end - s.start, 0)
    expect(model.summary.timeByKind.reduce((sum, [, ms]) => sum + ms, 0)).toBe(total)
    expect(model.summary.timeByKind.map(([kind]) => kind)).toEqual(model.kinds)
  })

  it('an empty log is an empty session', () => {
    const model = projectTimelineModel([])
    expect([model.span, model.turns, model.calls, model.summary.calls]).toEqual([0, [], [], 0])
  })
})
