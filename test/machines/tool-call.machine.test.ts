/**
 * The machine alone, with `run` and `interrupt` provided by the test: no kernel, no tools, no
 * steps — what replay and tests do. Only parse's entry runs the steps (the kernel's drive loop);
 * each `decided` takes the machine to the step where its state rests — a step that waits, later
 * than this one, which the step table's `next` reaches — or, from any step, to the final state
 * its result's outcome names. Anything else is a bug that errors the actor. An abort runs
 * `interrupt` only where a call can wait.
 */
import { describe, expect, it } from 'vitest'
import { createActor, enqueueActions } from 'xstate'
import { STEPS, type Step } from '../../src/events/event.schema.js'
import { foldCall, outcomeOf, REQUESTED, STEP_TABLE, type CallState } from '../../src/events/tool-call.steps.js'
import { toolCallMachine } from '../../src/machines/tool-call.machine.js'
import type { Carry, ToolCallEvent } from '../../src/machines/tool-call.types.js'

/** The events of one call, as the fold takes them. */
type CallEvent = Parameters<typeof foldCall>[0] extends Iterable<infer E> ? E : never
const ev = (input: Record<string, unknown>) => ({ turnId: 't', toolUseId: 'u', ...input }) as CallEvent

const requested: CallState = { ...REQUESTED, name: 'Echo', input: { text: 'x' } }
const decided = (state: CallState, carry: Carry = {}): ToolCallEvent => ({ type: 'decided', state, carry })
/** A state at `step`, not answered (the guards read only the step and whether it is answered). */
const at = (step: Step, more: Partial<CallState> = {}): CallState => ({ ...requested, ...more, step })
/** The state after `inputs`, from `from`. */
const after = (from: CallState, ...inputs: Array<Record<string, unknown>>) => foldCall(inputs.map(ev), from)

const FINAL = { success: 'succeeded', error: 'failed', cancelled: 'cancelled' } as const
/** An answered state for each outcome, as emit leaves it. */
const ANSWERED = {
  success: at('emit', { answered: true, started: true }),
  error: at('emit', { answered: true, failure: { step: 'validate', code: 'invalid_input', message: 'bad' } }),
  cancelled: at('emit', { answered: true, failure: { step: 'call', code: 'interrupted', message: 'esc' } }),
} as const

/**
 * Where a `decided` may take a call from each step: the later steps that wait, as far as the
 * table's `next` reaches (written out here; a test below ties it to the table). With today's
 * table every later waiting step is reached, so a step past what `next` reaches shows only when
 * the table changes — then this list and the machine part ways and those tests fail.
 */
const RESTS_NEXT: { readonly [S in Step]: readonly Step[] } = {
  parse: ['validate', 'preHook', 'permission', 'call', 'budget', 'postHook'],
  validate: ['preHook', 'permission', 'call', 'budget', 'postHook'],
  preHook: ['permission', 'call', 'budget', 'postHook'],
  // and permission itself: a call parks there for a person's answer (the table's `parks`)
  permission: ['permission', 'call', 'budget', 'postHook'],
  call: ['budget', 'postHook'],
  budget: ['postHook'],
  map: ['postHook'],
  postHook: [],
  emit: [],
}
const WAITING: readonly Step[] = ['validate', 'preHook', 'permission', 'call', 'budget', 'postHook']

/** An action over the machine's own context and events (as the kernel's are). */
const action = (
  body: Parameters<
    typeof enqueueActions<CallState, ToolCallEvent, { step: Step }, ToolCallEvent, never, never, never, never, never>
  >[0],
) => enqueueActions<CallState, ToolCallEvent, { step: Step }, ToolCallEvent, never, never, never, never, never>(body)

interface Options {
  /** What `run` decides at once (the drive loop's one move); nothing when absent, as when the first step waits. */
  onRun?: (state: CallState) => CallState
  /** What `interrupt` decides; nothing when absent, as for a 'block' tool that runs on. */
  onAbort?: (state: CallState) => CallState
  /**
   * Where the machine starts instead of parse: a snapshot restored there, without running
   * anything. Map and emit can only be reached so: no transition enters them.
   */
  in?: CallState
}

