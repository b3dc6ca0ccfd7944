/**
 * projectTelemetry and createTelemetryReducer alone, over hand-built logs with chosen times: the
 * exact span and metric records (toolkernel/otel and the Chrome trace writer only copy them, so a
 * wrong attribute, time or key here is a wrong trace everywhere). `toStrictEqual` throughout: an
 * attribute set to `undefined` is an attribute the exporter writes.
 */
import { describe, expect, it } from 'vitest'
import { toolResultBlock, type KernelEvent, type KernelEventInput } from '../../src/events/event.schema.js'
import {
  createTelemetryReducer,
  projectTelemetry,
  toolErrorType,
  type Attributes,
  type SpanRecord,
  type TelemetryOptions,
  type TelemetryRecords,
} from '../../src/projections/telemetry.projection.js'
import { requested, result, stamp } from './events.js'

const T = 'T'

/** One event of call `id` of turn T at `time` (fields as the log writes them). */
const ev = (id: string, time: number, type: string, fields: Record<string, unknown> = {}) =>
  [{ type, turnId: T, toolUseId: id, ...fields } as unknown as KernelEventInput, time] as const
const started = (time: number, mode: 'batch' | 'stream' = 'batch') =>
  [{ type: 'turn.started', turnId: T, mode, maxConcurrency: 10 } as KernelEventInput, time] as const
const completed = (time: number, results = 1) =>
  [{ type: 'turn.completed', turnId: T, results } as KernelEventInput, time] as const
const resultBlock = (id: string, time: number, outcome: 'success' | 'error' | 'cancelled', isError: boolean) =>
  ev(id, time, 'tool.result', { outcome, block: toolResultBlock(id, 'out', isError) })

const spanOf = (records: TelemetryRecords, kind: SpanRecord['kind'], nth = 0): SpanRecord => {
  const span = records.spans.filter((s) => s.kind === kind)[nth]
  if (span === undefined) throw new Error(`no ${kind} span #${nth}`)
  return span
}
const callOf = (events: KernelEvent[], options?: TelemetryOptions): SpanRecord =>
  spanOf(projectTelemetry(events, options), 'call')
const common = (name = 'Echo', type = 'function'): Attributes => ({
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': name,
  'gen_ai.tool.type': type,
})

/**
 * One call through every step, with a pre hook, an asked permission, progress and a failing post
 * hook: every record it gives, in full. The name is the parsed tool's (an alias was requested).
 */
const whole = stamp(
  started(100, 'stream'),
  [requested(T, 'c1', 0, 'Run', { cmd: 'ls' }), 101],
  ev('c1', 102, 'tool.queued', { safe: false, reason: 'writes' }),
  ev('c1', 104, 'tool.dispatched', { batch: 0, running: 1 }),
  ev('c1', 105, 'tool.parsed', { tool: 'Bash' }),
  ev('c1', 106, 'tool.validated'),
  ev('c1', 108, 'hook.finished', { phase: 'pre', hook: 'check.sh', outcome: 'continue', exitCode: 0, decision: 'ask' }),
  ev('c1', 109, 'tool.hooked', { phase: 'pre', outcome: 'continue', reason: 'free text never copied' }),
  ev('c1', 110, 'permission.requested', { tool: 'Bash', reason: 'asks', suggestions: [] }),
  ev('c1', 115, 'permission.granted', { tool: 'Bash', scope: 'tool' }),
  ev('c1', 116, 'tool.permitted', { behavior: 'allow', source: 'user' }),
  ev('c1', 117, 'tool.started', { interrupt: 'cancel' }),
  ev('c1', 118, 'tool.progress', { data: 1 }),
  ev('c1', 119, 'tool.progress', { data: 2 }),
  ev('c1', 125, 'tool.completed', { output: 'ok' }),
  ev('c1', 126, 'tool.mapped', { isError: false }),
  ev('c1', 128, 'hook.finished', { phase: 'post', hook: 'audit', outcome: 'error', exitCode: null }),
  ev('c1', 129, 'tool.hooked', { phase: 'post', outcome: 'continue' }),
  [result(T, 'c1', 'ok'), 130],
  completed(140),
)

