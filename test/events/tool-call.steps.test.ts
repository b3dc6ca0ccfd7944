/** The step table and `advance` alone: where a call stands after each kind of event. */
import { describe, expect, it } from 'vitest'
import {
  FailureCodeSchema,
  KernelEventSchema,
  STEPS,
  type KernelEvent,
  type Step,
} from '../../src/events/event.schema.js'
import {
  advance,
  failedBeforeCall,
  nextStep,
  REQUESTED,
  STEP_TABLE,
  type CallPosition,
} from '../../src/events/tool-call.steps.js'

const ev = (input: Record<string, unknown>): KernelEvent =>
  ({ v: 2, seq: 0, at: 0, turnId: 'T', toolUseId: 'a', ...input }) as unknown as KernelEvent
const at = (step: Step, more: Partial<CallPosition> = {}): CallPosition => ({ ...REQUESTED, ...more, step })
const withHooks = (pre: boolean, post: boolean, more: Partial<CallPosition> = {}) => ({ ...more, hooks: { pre, post } })

/** A walk of events from REQUESTED: the step after each. */
function walk(inputs: Array<Record<string, unknown>>, from: CallPosition = REQUESTED): Step[] {
  const steps: Step[] = []
  let position = from
  for (const input of inputs) {
    position = advance(position, ev(input))
    steps.push(position.step)
  }
  return steps
}

describe('STEP_TABLE', () => {
  it('has one row per step, in STEPS order', () => {
    expect(Object.keys(STEP_TABLE)).toEqual([...STEPS])
  })

  it('each row: the event that closes it, whether it waits, how a failure there is recorded, whether the tool ran', () => {
    const rows = Object.fromEntries(
      STEPS.map((s) => [
        s,
        [STEP_TABLE[s].closedBy, STEP_TABLE[s].waits, STEP_TABLE[s].failure, STEP_TABLE[s].afterCall],
      ]),
    )
    expect(rows).toEqual({
      parse: ['tool.parsed', false, 'tool.rejected', false],
      validate: ['tool.validated', true, 'tool.rejected', false],
      preHook: ['tool.hooked', true, 'tool.rejected', false],
      permission: ['tool.permitted', true, 'tool.rejected', false],
      call: ['tool.completed', true, 'tool.errored', true],
      budget: ['tool.budgeted', false, 'none', true],
      map: ['tool.mapped', false, 'tool.mapped', true],
      postHook: ['tool.hooked', false, 'none', true],
      emit: ['tool.result', false, 'none', true],
    })
  })

  it('every closing event is an event type of the union, and each step says what a call in it is doing', () => {
    const types = new Set<string>(KernelEventSchema.options.map((o) => o.shape.type.value))
    for (const step of STEPS) {
      expect(types.has(STEP_TABLE[step].closedBy), step).toBe(true)
      expect(STEP_TABLE[step].doing, step).not.toBe('')
    }
    expect(STEP_TABLE.call.doing).toBe('running')
    expect(STEP_TABLE.emit.doing).toBe('done')
  })
})

describe('nextStep', () => {
  it('the step after each, and emit after emit', () => {
    expect(STEPS.map(nextStep)).toEqual([...STEPS.slice(1), 'emit'])
  })
})