/** A machine whose `run` notes each step it runs for and `interrupt` each abort (and may answer them). */
function start(options: Options = {}) {
  const runs: Step[] = []
  const aborts: string[] = []
  const machine = toolCallMachine.provide({
    actions: {
      run: action(({ context, enqueue }, params) => {
        runs.push(params.step)
        if (options.onRun !== undefined) enqueue.raise(decided(options.onRun(context)))
      }) as never,
      interrupt: action(({ context, event, enqueue }) => {
        if (event.type !== 'abort') return
        aborts.push(event.reason)
        if (options.onAbort !== undefined) enqueue.raise(decided(options.onAbort(context)))
      }) as never,
    },
  })
  const actor =
    options.in === undefined
      ? createActor(machine, { input: { state: requested } })
      : createActor(machine, {
          input: { state: requested },
          snapshot: machine.resolveState({ value: options.in.step, context: options.in }),
        })
  const errors: unknown[] = []
  actor.subscribe({ error: (error) => errors.push(error) })
  actor.start()
  const send = (event: ToolCallEvent) => actor.send(event)
  return { actor, runs, aborts, errors, send, snapshot: () => actor.getSnapshot() }
}

/** A machine resting at `step` with `state`: moved there from parse, or (map, emit) restored there. */
function restingAt(state: CallState, options: Omit<Options, 'in' | 'onRun'> = {}) {
  if (state.step === 'parse') return start(options)
  if (!STEP_TABLE[state.step].waits) return start({ ...options, in: state })
  const m = start(options)
  m.send(decided(state))
  expect(m.snapshot().value).toBe(state.step)
  return m
}

const illegal = (from: Step, to: string) =>
  `Error: tool call: its events took it from ${from} to ${to}, which no step leads to`