const callBase = {
  key: 'call|T|c1',
  turnKey: 'turn|T',
  turnId: T,
  turnStartMs: 100,
  events: [],
  links: [],
}

describe('one whole call', () => {
  const records = projectTelemetry(whole)

  it('the call span: GenAI attributes, the decision and the progress count, and no content by default', () => {
    expect(spanOf(records, 'call')).toStrictEqual({
      ...callBase,
      kind: 'call',
      name: 'execute_tool Bash',
      startMs: 101,
      endMs: 130,
      attributes: {
        ...common('Bash'),
        'gen_ai.tool.call.id': 'c1',
        'toolkernel.turn.id': T,
        'toolkernel.call.index': 0,
        'toolkernel.call.outcome': 'success',
        'toolkernel.permission.behavior': 'allow',
        'toolkernel.permission.source': 'user',
        'toolkernel.call.progress_events': 2,
      },
      events: expect.any(Array),
      status: 'ok',
    })
  })

  // Span events carry only the closed-set fields of each step (never a reason or input); progress
  // is counted, not one event each.
  it('each step as a span event with its closed-set attributes', () => {
    expect(spanOf(records, 'call').events).toStrictEqual([
      { name: 'tool.requested', atMs: 101, attributes: { 'toolkernel.call.index': 0 } },
      { name: 'tool.queued', atMs: 102, attributes: { 'toolkernel.safe': false } },
      { name: 'tool.dispatched', atMs: 104, attributes: { 'toolkernel.batch': 0, 'toolkernel.running': 1 } },
      { name: 'tool.parsed', atMs: 105, attributes: {} },
      { name: 'tool.validated', atMs: 106, attributes: {} },
      {
        name: 'hook.finished',
        atMs: 108,
        attributes: {
          'toolkernel.hook.phase': 'pre',
          'toolkernel.outcome': 'continue',
          'toolkernel.hook.exit_code': 0,
        },
      },
      {
        name: 'tool.hooked',
        atMs: 109,
        attributes: { 'toolkernel.hook.phase': 'pre', 'toolkernel.outcome': 'continue' },
      },
      { name: 'permission.requested', atMs: 110, attributes: {} },
      { name: 'permission.granted', atMs: 115, attributes: { 'toolkernel.permission.scope': 'tool' } },
      {
        name: 'tool.permitted',
        atMs: 116,
        attributes: { 'toolkernel.permission.behavior': 'allow', 'toolkernel.permission.source': 'user' },
      },
      { name: 'tool.started', atMs: 117, attributes: {} },
      { name: 'tool.completed', atMs: 125, attributes: {} },
      { name: 'tool.mapped', atMs: 126, attributes: { 'toolkernel.is_error': false } },
      {
        name: 'hook.finished',
        atMs: 128,
        attributes: { 'toolkernel.hook.phase': 'post', 'toolkernel.outcome': 'error' },
      },
      {
        name: 'tool.hooked',
        atMs: 129,
        attributes: { 'toolkernel.hook.phase': 'post', 'toolkernel.outcome': 'continue' },
      },
      { name: 'tool.result', atMs: 130, attributes: { 'toolkernel.outcome': 'success' } },
    ])
  })

  // A hook starts at the step boundary before it; the failing post hook is an error span, the call is not.
  it('the hooks and the permission wait as child spans of the call', () => {
    const child = { ...callBase, key: undefined, parentKey: 'call|T|c1' }
    expect(records.spans.filter((s) => s.kind !== 'call' && s.kind !== 'turn')).toStrictEqual([
      {
        ...child,
        key: 'call|T|c1|hook|0',
        kind: 'hook',
        name: 'toolkernel.hook PreToolUse',
        startMs: 106,
        endMs: 108,
        attributes: {
          'toolkernel.hook.phase': 'pre',
          'toolkernel.hook.name': 'check.sh',
          'toolkernel.hook.outcome': 'continue',
          'toolkernel.hook.decision': 'ask',
          'toolkernel.hook.exit_code': 0,
        },
        status: 'ok',
      },
      {
        ...child,
        key: 'call|T|c1|hook|1',
        kind: 'hook',
        name: 'toolkernel.hook PostToolUse',
        startMs: 126,
        endMs: 128,
        attributes: {
          'toolkernel.hook.phase': 'post',
          'toolkernel.hook.name': 'audit',
          'toolkernel.hook.outcome': 'error',
          'error.type': 'hook_error',
        },
        status: 'error',
      },
      {
        ...child,
        key: 'call|T|c1|permission',
        kind: 'permission',
        name: 'toolkernel.permission_wait',
        startMs: 110,
        endMs: 116,
        attributes: {
          'toolkernel.permission.behavior': 'allow',
          'toolkernel.permission.source': 'user',
          'toolkernel.permission.scope': 'tool',
        },
        status: 'ok',
      },
    ])
  })

  it('the turn span last, when the turn completes', () => {
    expect(records.spans.map((s) => s.kind)).toStrictEqual(['call', 'hook', 'hook', 'permission', 'turn'])
    expect(spanOf(records, 'turn')).toStrictEqual({
      key: 'turn|T',
      turnKey: 'turn|T',
      kind: 'turn',
      name: 'toolkernel.turn',
      turnId: T,
      turnStartMs: 100,
      startMs: 100,
      endMs: 140,
      attributes: {
        'toolkernel.turn.id': T,
        'toolkernel.turn.mode': 'stream',
        'toolkernel.turn.calls': 1,
        'toolkernel.turn.failed_calls': 0,
      },
      events: [],
      status: 'ok',
      links: [],
    })
  })

  // The queue wait runs from tool.queued (not the request); the four waits in seconds.
  it('the four histograms, in seconds', () => {
    expect(records.metrics).toStrictEqual([
      { name: 'gen_ai.execute_tool.duration', value: 0.029, attributes: common('Bash') },
      { name: 'toolkernel.tool.queue.wait_time', value: 0.002, attributes: common('Bash') },
      {
        name: 'toolkernel.tool.permission.wait_time',
        value: 0.006,
        attributes: { ...common('Bash'), 'toolkernel.permission.behavior': 'allow' },
      },
      { name: 'toolkernel.tool.run.duration', value: 0.008, attributes: common('Bash') },
    ])
  })
})