describe('advance', () => {
  it('REQUESTED: at parse, not started, not answered, no hooks', () => {
    expect(REQUESTED).toEqual({ step: 'parse', started: false, answered: false, hooks: { pre: false, post: false } })
    expect(Object.isFrozen(REQUESTED)).toBe(true)
  })

  it('the whole path of a call with both hooks', () => {
    expect(
      walk([
        { type: 'tool.parsed', tool: 'Echo', hooks: { pre: true, post: true } },
        { type: 'tool.validated' },
        { type: 'tool.hooked', phase: 'pre', outcome: 'continue' },
        { type: 'tool.permitted', behavior: 'allow', source: 'rule' },
        { type: 'tool.started', interrupt: 'block' },
        { type: 'tool.completed', output: 'x' },
        { type: 'tool.mapped', isError: false },
        { type: 'tool.hooked', phase: 'post', outcome: 'continue' },
        { type: 'tool.result', outcome: 'success' },
      ]),
    ).toEqual(['validate', 'preHook', 'permission', 'call', 'call', 'map', 'postHook', 'emit', 'emit'])
  })

  it('tool.parsed records which hook steps apply; without hooks validate goes straight to permission', () => {
    const parsed = advance(REQUESTED, ev({ type: 'tool.parsed', tool: 'Echo', hooks: { pre: true, post: false } }))
    expect(parsed).toEqual(at('validate', withHooks(true, false)))
    const bare = advance(REQUESTED, ev({ type: 'tool.parsed', tool: 'Echo' }))
    expect(bare).toEqual(at('validate'))
    expect(advance(bare, ev({ type: 'tool.validated' })).step).toBe('permission')
  })

  it('a permission other than allow goes to map; a started call is marked', () => {
    for (const behavior of ['deny', 'ask'])
      expect(advance(at('permission'), ev({ type: 'tool.permitted', behavior, source: 'rule' })).step).toBe('map')
    expect(advance(at('call'), ev({ type: 'tool.started', interrupt: 'cancel' }))).toEqual(
      at('call', { started: true }),
    )
  })

  it('completed output goes to budget when it was persisted, to map otherwise', () => {
    expect(advance(at('call'), ev({ type: 'tool.completed', persisted: true })).step).toBe('budget')
    for (const output of ['text', null, { persisted: 'yes' }, undefined])
      expect(advance(at('call'), ev({ type: 'tool.completed', output })).step, JSON.stringify(output)).toBe('map')
  })

  it('errors, budget, rejections and cancellations all go to map', () => {
    for (const type of ['tool.errored', 'tool.budgeted', 'tool.rejected', 'tool.cancelled'])
      expect(advance(at('call', { started: true }), ev({ type })), type).toEqual(at('map', { started: true }))
  })

  it('after map: post-hooks only when they apply and the tool started; otherwise emit', () => {
    const mapped = ev({ type: 'tool.mapped', isError: false })
    expect(advance(at('map', withHooks(false, true, { started: true })), mapped).step).toBe('postHook')
    expect(advance(at('map', withHooks(false, true)), mapped).step).toBe('emit')
    expect(advance(at('map', withHooks(true, false, { started: true })), mapped).step).toBe('emit')
  })

  it('a pre hook goes on to permission, a post hook to emit', () => {
    expect(advance(at('preHook'), ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue' })).step).toBe(
      'permission',
    )
    expect(advance(at('postHook'), ev({ type: 'tool.hooked', phase: 'post', outcome: 'continue' })).step).toBe('emit')
  })

  it('tool.result answers the call, keeping what was known', () => {
    expect(advance(at('map', { started: true }), ev({ type: 'tool.result', outcome: 'error' }))).toEqual(
      at('emit', { started: true, answered: true }),
    )
  })

  it('every other event leaves the position as it was (the same object)', () => {
    const moving = new Set([
      'tool.parsed',
      'tool.validated',
      'tool.hooked',
      'tool.permitted',
      'tool.started',
      'tool.completed',
      'tool.errored',
      'tool.budgeted',
      'tool.rejected',
      'tool.cancelled',
      'tool.mapped',
      'tool.result',
    ])
    const position = at('permission', withHooks(true, true))
    const still = KernelEventSchema.options.map((o) => o.shape.type.value).filter((type) => !moving.has(type))
    expect(still).toEqual(
      expect.arrayContaining(['tool.requested', 'tool.queued', 'tool.dispatched', 'tool.progress', 'hook.finished']),
    )
    for (const type of still) expect(advance(position, ev({ type })), type).toBe(position)
  })

  it('never changes the position it was given', () => {
    const position = at('validate', withHooks(true, true))
    const copy = structuredClone(position)
    advance(position, ev({ type: 'tool.validated' }))
    advance(position, ev({ type: 'tool.result', outcome: 'success' }))
    expect(position).toEqual(copy)
  })
})

describe('failure codes in the step table', () => {
  it('every failure code but cancelled and internal belongs to a step; those two to none', () => {
    const listed = new Set(STEPS.flatMap((step) => STEP_TABLE[step].codes))
    const anywhere = FailureCodeSchema.options.filter((code) => !listed.has(code))
    expect(anywhere.sort()).toEqual(['cancelled', 'internal'])
  })

  it('failedBeforeCall: codes of the steps before call only', () => {
    const before = FailureCodeSchema.options.filter((code) => failedBeforeCall(code))
    expect(before.sort()).toEqual(
      [
        'unknown_tool',
        'tool_disabled',
        'invalid_json',
        'not_an_object',
        'invalid_input',
        'validate_input',
        'hook_blocked',
        'permission_denied',
      ].sort(),
    )
  })

  it('a code that a step after call also gives (tool_error: call and map) may have run', () => {
    expect(STEP_TABLE.map.codes).toContain('tool_error')
    expect(failedBeforeCall('tool_error')).toBe(false)
    expect(failedBeforeCall('interrupted')).toBe(false)
    expect(failedBeforeCall('cancelled')).toBe(false)
  })
})
