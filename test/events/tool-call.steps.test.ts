/** The step table and the fold of a call's own events (`advance`, `foldCall`, `outcomeOf`, `postHooksFollow`). */
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
  foldCall,
  isParked,
  nextStep,
  outcomeOf,
  postHooksFollow,
  REQUESTED,
  STEP_TABLE,
  type CallState,
  type Failure,
} from '../../src/events/tool-call.steps.js'

type CallEvent = Parameters<typeof advance>[1]
const ev = (input: Record<string, unknown>): CallEvent =>
  ({ v: 2, seq: 0, at: 0, turnId: 'T', toolUseId: 'a', ...input }) as unknown as KernelEvent as CallEvent
const at = (step: Step, more: Partial<CallState> = {}): CallState => ({ ...REQUESTED, ...more, step })
const withHooks = (pre: boolean, post: boolean, more: Partial<CallState> = {}) => ({ ...more, hooks: { pre, post } })

/** A walk of events from REQUESTED: the step after each. */
function walk(inputs: Array<Record<string, unknown>>, from: CallState = REQUESTED): Step[] {
  const steps: Step[] = []
  let state = from
  for (const input of inputs) {
    state = advance(state, ev(input))
    steps.push(state.step)
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
      budget: ['tool.budgeted', true, 'none', true],
      map: ['tool.mapped', false, 'tool.mapped', true],
      postHook: ['tool.hooked', true, 'none', true],
      emit: ['tool.result', false, 'none', true],
    })
  })

  it('waits: the steps a call can rest in, waiting for an answer (a validator, hooks, a prompt, the tool, a save); parse, map and emit answer at once', () => {
    expect(STEPS.filter((s) => STEP_TABLE[s].waits)).toEqual([
      'validate',
      'preHook',
      'permission',
      'call',
      'budget',
      'postHook',
    ])
    expect(STEPS.filter((s) => !STEP_TABLE[s].waits)).toEqual(['parse', 'map', 'emit'])
  })

  it("next: where each step's events can lead (the machine lets a call rest in the waiting steps these reach)", () => {
    expect(Object.fromEntries(STEPS.map((s) => [s, STEP_TABLE[s].next]))).toEqual({
      parse: ['validate', 'map'],
      validate: ['preHook', 'permission', 'map'],
      preHook: ['permission', 'map'],
      permission: ['permission', 'call', 'map'],
      call: ['call', 'budget', 'map'],
      budget: ['map'],
      map: ['postHook', 'emit'],
      postHook: ['emit'],
      emit: [],
    })
  })

  it('parks: only at permission may a call rest again after deciding part of its work (waiting for a person)', () => {
    expect(STEPS.filter((s) => STEP_TABLE[s].parks)).toEqual(['permission'])
  })

  it('permission.pending parks the call at permission; its answer is held until the step decides; tool.permitted clears both', () => {
    const pending = advance(at('permission'), ev({ type: 'permission.pending', digest: 'd', reason: 'r' }))
    expect(pending).toEqual(at('permission', { pending: { digest: 'd', reason: 'r' } }))
    expect(isParked(pending)).toBe(true)
    const answered = advance(pending, ev({ type: 'permission.answered', digest: 'd', behavior: 'deny', message: 'no' }))
    expect(answered.approval).toEqual({ digest: 'd', behavior: 'deny', message: 'no' })
    expect(isParked(answered)).toBe(false)
    expect(advance(answered, ev({ type: 'tool.permitted', behavior: 'deny', source: 'user' }))).toEqual(
      at('map', { pending: null, approval: null }),
    )
    // An answer to a call that never parked is not an approval of anything.
    expect(advance(at('permission'), ev({ type: 'permission.answered', digest: 'd', behavior: 'allow' }))).toEqual(
      at('permission'),
    )
    const cancelled = advance(pending, ev({ type: 'tool.cancelled', step: 'permission', reason: 'esc' }))
    expect(isParked(cancelled)).toBe(false)
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
  it('REQUESTED: at parse, nameless, not started, not answered, no hooks, no failure, say, context or wait; frozen', () => {
    expect(REQUESTED).toEqual({
      step: 'parse',
      name: '',
      input: undefined,
      started: false,
      answered: false,
      hooks: { pre: false, post: false },
      interrupt: 'block',
      failure: null,
      hookSay: null,
      contexts: [],
      pending: null,
      approval: null,
    })
    expect(Object.isFrozen(REQUESTED)).toBe(true)
    expect(Object.isFrozen(REQUESTED.hooks)).toBe(true)
    expect(Object.isFrozen(REQUESTED.contexts)).toBe(true)
  })

  it('tool.requested gives the name and input as the model wrote them, at parse', () => {
    const requested = advance(REQUESTED, ev({ type: 'tool.requested', index: 0, name: 'Say', input: { text: 'x' } }))
    expect(requested).toEqual({ ...REQUESTED, name: 'Say', input: { text: 'x' } })
  })

  it('the whole path of a call with both hooks', () => {
    expect(
      walk([
        { type: 'tool.requested', index: 0, name: 'Echo', input: {} },
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
    ).toEqual(['parse', 'validate', 'preHook', 'permission', 'call', 'call', 'map', 'postHook', 'emit', 'emit'])
  })

  it('tool.parsed records the resolved name and which hook steps apply; without hooks validate goes straight to permission', () => {
    const requested = at('parse', { name: 'Say', input: {} })
    const parsed = advance(requested, ev({ type: 'tool.parsed', tool: 'Echo', hooks: { pre: true, post: false } }))
    expect(parsed).toEqual(at('validate', withHooks(true, false, { name: 'Echo', input: {} })))
    const bare = advance(requested, ev({ type: 'tool.parsed', tool: 'Echo' }))
    expect(bare).toEqual(at('validate', { name: 'Echo', input: {} }))
    expect(advance(bare, ev({ type: 'tool.validated' })).step).toBe('permission')
  })

  it('a permission other than allow goes to map; input the permission step rewrote is the input from then on', () => {
    for (const behavior of ['deny', 'ask'])
      expect(advance(at('permission'), ev({ type: 'tool.permitted', behavior, source: 'rule' })).step).toBe('map')
    const edited = advance(
      at('permission', { input: { text: 'x' } }),
      ev({ type: 'tool.permitted', behavior: 'allow', source: 'user', updatedInput: { text: 'edited' } }),
    )
    expect(edited).toEqual(at('call', { input: { text: 'edited' } }))
  })

  it('a started call is marked, with what an interruption does to it', () => {
    expect(advance(at('call'), ev({ type: 'tool.started', interrupt: 'cancel' }))).toEqual(
      at('call', { started: true, interrupt: 'cancel' }),
    )
    expect(advance(at('call'), ev({ type: 'tool.started', interrupt: 'block' })).interrupt).toBe('block')
  })

  it('completed output goes to budget when it was persisted, to map otherwise; the budget step to map', () => {
    expect(advance(at('call'), ev({ type: 'tool.completed', persisted: true })).step).toBe('budget')
    for (const output of ['text', null, { persisted: 'yes' }, undefined])
      expect(advance(at('call'), ev({ type: 'tool.completed', output })).step, JSON.stringify(output)).toBe('map')
    for (const where of [{ path: '/r/a.txt' }, { error: 'disk full' }])
      expect(advance(at('budget', { started: true }), ev({ type: 'tool.budgeted', chars: 9, ...where }))).toEqual(
        at('map', { started: true }),
      )
  })

  it('a tool error: to map, failed at call with its message and (when logged) its class', () => {
    const running = at('call', { started: true })
    expect(advance(running, ev({ type: 'tool.errored', message: 'Echo failed: boom', errorClass: 'Error' }))).toEqual(
      at('map', {
        started: true,
        failure: { step: 'call', code: 'tool_error', message: 'Echo failed: boom', errorClass: 'Error' },
      }),
    )
    const classless = advance(running, ev({ type: 'tool.errored', message: 'Echo failed: boom' }))
    expect(classless.failure).toStrictEqual({ step: 'call', code: 'tool_error', message: 'Echo failed: boom' })
  })

  it('a timeout: to map, failed at call with timed_out and why (its deadline, grace and attempts)', () => {
    const running = at('call', { started: true })
    expect(advance(running, ev({ type: 'tool.timed_out', timeoutMs: 500 }))).toEqual(
      at('map', {
        started: true,
        failure: { step: 'call', code: 'timed_out', message: 'it ran out of time after 500 ms (its deadline)' },
      }),
    )
    const spent = advance(running, ev({ type: 'tool.timed_out', timeoutMs: 500, graceMs: 100, attempts: 1 }))
    expect(spent.failure?.message).toBe(
      'it ran out of time after 500 ms (its deadline and the 100 ms of grace after it) over 1 attempt',
    )
    // Retries leave the state as it was: an attempt's failure and the next start are not the call's end.
    expect(advance(running, ev({ type: 'tool.retrying', attempt: 1, delayMs: 5, error: 'e' }))).toBe(running)
    expect(advance(running, ev({ type: 'tool.restarted', attempt: 2 }))).toBe(running)
  })

  it('a rejection: to map, failed with the step, code and message it names', () => {
    const rejected = ev({ type: 'tool.rejected', step: 'validate', code: 'invalid_input', message: 'bad input' })
    expect(advance(at('validate'), rejected)).toEqual(
      at('map', { failure: { step: 'validate', code: 'invalid_input', message: 'bad input' } }),
    )
  })

  it('a cancellation: interrupted only for a call that started and was not stopped before it ran', () => {
    const cancel = (step: Step, more: Record<string, unknown> = {}) =>
      ev({ type: 'tool.cancelled', step, reason: 'esc', ...more })
    const code = (state: CallState, event: CallEvent) => advance(state, event).failure?.code
    expect(code(at('call', { started: true }), cancel('call'))).toBe('interrupted')
    // Stopped at its write-ahead fence: it started (tool.started) but its tool never ran.
    expect(code(at('call', { started: true }), cancel('call', { beforeRun: true }))).toBe('cancelled')
    expect(code(at('call'), cancel('call'))).toBe('cancelled')
    for (const step of ['parse', 'validate', 'preHook', 'permission'] as const)
      expect(code(at(step), cancel(step)), step).toBe('cancelled')
    expect(advance(at('validate'), cancel('validate'))).toEqual(
      at('map', { failure: { step: 'validate', code: 'cancelled', message: 'esc' } }),
    )
  })

  it('tool.mapped with a failure: the call failed at map (a tool_error), keeping what it knew', () => {
    const ran = at('map', withHooks(false, true, { started: true }))
    const mapped = advance(ran, ev({ type: 'tool.mapped', isError: true, failure: 'no text' }))
    expect(mapped).toEqual({
      ...ran,
      step: 'postHook',
      failure: { step: 'map', code: 'tool_error', message: 'no text' },
    })
    // Without a failure, an error block of the tool's own is not the call's failure.
    expect(advance(ran, ev({ type: 'tool.mapped', isError: true })).failure).toBeNull()
    // A failure already there stays when tool.mapped names none.
    const failure: Failure = { step: 'call', code: 'tool_error', message: 'boom' }
    expect(advance(at('map', { started: true, failure }), ev({ type: 'tool.mapped', isError: true })).failure).toBe(
      failure,
    )
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

  it("a pre hook that lets the call go on: its rewrite is the input, its decision the hooks' say, its context kept", () => {
    const before = at('preHook', { input: { text: 'x' }, contexts: ['earlier'] })
    const hooked = advance(
      before,
      ev({
        type: 'tool.hooked',
        phase: 'pre',
        outcome: 'continue',
        decision: 'ask',
        reason: 'check it',
        updatedInput: { text: 'rewritten' },
        additionalContext: 'ctx',
      }),
    )
    expect(hooked).toEqual(
      at('permission', {
        input: { text: 'rewritten' },
        hookSay: { decision: 'ask', reason: 'check it' },
        contexts: ['earlier', 'ctx'],
      }),
    )
    expect(before.contexts).toEqual(['earlier'])
    const bare = advance(
      at('preHook'),
      ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue', decision: 'allow' }),
    )
    expect(bare.hookSay).toStrictEqual({ decision: 'allow' })
    expect(bare.input).toBeUndefined()
    expect(bare.contexts).toEqual([])
  })

  it('tool.hooked pre after a rejection (a block, or a rewrite the schema refused) leaves the state as it was', () => {
    const blocked = advance(
      at('preHook', { input: { text: 'x' } }),
      ev({ type: 'tool.rejected', step: 'preHook', code: 'hook_blocked', message: 'blocked' }),
    )
    const hooked = ev({
      type: 'tool.hooked',
      phase: 'pre',
      outcome: 'block',
      decision: 'deny',
      reason: 'no',
      updatedInput: { text: 'sneaky' },
      additionalContext: 'ctx',
    })
    expect(advance(blocked, hooked)).toBe(blocked)
    expect(blocked).toMatchObject({ step: 'map', input: { text: 'x' }, hookSay: null, contexts: [] })
  })

  it('tool.permitted after a failure leaves the state as it was', () => {
    const failed = at('map', { failure: { step: 'permission', code: 'cancelled', message: 'esc' } })
    expect(advance(failed, ev({ type: 'tool.permitted', behavior: 'allow', source: 'rule' }))).toBe(failed)
  })

  it('tool.result answers the call, keeping what was known', () => {
    expect(advance(at('map', { started: true }), ev({ type: 'tool.result', outcome: 'error' }))).toEqual(
      at('emit', { started: true, answered: true }),
    )
  })

  it('every other event leaves the state as it was (the same object)', () => {
    const moving = new Set([
      'tool.requested',
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
      'permission.pending',
      'permission.answered',
      'tool.timed_out',
    ])
    const state = at('permission', withHooks(true, true))
    const still = KernelEventSchema.options.map((o) => o.shape.type.value).filter((type) => !moving.has(type))
    expect(still).toEqual(
      expect.arrayContaining(['tool.queued', 'tool.dispatched', 'tool.progress', 'tool.cascaded', 'hook.finished']),
    )
    for (const type of still) expect(advance(state, ev({ type })), type).toBe(state)
  })

  it('never changes the state it was given', () => {
    const state = at('preHook', withHooks(true, true, { contexts: ['a'] }))
    const copy = structuredClone(state)
    advance(state, ev({ type: 'tool.validated' }))
    advance(state, ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue', additionalContext: 'b' }))
    advance(state, ev({ type: 'tool.result', outcome: 'success' }))
    expect(state).toEqual(copy)
  })
})

describe('foldCall', () => {
  it('folds from REQUESTED, or from the state given', () => {
    const events = [
      ev({ type: 'tool.requested', index: 0, name: 'Say', input: { text: 'x' } }),
      ev({ type: 'tool.parsed', tool: 'Echo' }),
    ]
    const parsed = foldCall(events)
    expect(parsed).toEqual(at('validate', { name: 'Echo', input: { text: 'x' } }))
    expect(foldCall([ev({ type: 'tool.validated' })], parsed)).toEqual({ ...parsed, step: 'permission' })
    expect(foldCall([])).toBe(REQUESTED)
  })
})

describe('postHooksFollow', () => {
  const ran = (failure: Failure | null) => at('map', withHooks(false, true, { started: true, failure }))
  const failure = (step: Failure['step'], code: Failure['code']): Failure => ({ step, code, message: 'm' })

  it('a call that ran, succeeded or failed while running or mapping: yes', () => {
    expect(postHooksFollow(ran(null))).toBe(true)
    expect(postHooksFollow(ran(failure('call', 'tool_error')))).toBe(true)
    expect(postHooksFollow(ran(failure('call', 'interrupted')))).toBe(true)
    expect(postHooksFollow(ran(failure('map', 'tool_error')))).toBe(true)
  })

  it('no post hooks, never started, or stopped at call before it ran: no', () => {
    expect(postHooksFollow({ ...ran(null), hooks: { pre: true, post: false } })).toBe(false)
    expect(postHooksFollow({ ...ran(null), started: false })).toBe(false)
    expect(postHooksFollow(ran(failure('call', 'cancelled')))).toBe(false)
  })
})

describe('outcomeOf', () => {
  it('success without a failure; cancelled for a cancellation or an interruption; error for any other code', () => {
    expect(outcomeOf(REQUESTED)).toBe('success')
    for (const code of FailureCodeSchema.options) {
      const expected = code === 'cancelled' || code === 'interrupted' ? 'cancelled' : 'error'
      expect(outcomeOf(at('emit', { failure: { step: 'call', code, message: 'm' } })), code).toBe(expected)
    }
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