describe('the turn', () => {
  // calls counts every answered call; failed_calls those whose outcome is not success.
  it('counts its calls and failed calls', () => {
    const events = stamp(
      started(1),
      requested(T, 'a', 0),
      requested(T, 'b', 1),
      requested(T, 'c', 2),
      result(T, 'a', 'fine'),
      result(T, 'b', 'bad', 'error'),
      result(T, 'c', 'stopped', 'cancelled'),
      completed(20, 3),
    )
    expect(spanOf(projectTelemetry(events), 'turn').attributes).toStrictEqual({
      'toolkernel.turn.id': T,
      'toolkernel.turn.mode': 'batch',
      'toolkernel.turn.calls': 3,
      'toolkernel.turn.failed_calls': 2,
    })
  })

  // A log cut to one turn's calls (or events out of their turn) must not throw: what it cannot
  // place gives nothing, and a call with no turn.started is timed from its own request.
  it('events it cannot place give nothing; a call without its turn.started still gives its span', () => {
    const reducer = createTelemetryReducer()
    const empty = { spans: [], metrics: [] }
    const feed = stamp(
      [{ type: 'tool.queued', turnId: 'other', toolUseId: 'x', safe: true }, 1],
      [requested(T, 'a', 0), 5],
      [{ type: 'tool.queued', turnId: T, toolUseId: 'nobody', safe: true }, 6],
      [result(T, 'nobody', 'x'), 7],
      [{ type: 'turn.completed', turnId: 'other', results: 0 }, 8],
      [result(T, 'a', 'fine'), 9],
      [result(T, 'a', 'again'), 10],
    )
    const out = feed.map((event) => reducer.apply(event))
    expect(out.slice(0, 5)).toStrictEqual([empty, empty, empty, empty, empty])
    expect(out[6]).toStrictEqual(empty) // answered already: forgotten
    const span = spanOf(out[5]!, 'call')
    expect([span.turnStartMs, span.startMs, span.endMs]).toStrictEqual([5, 5, 9])
    expect(out[5]!.metrics).toStrictEqual([
      { name: 'gen_ai.execute_tool.duration', value: 0.004, attributes: common() },
    ])
  })
})

