/** projectStats and callStatesAt alone, over hand-built logs with chosen times. */
import { describe, expect, it } from 'vitest'
import type { KernelEvent } from '../../src/events/event.schema.js'
import { callStatesAt, projectStats } from '../../src/projections/stats.projection.js'
import { requested, result, stamp } from './events.js'

const T = 'T'
const cancelledAt = (toolUseId: string, step: 'parse' | 'permission' | 'call', at: number) =>
  [{ type: 'tool.cancelled', turnId: T, toolUseId, step, reason: 'the user interrupted the turn' }, at] as const

/** Five calls: a success, a tool error, one interrupted while running, one cancelled in the queue, an unknown tool. */
const log = stamp(
  [{ type: 'turn.started', turnId: T, mode: 'batch', maxConcurrency: 10 }, 100],
  [requested(T, 'ok', 0, 'Echo'), 101],
  [requested(T, 'boom', 1, 'Bash'), 102],
  [requested(T, 'slow', 2, 'Bash'), 103],
  [requested(T, 'queued', 3, 'Echo'), 104],
  [requested(T, 'nope', 4, 'Nope'), 105],
  [{ type: 'tool.dispatched', turnId: T, toolUseId: 'ok', batch: 0, running: 1 }, 110],
  [{ type: 'tool.dispatched', turnId: T, toolUseId: 'boom', batch: 1, running: 1 }, 120],
  [{ type: 'tool.dispatched', turnId: T, toolUseId: 'slow', batch: 1, running: 2 }, 125],
  [result(T, 'ok', 'fine'), 140],
  [{ type: 'tool.errored', turnId: T, toolUseId: 'boom', message: 'exit 1' }, 150],
  [result(T, 'boom', 'exit 1', 'error'), 151],
  cancelledAt('slow', 'call', 160),
  [result(T, 'slow', 'interrupted', 'cancelled'), 161],
  cancelledAt('queued', 'parse', 162),
  [result(T, 'queued', 'cancelled', 'cancelled'), 163],
  [
    { type: 'tool.rejected', turnId: T, toolUseId: 'nope', step: 'parse', code: 'unknown_tool', message: 'no Nope' },
    164,
  ],
  [result(T, 'nope', 'no Nope', 'error'), 165],
  [{ type: 'turn.completed', turnId: T, results: 5 }, 170],
)

