/**
 * timeline-segments alone: the legend's kinds, the step of each call event, and how a call's time
 * splits into segments — where it starts, the queue, each step's kind, the wait for the user.
 */
import { describe, expect, it } from 'vitest'
import type { KernelEventInput, Step } from '../../src/events/event.schema.js'
import { STEP_TABLE } from '../../src/events/tool-call.steps.js'
import { callSegments, SEGMENT_KINDS, stepOfEvent } from '../../src/projections/timeline-segments.js'
import { requested, result, stamp } from './events.js'

const T = 'T'
/** A call event for call `c` of turn T; the fields are checked where the test reads them. */
const ev = (input: Record<string, unknown> & { type: string }) =>
  ({ turnId: T, toolUseId: 'c', ...input }) as KernelEventInput
const short = (events: ReturnType<typeof stamp>, origin: number) =>
  callSegments(events, origin).map((s) => `${s.kind} ${s.start}-${s.end} ${s.doing}`)
const doing = (step: Step) => STEP_TABLE[step].doing

describe('SEGMENT_KINDS', () => {
  // The legend, the colours and the summary's time by kind all list the kinds in this order.
  it('names the kinds in the order a call goes through them', () => {
    expect(SEGMENT_KINDS).toEqual(['queued', 'checks', 'hooks', 'permission', 'running', 'budget', 'finishing'])
  })
})

describe('stepOfEvent', () => {
  // Every call event the kernel logs, and the step it belongs to: a failure or a cancellation names
  // its own step, the hooks' events their phase, the scheduler's events and a cascade none.
  it.each<[string, Record<string, unknown> & { type: string }, Step | undefined]>([
    ['tool.queued', { type: 'tool.queued', safe: true }, undefined],
    ['tool.dispatched', { type: 'tool.dispatched', batch: 0, running: 1 }, undefined],
    ['tool.parsed', { type: 'tool.parsed', tool: 'Echo' }, 'parse'],
    ['tool.validated', { type: 'tool.validated' }, 'validate'],
    [
      'tool.rejected in validate',
      { type: 'tool.rejected', step: 'validate', code: 'invalid_input', message: 'x' },
      'validate',
    ],
    ['tool.rejected in parse', { type: 'tool.rejected', step: 'parse', code: 'unknown_tool', message: 'x' }, 'parse'],
    ['hook.finished pre', { type: 'hook.finished', phase: 'pre', hook: 'h', outcome: 'continue' }, 'preHook'],
    ['tool.hooked pre', { type: 'tool.hooked', phase: 'pre', outcome: 'continue' }, 'preHook'],
    [
      'permission.requested',
      { type: 'permission.requested', tool: 'W', reason: 'asks', suggestions: [] },
      'permission',
    ],
    ['permission.granted', { type: 'permission.granted', tool: 'W', scope: 'tool' }, 'permission'],
    ['tool.permitted', { type: 'tool.permitted', behavior: 'allow', source: 'user' }, 'permission'],
    ['tool.started', { type: 'tool.started', interrupt: 'block' }, 'call'],
    ['tool.progress', { type: 'tool.progress', data: 'half' }, 'call'],
    ['tool.completed', { type: 'tool.completed', output: 'x' }, 'call'],
    ['tool.errored', { type: 'tool.errored', message: 'boom' }, 'call'],
    ['tool.cancelled in call', { type: 'tool.cancelled', step: 'call', reason: 'abort' }, 'call'],
    ['tool.budgeted', { type: 'tool.budgeted', path: '/r/c.txt', chars: 9 }, 'budget'],
    ['tool.mapped', { type: 'tool.mapped', isError: false }, 'map'],
    ['hook.finished post', { type: 'hook.finished', phase: 'post', hook: 'p', outcome: 'continue' }, 'postHook'],
    ['tool.hooked post', { type: 'tool.hooked', phase: 'post', outcome: 'continue' }, 'postHook'],
    ['tool.cascaded', { type: 'tool.cascaded', siblings: ['d'] }, undefined],
  ])('%s', (_, input, step) => {
    expect(stepOfEvent(stamp(ev(input))[0]!)).toBe(step)
  })

  it('tool.requested belongs to no step; tool.result closes emit', () => {
    const [asked, answered] = stamp(requested(T, 'c', 0), result(T, 'c', 'ok'))
    expect([stepOfEvent(asked!), stepOfEvent(answered!)]).toEqual([undefined, 'emit'])
  })
})