describe('toolErrorType', () => {
  // The recorded class when it is one of the closed set; otherwise (older logs, or a class that
  // is not plain) only an errno code or error name read from the text, never free text.
  it.each([
    ['a recorded class', 'rate_limited', 'Fetch failed: the API said no', 'rate_limited'],
    ['no class: the errno code of the text', undefined, 'Read failed: ENOENT: no such file', 'ENOENT'],
    ['no class: the error name of the text', undefined, 'Run failed: TypeError: x is undefined', 'TypeError'],
    ['no class, free text', undefined, 'exit 1', 'Error'],
    ['a class that is not plain', 'has space', 'Read failed: EACCES: denied', 'EACCES'],
  ])('%s', (_, errorClass, message, expected) => {
    const event = {
      v: 2,
      seq: 0,
      at: 0,
      type: 'tool.errored',
      turnId: T,
      toolUseId: 'a',
      message,
      ...(errorClass === undefined ? {} : { errorClass }),
    } as const
    expect(toolErrorType(event)).toBe(expected)
  })
})

describe('error.type, the failed step and the status of the call span', () => {
  const ended = (...steps: Array<readonly [KernelEventInput, number]>) => {
    const span = callOf(stamp(started(1), [requested(T, 'a', 0), 2], ...steps))
    return [span.attributes['error.type'], span.attributes['toolkernel.call.failed_step'], span.status]
  }
  // Every failure has its own error.type: a rejection's code, the tool's class, interrupted
  // (cancelled while running) apart from cancelled, and an error block that no step failed.
  it.each([
    [
      'a rejection: its code and step',
      [
        ev('a', 3, 'tool.rejected', { step: 'parse', code: 'unknown_tool', message: 'no' }),
        resultBlock('a', 4, 'error', true),
      ],
      ['unknown_tool', 'parse', 'error'],
    ],
    [
      'a tool error: the recorded class, step call',
      [
        ev('a', 3, 'tool.started', { interrupt: 'cancel' }),
        ev('a', 4, 'tool.errored', { message: 'Read failed: ENOENT: x', errorClass: 'ENOENT' }),
        resultBlock('a', 5, 'error', true),
      ],
      ['ENOENT', 'call', 'error'],
    ],
    [
      'cancelled while running: interrupted',
      [
        ev('a', 3, 'tool.started', { interrupt: 'cancel' }),
        ev('a', 4, 'tool.cancelled', { step: 'call', reason: 'abort' }),
        resultBlock('a', 5, 'cancelled', true),
      ],
      ['interrupted', 'call', 'error'],
    ],
    [
      'cancelled before it ran: cancelled',
      [ev('a', 4, 'tool.cancelled', { step: 'parse', reason: 'abort' }), resultBlock('a', 5, 'cancelled', true)],
      ['cancelled', 'parse', 'error'],
    ],
    [
      'cancelled after it ran (in a post hook): cancelled',
      [
        ev('a', 3, 'tool.started', { interrupt: 'cancel' }),
        ev('a', 4, 'tool.completed', { output: 'x' }),
        ev('a', 5, 'tool.cancelled', { step: 'postHook', reason: 'abort' }),
        resultBlock('a', 6, 'cancelled', true),
      ],
      ['cancelled', 'postHook', 'error'],
    ],
    [
      'the mapper answered with an error block: tool_error, whatever the outcome says',
      [ev('a', 3, 'tool.mapped', { isError: true }), resultBlock('a', 4, 'error', true)],
      ['tool_error', undefined, 'error'],
    ],
    [
      'an error block with outcome success and no step failed: tool_error',
      [resultBlock('a', 4, 'success', true)],
      ['tool_error', undefined, 'error'],
    ],
    [
      'an error outcome and no step failed: the outcome',
      [resultBlock('a', 4, 'error', true)],
      ['error', undefined, 'error'],
    ],
    [
      'a cancelled outcome even with a block not marked as an error',
      [resultBlock('a', 4, 'cancelled', false)],
      ['cancelled', undefined, 'error'],
    ],
    ['a success: none', [resultBlock('a', 4, 'success', false)], [undefined, undefined, 'ok']],
  ] as const)('%s', (_, steps, expected) => {
    expect(ended(...steps)).toStrictEqual(expected)
  })

  // The failing step's span event names the step (and a rejection its code), never the message or reason.
  it('the rejection and the cancel as span events with their step', () => {
    const events = (type: string, fields: Record<string, unknown>) =>
      callOf(stamp([requested(T, 'a', 0), 1], ev('a', 3, type, fields), resultBlock('a', 4, 'error', true))).events[1]
    expect(events('tool.rejected', { step: 'validate', code: 'invalid_input', message: 'bad' })).toStrictEqual({
      name: 'tool.rejected',
      atMs: 3,
      attributes: { 'toolkernel.step': 'validate', 'toolkernel.failure.code': 'invalid_input' },
    })
    expect(events('tool.cancelled', { step: 'preHook', reason: 'abort' })).toStrictEqual({
      name: 'tool.cancelled',
      atMs: 3,
      attributes: { 'toolkernel.step': 'preHook' },
    })
  })

  it('an interrupted call runs until the cancel; one cancelled after it ran, until it completed', () => {
    const runTime = (cancelAt: number, completedAt?: number) =>
      projectTelemetry(
        stamp(
          [requested(T, 'a', 0), 0],
          ev('a', 10, 'tool.started', { interrupt: 'cancel' }),
          ...(completedAt === undefined ? [] : [ev('a', completedAt, 'tool.completed', { output: 'x' })]),
          ev('a', cancelAt, 'tool.cancelled', { step: 'call', reason: 'abort' }),
          resultBlock('a', 100, 'cancelled', true),
        ),
      ).metrics.find((m) => m.name === 'toolkernel.tool.run.duration')?.value
    expect(runTime(50)).toBe(0.04)
    expect(runTime(50, 30)).toBe(0.02)
  })
})

