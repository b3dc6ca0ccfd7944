/** projectTimeline alone: one row per event, time relative to its own turn, a short detail. */
import { describe, expect, it } from 'vitest'
import { projectTimeline } from '../../src/projections/timeline.projection.js'
import { requested, result, stamp } from './events.js'

describe('projectTimeline', () => {
  it('one row per event, in log order, with t measured from the first event of its own turn', () => {
    const rows = projectTimeline(
      stamp(
        [{ type: 'turn.started', turnId: 'A', mode: 'batch', maxConcurrency: 4 }, 1000],
        [requested('A', 'a1', 0, 'Echo', { text: 'hi' }), 1005],
        [{ type: 'turn.started', turnId: 'B', mode: 'stream', maxConcurrency: 1 }, 1010],
        [result('A', 'a1', 'hi'), 1012],
        [{ type: 'turn.ended', turnId: 'B', stopReason: null }, 1030],
        [{ type: 'turn.completed', turnId: 'A', results: 1 }, 1040],
      ),
    )
    expect(rows.map((r) => [r.seq, r.t, r.turnId, r.toolUseId, r.type])).toEqual([
      [0, 0, 'A', undefined, 'turn.started'],
      [1, 5, 'A', 'a1', 'tool.requested'],
      [2, 0, 'B', undefined, 'turn.started'],
      [3, 12, 'A', 'a1', 'tool.result'],
      [4, 20, 'B', undefined, 'turn.ended'],
      [5, 40, 'A', undefined, 'turn.completed'],
    ])
    expect(rows.map((r) => r.detail)).toEqual([
      'batch turn, at most 4 at once',
      '#0 Echo {"text":"hi"}',
      'stream turn, at most 1 at once',
      'success: hi',
      'message ended (stop reason none)',
      '1 result(s)',
    ])
  })

  it('describes each step of a call', () => {
    const T = 'T'
    const id = 'c'
    const details = projectTimeline(
      stamp(
        { type: 'tool.queued', turnId: T, toolUseId: id, safe: false, reason: 'unknown tool' },
        { type: 'tool.queued', turnId: T, toolUseId: id, safe: true },
        { type: 'tool.dispatched', turnId: T, toolUseId: id, batch: 2, running: 3 },
        { type: 'tool.parsed', turnId: T, toolUseId: id, tool: 'Bash' },
        { type: 'tool.validated', turnId: T, toolUseId: id },
        { type: 'tool.hooked', turnId: T, toolUseId: id, phase: 'pre', outcome: 'block', reason: 'no' },
        {
          type: 'hook.finished',
          turnId: T,
          toolUseId: id,
          phase: 'pre',
          hook: 'h',
          outcome: 'block',
          decision: 'deny',
          reason: 'policy',
        },
        { type: 'tool.permitted', turnId: T, toolUseId: id, behavior: 'deny', source: 'rule', reason: 'Bash(rm:*)' },
        { type: 'permission.requested', turnId: T, toolUseId: id, tool: 'Bash', reason: 'asks', suggestions: [] },
        { type: 'permission.granted', turnId: T, toolUseId: id, tool: 'Bash', scope: 'rule', rule: 'Bash(ls:*)' },
        { type: 'permission.granted', turnId: T, toolUseId: id, tool: 'Bash', scope: 'tool' },
        { type: 'tool.started', turnId: T, toolUseId: id, interrupt: 'cancel' },
        { type: 'tool.progress', turnId: T, toolUseId: id, data: 'line\n\tnext' },
        { type: 'tool.completed', turnId: T, toolUseId: id, output: undefined },
        { type: 'tool.errored', turnId: T, toolUseId: id, message: 'exit 2' },
        { type: 'tool.budgeted', turnId: T, toolUseId: id, path: '/r/c.txt', chars: 300000 },
        { type: 'tool.rejected', turnId: T, toolUseId: id, step: 'validate', code: 'invalid_input', message: 'bad' },
        { type: 'tool.cancelled', turnId: T, toolUseId: id, step: 'call', reason: 'user' },
        { type: 'tool.mapped', turnId: T, toolUseId: id, isError: true },
        { type: 'tool.mapped', turnId: T, toolUseId: id, isError: false },
        { type: 'tool.cascaded', turnId: T, toolUseId: id, siblings: ['d', 'e'] },
        { type: 'turn.aborted', turnId: T, reason: 'stop' },
        { type: 'turn.discarded', turnId: T, reason: 'fell back' },
        { type: 'turn.recovered', turnId: T, reason: 'crash', open: ['x', 'y'] },
        { type: 'turn.ended', turnId: T, stopReason: 'max_tokens' },
      ),
    ).map((r) => r.detail)
    expect(details).toEqual([
      'queued, exclusive (unknown tool)',
      'queued, concurrency-safe',
      'started in batch 2 (3 running)',
      'tool Bash',
      'input valid',
      'pre-hook: block (no)',
      'pre-hook h: block (deny) — policy',
      'permission deny by rule: Bash(rm:*)',
      'asked the user: asks',
      'granted for the session: Bash(ls:*)',
      'granted for the session: Bash (tool)',
      'call running (on interrupt: cancel)',
      'progress "line\\n\\tnext"',
      'completed undefined',
      'errored: exit 2',
      'output persisted (300000 chars) to /r/c.txt',
      'rejected at validate (invalid_input): bad',
      'cancelled at call: user',
      'mapped to an error result',
      'mapped to a result',
      'failed in a parallel batch; stopped d, e',
      'aborted: stop',
      'discarded: fell back',
      'recovered: crash; 2 open call(s) closed',
      'message ended (stop reason max_tokens)',
    ])
  })

  it('long or multi-line details are flattened and cut at 80 characters', () => {
    const [row] = projectTimeline(
      stamp({ type: 'tool.errored', turnId: 'T', toolUseId: 'c', message: `first\n\n  second ${'x'.repeat(200)}` }),
    )
    expect(row?.detail).toBe(`errored: first second ${'x'.repeat(80 - 'first second '.length - 1)}…`)
    const [exact] = projectTimeline(
      stamp({ type: 'tool.errored', turnId: 'T', toolUseId: 'c', message: 'y'.repeat(80) }),
    )
    expect(exact?.detail).toBe(`errored: ${'y'.repeat(80)}`)
  })

  it('a result with content parts is shown as their JSON', () => {
    const [row] = projectTimeline(
      stamp({
        type: 'tool.result',
        turnId: 'T',
        toolUseId: 'c',
        outcome: 'error',
        block: { type: 'tool_result', tool_use_id: 'c', content: [{ type: 'text', text: 't' }], is_error: true },
      }),
    )
    expect(row?.detail).toBe('error: [{"type":"text","text":"t"}]')
  })

  it('describes the tool pool events, and any event type newer than its list by its fields', () => {
    const details = projectTimeline(
      stamp(
        {
          type: 'pool.assembled',
          turnId: 'T',
          format: 'anthropic',
          visible: ['Read', 'Bash'],
          deferred: ['mcp__x__y'],
          loaded: [],
          hash: 'h',
          bytes: 10,
          threshold: { tokens: 1, maxTokens: 2, count: 1, maxCount: 3, deferred: true },
        },
        { type: 'tool.loaded', turnId: 'T', name: 'mcp__x__y', how: 'search', loadedBy: 'toolu_1' },
        { type: 'pool.changed', turnId: 'T', source: 'mcp', added: ['a'], removed: [] },
        { type: 'tool.future', turnId: 'T', toolUseId: 'c', what: 'x' } as never,
      ),
    ).map((r) => r.detail)
    expect(details).toEqual([
      'tool pool (anthropic): 2 visible, 1 deferred, 0 loaded',
      'loaded mcp__x__y (search by toolu_1)',
      'mcp changed: added a, removed none',
      '{"toolUseId":"c","what":"x"}',
    ])
  })
})