describe('projectStats', () => {
  it('counts events, turns, calls, outcomes and tools', () => {
    const stats = projectStats(log)
    expect(stats.events).toBe(log.length)
    expect(stats.turns).toBe(1)
    expect(stats.calls).toBe(5)
    expect({ ...stats.byOutcome }).toEqual({ success: 1, error: 2, cancelled: 2 })
    expect({ ...stats.byTool }).toEqual({ Echo: 2, Bash: 2, Nope: 1 })
  })

  it('interrupted (cancelled while running) and cancelled (before running) are counted apart', () => {
    expect({ ...projectStats(log).errorClasses }).toEqual({
      tool_error: 1,
      interrupted: 1,
      cancelled: 1,
      unknown_tool: 1,
    })
  })

  it('rejections are counted by their code', () => {
    const events = stamp(
      requested(T, 'a', 0),
      requested(T, 'b', 1),
      requested(T, 'c', 2),
      { type: 'tool.rejected', turnId: T, toolUseId: 'a', step: 'validate', code: 'invalid_input', message: 'x' },
      { type: 'tool.rejected', turnId: T, toolUseId: 'b', step: 'permission', code: 'permission_denied', message: 'x' },
      { type: 'tool.rejected', turnId: T, toolUseId: 'c', step: 'permission', code: 'permission_denied', message: 'x' },
    )
    expect({ ...projectStats(events).errorClasses }).toEqual({ invalid_input: 1, permission_denied: 2 })
  })

  it('times the queue (request to dispatch) and the run (dispatch to result); never-started calls have neither', () => {
    const byId = Object.fromEntries(projectStats(log).timings.map((t) => [t.toolUseId, t]))
    expect(byId.ok).toEqual({ toolUseId: 'ok', tool: 'Echo', queueMs: 9, runMs: 30, outcome: 'success' })
    expect(byId.boom).toMatchObject({ queueMs: 18, runMs: 31, outcome: 'error' })
    expect(byId.slow).toMatchObject({ queueMs: 22, runMs: 36, outcome: 'cancelled' })
    expect(byId.queued).toEqual({
      toolUseId: 'queued',
      tool: 'Echo',
      queueMs: undefined,
      runMs: undefined,
      outcome: 'cancelled',
    })
  })

  it('a call with no result yet is open, with a queue time and no run time', () => {
    const events = stamp(
      [requested(T, 'a', 0), 10],
      [{ type: 'tool.dispatched', turnId: T, toolUseId: 'a', batch: 0, running: 1 }, 15],
    )
    expect(projectStats(events).timings).toEqual([
      { toolUseId: 'a', tool: 'Echo', queueMs: 5, runMs: undefined, outcome: 'open' },
    ])
    expect({ ...projectStats(events).byOutcome }).toEqual({ open: 1 })
  })

  it('events of calls never requested are not counted', () => {
    const events = stamp(
      { type: 'tool.errored', turnId: T, toolUseId: 'ghost', message: 'x' },
      result(T, 'ghost', 'x', 'error'),
    )
    const stats = projectStats(events)
    expect(stats.calls).toBe(0)
    expect({ ...stats.errorClasses }).toEqual({})
  })

  // A log cut from the middle (a file someone trimmed, `inspect` of a slice) holds events of a turn
  // whose turn.started is gone: the count is of turns started, not of turn ids seen.
  it('turns are counted by their turn.started, not by the events that name them', () => {
    const events = stamp(
      requested('Cut', 'a', 0, 'Echo'),
      result('Cut', 'a', 'one'),
      { type: 'turn.completed', turnId: 'Cut', results: 1 },
      { type: 'turn.started', turnId: T, mode: 'batch', maxConcurrency: 1 },
      { type: 'turn.completed', turnId: T, results: 0 },
    )
    const stats = projectStats(events)
    expect(stats.turns).toBe(1)
    expect(stats.calls).toBe(1)
  })

  it('tool names that are Object.prototype members are counted as plain keys', () => {
    const events = stamp(requested(T, 'a', 0, 'constructor'), requested(T, 'b', 1, '__proto__'))
    expect({ ...projectStats(events).byTool }).toEqual({ constructor: 1, ['__proto__']: 1 })
  })

  // Bug: projectStats keys calls by tool_use id alone (callStatesAt keys by turn and id), so an id
  // that comes back in a later turn (models that number their calls call_0, call_1 … per turn)
  // overwrites the first turn's call: two calls are counted as one and the first one's timing is lost.
  it('the same tool_use id in two turns counts as two calls', () => {
    const events = stamp(
      { type: 'turn.started', turnId: 'T1', mode: 'batch', maxConcurrency: 1 },
      requested('T1', 'call_0', 0, 'Echo'),
      result('T1', 'call_0', 'one'),
      { type: 'turn.started', turnId: 'T2', mode: 'batch', maxConcurrency: 1 },
      requested('T2', 'call_0', 0, 'Echo'),
      result('T2', 'call_0', 'two', 'error'),
    )
    const stats = projectStats(events)
    expect(stats.calls).toBe(2)
    expect({ ...stats.byOutcome }).toEqual({ success: 1, error: 1 })
  })
})