describe('hook spans', () => {
  // A hook starts when its step does: at the last step boundary (parse, validate, a hook phase,
  // the permission, the map), not at the queue, the dispatch or the run.
  it.each([
    ['tool.parsed', { tool: 'Echo' }, 5],
    ['tool.validated', {}, 5],
    ['tool.hooked', { phase: 'pre', outcome: 'continue' }, 5],
    ['tool.permitted', { behavior: 'allow', source: 'rule' }, 5],
    ['tool.mapped', { isError: false }, 5],
    ['tool.queued', { safe: true }, 1],
    ['tool.dispatched', { batch: 0, running: 1 }, 1],
    ['tool.started', { interrupt: 'cancel' }, 1],
  ])('after %s (%o) it starts at %i', (type, fields, start) => {
    const records = projectTelemetry(
      stamp(
        [requested(T, 'a', 0), 1],
        ev('a', 5, type, fields),
        ev('a', 9, 'hook.finished', { phase: 'post', hook: 'h', outcome: 'continue' }),
        [result(T, 'a', 'x'), 10],
      ),
    )
    expect([spanOf(records, 'hook').startMs, spanOf(records, 'hook').endMs]).toStrictEqual([start, 9])
  })

  // A block is hook_blocked and an error; the name is cut to 200 characters; a null exit code
  // (a hook killed by a signal) is no exit code.
  it.each([
    [
      'a blocking pre hook',
      { phase: 'pre', hook: 'deny.sh', outcome: 'block', exitCode: 2, decision: 'deny' },
      'toolkernel.hook PreToolUse',
      {
        'toolkernel.hook.phase': 'pre',
        'toolkernel.hook.name': 'deny.sh',
        'toolkernel.hook.outcome': 'block',
        'toolkernel.hook.decision': 'deny',
        'toolkernel.hook.exit_code': 2,
        'error.type': 'hook_blocked',
      },
      'error',
    ],
    [
      'a post hook with a long name, killed by a signal',
      { phase: 'post', hook: 'h'.repeat(250), outcome: 'continue', exitCode: null },
      'toolkernel.hook PostToolUse',
      {
        'toolkernel.hook.phase': 'post',
        'toolkernel.hook.name': 'h'.repeat(200),
        'toolkernel.hook.outcome': 'continue',
      },
      'ok',
    ],
  ])('%s', (_, fields, name, attributes, status) => {
    const records = projectTelemetry(
      stamp([requested(T, 'a', 0), 1], ev('a', 9, 'hook.finished', fields), [result(T, 'a', 'x'), 10]),
    )
    const hook = spanOf(records, 'hook')
    expect([hook.name, hook.attributes, hook.status]).toStrictEqual([name, attributes, status])
    const exitCode = typeof fields.exitCode === 'number' ? { 'toolkernel.hook.exit_code': fields.exitCode } : {}
    expect(spanOf(records, 'call').events[1]?.attributes).toStrictEqual({
      'toolkernel.hook.phase': fields.phase,
      'toolkernel.outcome': fields.outcome,
      ...exitCode,
    })
  })
})