describe('the tool-call machine with run and interrupt provided', () => {
  it('starts at parse with its input state as its context, and runs the steps from there once', () => {
    const m = start()
    expect(m.snapshot().value).toBe('parse')
    expect(m.snapshot().context).toStrictEqual(requested)
    expect(m.runs).toEqual(['parse'])
  })

  it('rests only where a call waits: a call that waits at every step it can, each decided taking it to the next', () => {
    const m = start()
    const rests = [
      // validate's validator answers later...
      [{ type: 'tool.parsed', tool: 'Echo', hooks: { pre: true, post: true } }],
      [{ type: 'tool.validated' }],
      [{ type: 'tool.hooked', phase: 'pre', outcome: 'continue' }],
      // ...the app's prompt allows; the start is recorded at once and the tool runs...
      [
        { type: 'tool.permitted', behavior: 'allow', source: 'user' },
        { type: 'tool.started', interrupt: 'cancel' },
      ],
      [{ type: 'tool.completed', persisted: true }],
      // ...the save answers, map passes at once, and the post-hooks answer later.
      [
        { type: 'tool.budgeted', path: '/r/u.txt', chars: 9 },
        { type: 'tool.mapped', isError: false },
      ],
    ]
    let state = m.snapshot().context
    const values: unknown[] = []
    for (const events of rests) {
      state = after(state, ...events)
      m.send(decided(state, { output: 'x' }))
      values.push(m.snapshot().value)
      expect(m.snapshot().context).toStrictEqual(state)
    }
    expect(values).toEqual(['validate', 'preHook', 'permission', 'call', 'budget', 'postHook'])
    const answered = after(
      state,
      { type: 'tool.hooked', phase: 'post', outcome: 'continue' },
      {
        type: 'tool.result',
        outcome: 'success',
        block: {},
      },
    )
    m.send(decided(answered))
    expect(m.snapshot().value).toBe('succeeded')
    expect(m.snapshot().context).toStrictEqual(answered)
    // Nothing but parse's entry ran: the drive loop runs the steps, not the machine.
    expect(m.runs).toEqual(['parse'])
    expect(m.errors).toEqual([])
  })

  it("the steps that answer at once pass in one move: run's decision from parse to where the tool runs", () => {
    const state = after(
      requested,
      { type: 'tool.parsed', tool: 'Echo' },
      { type: 'tool.validated' },
      { type: 'tool.permitted', behavior: 'allow', source: 'rule' },
      { type: 'tool.started', interrupt: 'block' },
    )
    const m = start({ onRun: () => state })
    expect(m.snapshot().value).toBe('call')
    expect(m.snapshot().context).toStrictEqual(state)
    expect(m.runs).toEqual(['parse'])
  })

  it('a call that answers in the one move of run ends there: a rejected or voided call', () => {
    const rejected = after(
      requested,
      { type: 'tool.rejected', step: 'parse', code: 'unknown_tool', message: 'no Echo' },
      { type: 'tool.mapped', isError: true },
      { type: 'tool.result', outcome: 'error', block: {} },
    )
    const m = start({ onRun: () => rejected })
    expect(m.snapshot().value).toBe('failed')
    expect(m.snapshot().status).toBe('done')
    expect(m.snapshot().context).toStrictEqual(rejected)
    expect(m.errors).toEqual([])
  })

  it('the table written out here is the one the machine reads: the waiting steps its next reaches (itself only where a call parks)', () => {
    expect(STEPS.filter((step) => STEP_TABLE[step].waits)).toEqual(WAITING)
    const reach = (from: Step, seen = new Set<Step>()): Set<Step> => {
      for (const to of STEP_TABLE[from].next) if (!seen.has(to)) reach(to, seen.add(to))
      return seen
    }
    for (const from of STEPS) {
      const reached = reach(from)
      expect(
        STEPS.filter((to) => (to !== from || STEP_TABLE[to].parks) && reached.has(to) && STEP_TABLE[to].waits),
        from,
      ).toEqual(RESTS_NEXT[from])
    }
  })

  describe.each(STEPS)('from %s', (from) => {
    it.each(STEPS)(`a decided to %s goes there if it is a later waiting step its next reaches, else errors`, (to) => {
      const m = restingAt(at(from))
      const state = at(to, { name: 'moved' })
      m.send(decided(state))
      if (RESTS_NEXT[from].includes(to)) {
        expect(m.errors).toEqual([])
        expect(m.snapshot().value).toBe(to)
        expect(m.snapshot().status).toBe('active')
        expect(m.snapshot().context).toStrictEqual(state)
      } else {
        expect(m.snapshot().status).toBe('error')
        expect(String(m.errors[0])).toBe(illegal(from, to))
      }
    })

    it.each(['success', 'error', 'cancelled'] as const)(
      'a result with outcome %s ends in the final state it names, the state its context, running nothing',
      (outcome) => {
        const m = restingAt(at(from))
        const runs = m.runs.length
        m.send(decided(ANSWERED[outcome]))
        expect(outcomeOf(ANSWERED[outcome])).toBe(outcome)
        expect(m.errors).toEqual([])
        expect(m.snapshot().value).toBe(FINAL[outcome])
        expect(m.snapshot().status).toBe('done')
        expect(m.snapshot().context).toStrictEqual(ANSWERED[outcome])
        expect(m.runs).toHaveLength(runs)
        expect(m.aborts).toEqual([])
      },
    )

    if (RESTS_NEXT[from].length > 0)
      it('a result ends the call even when its state names a step it could rest in: answered comes first', () => {
        const m = restingAt(at(from))
        const state = { ...ANSWERED.error, step: RESTS_NEXT[from][0] as Step }
        m.send(decided(state))
        expect(m.snapshot().value).toBe('failed')
        expect(m.snapshot().context).toStrictEqual(state)
      })

    const waits = STEP_TABLE[from].waits
    it(`an abort ${waits ? 'runs interrupt' : 'runs nothing: a call never waits here'}, and the machine stays where it is`, () => {
      const state = at(from)
      const m = restingAt(state)
      const runs = m.runs.length
      m.send({ type: 'abort', reason: 'esc' })
      expect(m.aborts).toEqual(waits ? ['esc'] : [])
      expect(m.errors).toEqual([])
      expect(m.snapshot().value).toBe(from)
      expect(m.snapshot().status).toBe('active')
      expect(m.snapshot().context).toStrictEqual(state)
      expect(m.runs).toHaveLength(runs)
    })
  })

  it('what interrupt decides moves the machine like any decision: to where the call rests next, or its end', () => {
    const atCall = after(
      requested,
      { type: 'tool.parsed', tool: 'Echo', hooks: { pre: false, post: true } },
      { type: 'tool.validated' },
      { type: 'tool.permitted', behavior: 'allow', source: 'rule' },
      { type: 'tool.started', interrupt: 'cancel' },
    )
    // Interrupted while running: mapped at once, then the post-hooks wait; interrupted again there, it ends.
    const m = restingAt(atCall, {
      onAbort: (state) =>
        state.step === 'call'
          ? after(
              state,
              { type: 'tool.cancelled', step: 'call', reason: 'esc' },
              { type: 'tool.mapped', isError: true },
            )
          : after(
              state,
              { type: 'tool.hooked', phase: 'post', outcome: 'continue' },
              { type: 'tool.result', outcome: 'cancelled', block: {} },
            ),
    })
    m.send({ type: 'abort', reason: 'esc', force: true })
    expect(m.snapshot().value).toBe('postHook')
    expect(m.snapshot().context.failure).toEqual({ step: 'call', code: 'interrupted', message: 'esc' })
    m.send({ type: 'abort', reason: 'esc again' })
    expect(m.snapshot().value).toBe('cancelled')
    expect(m.snapshot().status).toBe('done')
    expect(m.aborts).toEqual(['esc', 'esc again'])
    expect(m.runs).toEqual(['parse'])
    expect(m.errors).toEqual([])
  })

  it('an abort to a finished call runs nothing', () => {
    const m = start({ onRun: () => ANSWERED.cancelled })
    expect(m.snapshot().status).toBe('done')
    m.send({ type: 'abort', reason: 'late' })
    expect(m.aborts).toEqual([])
    expect(m.errors).toEqual([])
  })
})