describe('callStatesAt', () => {
  const states = (at: number) =>
    Object.fromEntries(callStatesAt(log, at).map((s) => [s.toolUseId, `${s.state} @ ${s.lastEvent}`]))

  // The same cut log: a call whose tool.requested is not in it has no state to advance, and the
  // calls that are in it are still shown.
  it('events of a call never requested are passed over, not a crash', () => {
    const events = stamp(
      { type: 'tool.dispatched', turnId: T, toolUseId: 'ghost', batch: 0, running: 1 },
      result(T, 'ghost', 'x', 'error'),
      requested(T, 'a', 0, 'Echo'),
    )
    expect(callStatesAt(events, 2).map((s) => `${s.toolUseId} ${s.state} @ ${s.lastEvent}`)).toEqual([
      'a requested @ 2 tool.requested',
    ])
  })

  it('shows each call after event N inclusive, from the scheduler then the step table', () => {
    expect(states(0)).toEqual({})
    expect(states(1)).toEqual({ ok: 'requested @ 1 tool.requested' })
    expect(states(6)).toMatchObject({
      ok: 'dispatched (batch 0) @ 6 tool.dispatched',
      nope: 'requested @ 5 tool.requested',
    })
    expect(states(9)).toMatchObject({ ok: 'done (success) @ 9 tool.result' })
    expect(states(12)).toMatchObject({ slow: 'mapping the result @ 12 tool.cancelled' })
    expect(states(100)).toEqual({
      ok: 'done (success) @ 9 tool.result',
      boom: 'done (error) @ 11 tool.result',
      slow: 'done (cancelled) @ 13 tool.result',
      queued: 'done (cancelled) @ 15 tool.result',
      nope: 'done (error) @ 17 tool.result',
    })
  })

  it('walks the steps of a call: queued, validating, permission, waiting for the user, running', () => {
    const events = stamp(
      requested(T, 'a', 0),
      { type: 'tool.queued', turnId: T, toolUseId: 'a', safe: false, reason: 'unknown tool' },
      { type: 'tool.dispatched', turnId: T, toolUseId: 'a', batch: 2, running: 1 },
      { type: 'tool.parsed', turnId: T, toolUseId: 'a', tool: 'Echo' },
      { type: 'tool.validated', turnId: T, toolUseId: 'a' },
      { type: 'permission.requested', turnId: T, toolUseId: 'a', tool: 'Echo', reason: 'r', suggestions: [] },
      { type: 'tool.permitted', turnId: T, toolUseId: 'a', behavior: 'allow', source: 'user' },
      { type: 'tool.started', turnId: T, toolUseId: 'a', interrupt: 'block' },
      { type: 'tool.progress', turnId: T, toolUseId: 'a', data: 'x' },
    )
    const at = (n: number) => callStatesAt(events, n)[0]?.state
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(at)).toEqual([
      'queued (exclusive)',
      'dispatched (batch 2)',
      'validating',
      'checking permission',
      'waiting for the user',
      'running',
      'running',
      'running',
    ])
    expect(callStatesAt(events, 8)[0]).toEqual({
      toolUseId: 'a',
      turnId: T,
      tool: 'Echo',
      state: 'running',
      lastEvent: '8 tool.progress',
    })
  })

  it('keeps a tool_use id that comes back in a later turn apart', () => {
    const events = stamp(requested('T1', 'x', 0, 'A'), result('T1', 'x', '1'), requested('T2', 'x', 0, 'B'))
    expect(callStatesAt(events, 2).map((s) => `${s.turnId} ${s.tool} ${s.state}`)).toEqual([
      'T1 A done (success)',
      'T2 B requested',
    ])
  })

  it('a grant, a hook outcome, progress and a cascade keep the state they came in', () => {
    const events = stamp(
      requested(T, 'a', 0),
      { type: 'tool.parsed', turnId: T, toolUseId: 'a', tool: 'Echo' },
      { type: 'tool.validated', turnId: T, toolUseId: 'a' },
      { type: 'permission.requested', turnId: T, toolUseId: 'a', tool: 'Echo', reason: 'r', suggestions: [] },
      { type: 'permission.granted', turnId: T, toolUseId: 'a', tool: 'Echo', scope: 'tool' },
      { type: 'hook.finished', turnId: T, toolUseId: 'a', phase: 'pre', hook: 'h', outcome: 'continue' },
      result(T, 'a', 'failed', 'error'),
      { type: 'tool.cascaded', turnId: T, toolUseId: 'a', siblings: ['b'] },
      { type: 'tool.progress', turnId: T, toolUseId: 'a', data: 'late' },
    )
    expect([4, 5, 6, 7, 8].map((n) => callStatesAt(events, n)[0]?.state)).toEqual([
      'waiting for the user',
      'waiting for the user',
      'done (error)',
      'done (error)',
      'done (error)',
    ])
  })

  it('a safe queued call says so', () => {
    const events: KernelEvent[] = stamp(requested(T, 'a', 0), {
      type: 'tool.queued',
      turnId: T,
      toolUseId: 'a',
      safe: true,
    })
    expect(callStatesAt(events, 1)[0]?.state).toBe('queued (safe)')
  })
})