describe('the permission wait', () => {
  const wait = (...steps: Array<readonly [KernelEventInput, number]>) => {
    const records = projectTelemetry(
      stamp(
        [requested(T, 'a', 0), 1],
        ev('a', 10, 'permission.requested', { tool: 'Echo', reason: 'r', suggestions: [] }),
        ...steps,
        resultBlock('a', 50, 'error', true),
      ),
    )
    const span = records.spans.find((s) => s.kind === 'permission')
    const metric = records.metrics.find((m) => m.name === 'toolkernel.tool.permission.wait_time')
    return {
      span: span && { startMs: span.startMs, endMs: span.endMs, attributes: span.attributes },
      metric: metric && { value: metric.value, attributes: metric.attributes },
    }
  }

  // A denial at the permission step closes the wait as a deny; a cancel closes it with no
  // behavior; the first close wins; a rejection elsewhere leaves it open to the call's end,
  // with no histogram point (it never ended).
  it.each([
    [
      'denied at the permission step',
      [ev('a', 20, 'tool.rejected', { step: 'permission', code: 'permission_denied', message: 'no' })],
      {
        span: { startMs: 10, endMs: 20, attributes: { 'toolkernel.permission.behavior': 'deny' } },
        metric: { value: 0.01, attributes: { ...common(), 'toolkernel.permission.behavior': 'deny' } },
      },
    ],
    [
      'cancelled while asking',
      [ev('a', 30, 'tool.cancelled', { step: 'permission', reason: 'abort' })],
      { span: { startMs: 10, endMs: 30, attributes: {} }, metric: { value: 0.02, attributes: common() } },
    ],
    [
      'granted for the call, then cancelled later: ends when permitted',
      [
        ev('a', 15, 'permission.granted', { tool: 'Echo', scope: 'call' }),
        ev('a', 20, 'tool.permitted', { behavior: 'allow', source: 'user' }),
        ev('a', 30, 'tool.cancelled', { step: 'call', reason: 'abort' }),
        ev('a', 40, 'tool.rejected', { step: 'permission', code: 'internal', message: 'late' }),
      ],
      {
        span: {
          startMs: 10,
          endMs: 20,
          attributes: {
            'toolkernel.permission.behavior': 'allow',
            'toolkernel.permission.source': 'user',
            'toolkernel.permission.scope': 'call',
          },
        },
        metric: { value: 0.01, attributes: { ...common(), 'toolkernel.permission.behavior': 'allow' } },
      },
    ],
    [
      'a rejection at another step: open until the call ends',
      [ev('a', 20, 'tool.rejected', { step: 'call', code: 'internal', message: 'x' })],
      { span: { startMs: 10, endMs: 50, attributes: {} }, metric: undefined },
    ],
  ] as const)('%s', (_, steps, expected) => {
    expect(wait(...steps)).toStrictEqual(expected)
  })

  it('a grant with no request before it opens no wait', () => {
    const records = projectTelemetry(
      stamp([requested(T, 'a', 0), 1], ev('a', 5, 'permission.granted', { tool: 'Echo', scope: 'rule' }), [
        result(T, 'a', 'x'),
        10,
      ]),
    )
    expect(records.spans.map((s) => s.kind)).toStrictEqual(['call'])
  })
})