describe('callSegments', () => {
  // Each step's time is drawn in its kind's colour: every step reached, each a different length.
  it('gives each step its kind, and the queue its own', () => {
    const events = stamp(
      [requested(T, 'c', 0, 'Writer'), 1000],
      [ev({ type: 'tool.queued', safe: false }), 1001],
      [ev({ type: 'tool.dispatched', batch: 0, running: 1 }), 1003],
      [ev({ type: 'tool.parsed', tool: 'Writer', hooks: { pre: true, post: true } }), 1006],
      [ev({ type: 'tool.validated' }), 1010],
      [ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue' }), 1015],
      [ev({ type: 'tool.permitted', behavior: 'allow', source: 'rule' }), 1021],
      [ev({ type: 'tool.started', interrupt: 'block' }), 1028],
      [ev({ type: 'tool.completed', persisted: true }), 1036],
      [ev({ type: 'tool.budgeted', path: '/r/c.txt', chars: 9 }), 1045],
      [ev({ type: 'tool.mapped', isError: false }), 1055],
      [ev({ type: 'tool.hooked', phase: 'post', outcome: 'continue' }), 1066],
      [result(T, 'c', 'ok'), 1078],
    )
    expect(short(events, 1000)).toEqual([
      'queued 0-3 waiting in the queue',
      `checks 3-6 ${doing('parse')}`,
      `checks 6-10 ${doing('validate')}`,
      `hooks 10-15 ${doing('preHook')}`,
      `permission 15-21 ${doing('permission')}`,
      `running 21-36 ${doing('call')}`,
      `budget 36-45 ${doing('budget')}`,
      `finishing 45-55 ${doing('map')}`,
      `hooks 55-66 ${doing('postHook')}`,
      `finishing 66-78 ${doing('emit')}`,
    ])
  })

  // The bar starts at the request, not at the session's start: a call requested late waited only since then.
  it('starts at the request, measured from the origin', () => {
    const events = stamp(
      [requested(T, 'c', 0), 30],
      [ev({ type: 'tool.queued', safe: true }), 32],
      [ev({ type: 'tool.dispatched', batch: 1, running: 1 }), 40],
      [ev({ type: 'tool.parsed', tool: 'Echo' }), 41],
    )
    expect(short(events, 10)).toEqual(['queued 20-30 waiting in the queue', `checks 30-31 ${doing('parse')}`])
  })

  it('a call with no events has no segments', () => {
    expect(callSegments([], 7)).toEqual([])
  })

  // A call aborted while it waits in the queue was queued until the abort, then finishes.
  it('a call cancelled in the queue is queued until the cancellation', () => {
    const events = stamp(
      [requested(T, 'c', 0), 0],
      [ev({ type: 'tool.queued', safe: false }), 2],
      [ev({ type: 'tool.cancelled', step: 'parse', reason: 'abort' }), 9],
      [ev({ type: 'tool.mapped', isError: true }), 10],
      [result(T, 'c', 'cancelled', 'cancelled'), 12],
    )
    expect(short(events, 0)).toEqual([
      'queued 0-9 waiting in the queue',
      `finishing 9-10 ${doing('map')}`,
      `finishing 10-12 ${doing('emit')}`,
    ])
  })

  // The wait for the user lasts until the user answers; a call cancelled while the question is open
  // goes on to finish, and finishing is not the user's wait.
  it('after a question the user never answered, the finishing steps are not waiting for the user', () => {
    const events = stamp(
      [requested(T, 'c', 0, 'Writer'), 0],
      [ev({ type: 'tool.dispatched', batch: 0, running: 1 }), 1],
      [ev({ type: 'tool.parsed', tool: 'Writer' }), 2],
      [ev({ type: 'tool.validated' }), 3],
      [ev({ type: 'permission.requested', tool: 'Writer', reason: 'asks', suggestions: [] }), 5],
      [ev({ type: 'tool.cancelled', step: 'permission', reason: 'abort' }), 50],
      [ev({ type: 'tool.mapped', isError: true }), 52],
      [result(T, 'c', 'cancelled', 'cancelled'), 55],
    )
    expect(short(events, 0)).toEqual([
      'queued 0-1 waiting in the queue',
      `checks 1-2 ${doing('parse')}`,
      `checks 2-3 ${doing('validate')}`,
      `permission 3-5 ${doing('permission')}`,
      'permission 5-50 waiting for the user',
      `finishing 50-52 ${doing('map')}`,
      `finishing 52-55 ${doing('emit')}`,
    ])
  })

  // A grant recorded between the question and the answer is part of the same wait.
  it('a grant logged during the wait stays in the wait for the user', () => {
    const events = stamp(
      [requested(T, 'c', 0, 'Writer'), 0],
      [ev({ type: 'tool.dispatched', batch: 0, running: 1 }), 1],
      [ev({ type: 'permission.requested', tool: 'Writer', reason: 'asks', suggestions: [] }), 4],
      [ev({ type: 'permission.granted', tool: 'Writer', scope: 'tool' }), 20],
      [ev({ type: 'tool.permitted', behavior: 'allow', source: 'user' }), 21],
      [ev({ type: 'tool.started', interrupt: 'block' }), 22],
      [ev({ type: 'tool.progress', data: 1 }), 25],
      [ev({ type: 'tool.errored', message: 'boom' }), 30],
    )
    expect(short(events, 0)).toEqual([
      'queued 0-1 waiting in the queue',
      `permission 1-4 ${doing('permission')}`,
      'permission 4-21 waiting for the user',
      `running 21-30 ${doing('call')}`,
    ])
  })
})