describe('an illegal move is a bug: the actor errors, saying where from and where to', () => {
  /** A machine resting at permission, as a call does while the app's prompt is open. */
  const atPermission = () => {
    const state = after(requested, { type: 'tool.parsed', tool: 'Echo' }, { type: 'tool.validated' })
    return { m: restingAt(state), state }
  }

  it('back to an earlier step', () => {
    const { m, state } = atPermission()
    m.send(decided({ ...state, step: 'validate' }))
    expect(m.snapshot().status).toBe('error')
    expect(String(m.errors[0])).toBe(illegal('permission', 'validate'))
    expect(m.runs).toEqual(['parse'])
  })

  it('to a step that never waits (map, emit): a call passes those in the move that left the last wait', () => {
    for (const to of ['map', 'emit'] as const) {
      const { m, state } = atPermission()
      m.send(decided({ ...state, step: to }))
      expect(m.snapshot().status).toBe('error')
      expect(String(m.errors[0])).toBe(illegal('permission', to))
    }
  })

  it('to the step it rests in: the call step records its start and runs its tool in one move', () => {
    const atCall = after(
      requested,
      { type: 'tool.parsed', tool: 'Echo' },
      { type: 'tool.validated' },
      { type: 'tool.permitted', behavior: 'allow', source: 'rule' },
    )
    const m = restingAt(atCall)
    m.send(decided(after(atCall, { type: 'tool.started', interrupt: 'cancel' })))
    expect(m.snapshot().status).toBe('error')
    expect(String(m.errors[0])).toBe(illegal('call', 'call'))
  })

  it('a run that decides an illegal move at once errors the actor as it starts', () => {
    const m = start({ onRun: (context) => ({ ...context, step: 'map' }) })
    expect(m.snapshot().status).toBe('error')
    expect(String(m.errors[0])).toBe(illegal('parse', 'map'))
  })

  it('a run that decides the step it starts in errors it too', () => {
    const m = start({ onRun: (context) => context })
    expect(String(m.errors[0])).toBe(illegal('parse', 'parse'))
  })
})

describe('the effects must be provided', () => {
  it('refuses to start with run left unprovided', () => {
    const machine = toolCallMachine.provide({ actions: { interrupt: () => undefined } })
    const actor = createActor(machine, { input: { state: requested } })
    const errors: unknown[] = []
    actor.subscribe({ error: (error) => errors.push(error) })
    actor.start()
    expect(String(errors[0])).toBe('Error: toolCallMachine: "run" must be provided by the kernel (machine.provide)')
  })

  it('refuses an abort where the call waits with interrupt left unprovided', () => {
    const machine = toolCallMachine.provide({
      actions: {
        run: action(({ context, enqueue }) => enqueue.raise(decided({ ...context, step: 'validate' }))) as never,
      },
    })
    const actor = createActor(machine, { input: { state: requested } })
    const errors: unknown[] = []
    actor.subscribe({ error: (error) => errors.push(error) })
    actor.start()
    expect(actor.getSnapshot().value).toBe('validate')
    actor.send({ type: 'abort', reason: 'esc' })
    expect(String(errors[0])).toBe(
      'Error: toolCallMachine: "interrupt" must be provided by the kernel (machine.provide)',
    )
  })
})