describe('metrics', () => {
  // Each histogram only when its span of time is known; error.type on the duration and the run
  // time (the call failed), not on the waits (they did not); the tool type as on the span.
  it('error.type on duration and run time only; waits from the request when never queued', () => {
    const { metrics } = projectTelemetry(
      stamp(
        [requested(T, 'a', 0, 'mcp__srv__get'), 0],
        ev('a', 20, 'tool.dispatched', { batch: 0, running: 1 }),
        ev('a', 30, 'tool.started', { interrupt: 'cancel' }),
        ev('a', 70, 'tool.errored', { message: 'x', errorClass: 'EIO' }),
        resultBlock('a', 100, 'error', true),
      ),
    )
    const base = common('mcp__srv__get', 'extension')
    expect(metrics).toStrictEqual([
      { name: 'gen_ai.execute_tool.duration', value: 0.1, attributes: { ...base, 'error.type': 'EIO' } },
      { name: 'toolkernel.tool.queue.wait_time', value: 0.02, attributes: base },
      { name: 'toolkernel.tool.run.duration', value: 0.04, attributes: { ...base, 'error.type': 'EIO' } },
    ])
  })

  it('no run time without both its start and its end', () => {
    const names = (...steps: Array<readonly [KernelEventInput, number]>) =>
      projectTelemetry(stamp([requested(T, 'a', 0), 0], ...steps, [result(T, 'a', 'x'), 10])).metrics.map((m) => m.name)
    expect(names(ev('a', 2, 'tool.started', { interrupt: 'cancel' }))).toStrictEqual(['gen_ai.execute_tool.duration'])
    expect(names(ev('a', 2, 'tool.errored', { message: 'x' }))).toStrictEqual(['gen_ai.execute_tool.duration'])
  })

  it('the tool type from the option, on the span and the points; the name only at the start decides mcp__', () => {
    const options = { toolType: (name: string) => `t:${name}` }
    const records = projectTelemetry(stamp(requested(T, 'a', 0), result(T, 'a', 'x')), options)
    expect(spanOf(records, 'call').attributes['gen_ai.tool.type']).toBe('t:Echo')
    expect(records.metrics[0]?.attributes).toStrictEqual(common('Echo', 't:Echo'))
    const other = callOf(stamp(requested(T, 'a', 0, 'get_mcp__'), result(T, 'a', 'x')))
    expect(other.attributes['gen_ai.tool.type']).toBe('function')
  })
})

describe('names and content', () => {
  // A label must stay short whatever name the model wrote.
  it('the tool name is cut to 64 characters, in the span name and attributes', () => {
    const span = callOf(stamp(requested(T, 'a', 0, 'N'.repeat(70)), result(T, 'a', 'x')))
    expect([span.name, span.attributes['gen_ai.tool.name']]).toStrictEqual([
      `execute_tool ${'N'.repeat(64)}`,
      'N'.repeat(64),
    ])
  })

  const content = (input: unknown, block: unknown, options: TelemetryOptions = {}) => {
    const span = callOf(
      stamp(
        [{ type: 'tool.requested', turnId: T, toolUseId: 'a', index: 0, name: 'Echo', input } as KernelEventInput, 1],
        ev('a', 2, 'tool.result', { outcome: 'success', block }),
      ),
      { captureContent: true, ...options },
    )
    return [span.attributes['gen_ai.tool.call.arguments'], span.attributes['gen_ai.tool.call.result']]
  }

  // Arguments as JSON (what cannot be JSON, as text); the result's text parts joined, other parts
  // named; both cut to the limit with an ellipsis only when longer than it.
  it.each([
    ['an object as JSON', { text: 'hi' }, 'done', ['{"text":"hi"}', 'done']],
    ['nothing as null', undefined, '', ['null', '']],
    ['a BigInt as text', 12n, 'x', ['12', 'x']],
    [
      'parts of a result',
      {},
      [
        { type: 'text', text: 'a' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } },
        { type: 'text', text: 'b' },
      ],
      ['{}', 'a\n[image]\nb'],
    ],
  ])('%s', (_, input, resultContent, expected) => {
    expect(content(input, toolResultBlock('a', resultContent as never, false))).toStrictEqual(expected)
  })

  it('unparsable input is kept as the text the model wrote', () => {
    const span = callOf(
      stamp(
        [{ ...requested(T, 'a', 0, 'Echo', '{"text": "h'), inputError: 'bad JSON' } as KernelEventInput, 1],
        result(T, 'a', 'x'),
      ),
      { captureContent: true },
    )
    expect(span.attributes['gen_ai.tool.call.arguments']).toBe('{"text": "h')
  })

  it('cut at the limit: exactly the limit is whole, one more is cut; 1024 by default', () => {
    expect(content('', toolResultBlock('a', 'abcde', false), { maxContentChars: 5 })[1]).toBe('abcde')
    expect(content('', toolResultBlock('a', 'abcdef', false), { maxContentChars: 5 })[1]).toBe('abcd…')
    expect(content('', toolResultBlock('a', 'y'.repeat(1024), false))[1]).toBe('y'.repeat(1024))
    expect(content('', toolResultBlock('a', 'y'.repeat(1025), false))[1]).toBe(`${'y'.repeat(1023)}…`)
  })

  it('a description only for the tools the map names', () => {
    const descriptions = new Map([['Other', 'Does other things.']])
    const span = callOf(stamp(requested(T, 'a', 0), result(T, 'a', 'x')), { descriptions })
    expect(span.attributes).toStrictEqual({
      ...common(),
      'gen_ai.tool.call.id': 'a',
      'toolkernel.turn.id': T,
      'toolkernel.call.index': 0,
      'toolkernel.call.outcome': 'success',
    })
    const named = callOf(stamp(requested(T, 'a', 0, 'Other'), result(T, 'a', 'x')), { descriptions })
    expect(named.attributes['gen_ai.tool.description']).toBe('Does other things.')
  })
})

describe('a replay', () => {
  // A re-execution replay is a second trace of the same calls: its own keys (no id collides with
  // the original's), links to the original spans, marked, and no metrics (they would count twice).
  it('replay keys, links to the originals, the mark, and no metrics', () => {
    const records = projectTelemetry(whole, { replayed: true })
    expect(records.metrics).toStrictEqual([])
    expect(
      records.spans.map((s) => [s.key, s.parentKey, s.turnKey, s.links, s.attributes['toolkernel.replayed']]),
    ).toStrictEqual([
      ['replay|call|T|c1', undefined, 'replay|turn|T', ['call|T|c1'], true],
      ['replay|call|T|c1|hook|0', 'replay|call|T|c1', 'replay|turn|T', ['call|T|c1|hook|0'], undefined],
      ['replay|call|T|c1|hook|1', 'replay|call|T|c1', 'replay|turn|T', ['call|T|c1|hook|1'], undefined],
      ['replay|call|T|c1|permission', 'replay|call|T|c1', 'replay|turn|T', ['call|T|c1|permission'], undefined],
      ['replay|turn|T', undefined, 'replay|turn|T', ['turn|T'], true],
    ])
  })
})

describe('persisted output', () => {
  // Output that is not the result store's marker is no persisted result, whatever its shape.
  it.each([['text'], [null], [{ text: 'x' }], [{ persisted: false }], [undefined]])(
    'output %o: not persisted',
    (output) => {
      const span = callOf(
        stamp(
          requested(T, 'a', 0),
          ev('a', 2, 'tool.completed', output === undefined ? {} : { output }),
          result(T, 'a', 'x'),
        ),
      )
      expect('toolkernel.result.persisted' in span.attributes).toBe(false)
    },
  )

  // The projection read `output.persisted` (the version-1 marker), but version-2 logs (and the
  // 1 → 2 upgrade) record it as the event's own `persisted: true` with no output: a persisted
  // result never got toolkernel.result.persisted. Found by mutation testing; failed before the fix.
  it('a tool.completed with persisted: true marks the result persisted', () => {
    const span = callOf(
      stamp(requested(T, 'a', 0), ev('a', 2, 'tool.completed', { persisted: true }), result(T, 'a', 'x')),
    )
    expect(span.attributes['toolkernel.result.persisted']).toBe(true)
  })

  // The same misreading took a tool's own output `{ persisted: true }` for the marker, which version
  // 2 moved out of `output` precisely so that it never could be.
  it("a tool's own output { persisted: true } is not the marker", () => {
    const span = callOf(
      stamp(requested(T, 'a', 0), ev('a', 2, 'tool.completed', { output: { persisted: true } }), result(T, 'a', 'x')),
    )
    expect(span.attributes).not.toHaveProperty(['toolkernel.result.persisted'])
  })
})
