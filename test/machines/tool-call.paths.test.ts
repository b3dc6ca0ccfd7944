/**
 * Every walk of the tool-call machine, enumerated from the log's side: from `tool.requested`,
 * each step may decide any of the groups of events its step function (or an interruption) can
 * decide there — at once, or later where the step waits for an answer — and folding them gives
 * the next state. The machine sees only the moves the kernel's drive loop makes: the steps that
 * answer at once run in one move, so a walk is compressed to one `decided` for each place the
 * call rests (a waiting step whose answer comes later, or that an interruption finds it in) and
 * one for its result. Each compressed walk is played on the machine with `run` and `interrupt`
 * provided by the test — the first move raised by `run` (parse's entry), a later answer sent by
 * the test, an interruption raised by `interrupt` on `abort` — and must rest where each move says
 * and end in exactly one final state, the one its outcome names, with no move the machine calls
 * illegal. Together the walks take every transition the chart has but those no call can take,
 * which are named with the reason.
 */
import { describe, expect, it } from 'vitest'
import { createActor, enqueueActions } from 'xstate'
import { STEPS, type Step } from '../../src/events/event.schema.js'
import { foldCall, outcomeOf, REQUESTED, STEP_TABLE, type CallState } from '../../src/events/tool-call.steps.js'
import { toolCallMachine } from '../../src/machines/tool-call.machine.js'
import type { ToolCallEvent } from '../../src/machines/tool-call.types.js'

type CallEvent = Parameters<typeof foldCall>[0] extends Iterable<infer E> ? E : never
const ev = (input: Record<string, unknown>) => ({ turnId: 't', toolUseId: 'u', ...input }) as CallEvent

/**
 * When a step's decision comes: at once (the drive loop goes on), later (the call rests there), on
 * an abort, or with a person's answer to a call parked at permission.
 */
type Kind = 'at once' | 'later' | 'abort' | 'answer'
/** One step's decision, as the log sees it. */
interface Decision {
  readonly kind: Kind
  /** The state it was decided in. */
  readonly from: CallState
  readonly events: readonly CallEvent[]
  /** The call's state with the events folded in. */
  readonly state: CallState
}
/** One move of the machine: what triggers it and the state its `decided` carries. */
interface Move {
  readonly trigger: 'run' | 'later' | 'abort' | 'answer'
  readonly state: CallState
}
type Choice = [Kind, ...Array<Record<string, unknown>>]

const rejected = (step: Step, code: string) => ({ type: 'tool.rejected', step, code, message: `${step}: ${code}` })
const cancelled = (step: Step, more: Record<string, unknown> = {}) => ({
  type: 'tool.cancelled',
  step,
  reason: 'user pressed Esc',
  ...more,
})
/** A decision a waiting step makes at once or later (its `attempt` answers either way). */
const either = (...events: Array<Record<string, unknown>>): Choice[] => [
  ['at once', ...events],
  ['later', ...events],
]

/** What the step the state names can decide: each choice a kind and its events, as the step functions decide them. */
function choices(state: CallState): Choice[] {
  switch (state.step) {
    case 'parse':
      return [
        ['at once', { type: 'tool.parsed', tool: 'X' }],
        ...[
          { pre: true, post: false },
          { pre: false, post: true },
          { pre: true, post: true },
        ].map((hooks): Choice => ['at once', { type: 'tool.parsed', tool: 'X', hooks }]),
        ['at once', rejected('parse', 'unknown_tool')],
        // Voided by the scheduler before it started.
        ['at once', cancelled('parse')],
      ]
    case 'validate':
      return [
        // The schema, then the tool's validateInput, which may answer later.
        ...either({ type: 'tool.validated' }),
        ['at once', rejected('validate', 'invalid_input')],
        ['later', rejected('validate', 'validate_input')],
        ['abort', cancelled('validate')],
      ]
    case 'preHook':
      return [
        ...either({ type: 'tool.hooked', phase: 'pre', outcome: 'continue' }),
        [
          'later',
          {
            type: 'tool.hooked',
            phase: 'pre',
            outcome: 'continue',
            decision: 'ask',
            updatedInput: { n: 2 },
            additionalContext: 'ctx',
          },
        ],
        ...either(rejected('preHook', 'hook_blocked'), { type: 'tool.hooked', phase: 'pre', outcome: 'block' }),
        ['abort', cancelled('preHook')],
      ]
    case 'permission':
      // Parked for a person: their answer (allow, or deny and the rejection), or an abort.
      if (state.pending !== null)
        return [
          [
            'answer',
            { type: 'permission.answered', digest: 'd', behavior: 'allow' },
            { type: 'tool.permitted', behavior: 'allow', source: 'user' },
          ],
          [
            'answer',
            { type: 'permission.answered', digest: 'd', behavior: 'deny', message: 'no' },
            { type: 'tool.permitted', behavior: 'deny', source: 'user' },
            rejected('permission', 'permission_denied'),
          ],
          ['abort', cancelled('permission')],
        ]
      return [
        // Nobody can answer now (no prompt, or it deferred): the call parks.
        ...either({
          type: 'permission.pending',
          tool: 'X',
          input: {},
          digest: 'd',
          reason: 'r',
          source: 'rule',
          suggestions: [],
        }),
        // A rule answers at once, the app's prompt later.
        ...either({ type: 'tool.permitted', behavior: 'allow', source: 'rule' }),
        ...either(
          { type: 'tool.permitted', behavior: 'deny', source: 'user' },
          rejected('permission', 'permission_denied'),
        ),
        // Input the app rewrote, which the schema refused.
        [
          'later',
          { type: 'tool.permitted', behavior: 'allow', source: 'user', updatedInput: { n: 'x' } },
          rejected('permission', 'invalid_input'),
        ],
        ['abort', cancelled('permission')],
      ]
    case 'call':
      // The start is recorded at once; the tool itself always answers later (a promise).
      if (!state.started)
        return [
          ['at once', { type: 'tool.started', interrupt: 'cancel' }],
          ['at once', { type: 'tool.started', interrupt: 'block' }],
        ]
      return [
        ['later', { type: 'tool.completed', output: 'out' }],
        ['later', { type: 'tool.completed', persisted: true }],
        ['later', { type: 'tool.errored', message: 'X failed: boom', errorClass: 'Error' }],
        // Its write-ahead fence failed, or an abort came while it waited there: it never ran.
        ['later', cancelled('call', { beforeRun: true })],
        // Interrupted while running, or stopped at its write-ahead fence before it ran.
        ['abort', cancelled('call')],
        ['abort', cancelled('call', { beforeRun: true })],
      ]
    case 'budget':
      return [
        ...either({ type: 'tool.budgeted', path: '/r/u.txt', chars: 9 }),
        ['abort', { type: 'tool.budgeted', error: 'the turn was interrupted before it was saved', chars: 9 }],
      ]
    case 'map':
      return state.failure !== null
        ? [['at once', { type: 'tool.mapped', isError: true }]]
        : [
            ['at once', { type: 'tool.mapped', isError: false }],
            ['at once', { type: 'tool.mapped', isError: true, failure: 'its mapper threw' }],
          ]
    case 'postHook':
      return [
        ...either({ type: 'tool.hooked', phase: 'post', outcome: 'continue', additionalContext: 'lint' }),
        ['abort', { type: 'tool.hooked', phase: 'post', outcome: 'continue' }],
      ]
    case 'emit':
      return [['at once', { type: 'tool.result', outcome: outcomeOf(state), block: {} }]]
  }
}

const ANSWER = { type: 'permission.answered', turnId: 't', toolUseId: 'u', digest: 'd', behavior: 'allow' } as const

const REQUESTED_X = foldCall([ev({ type: 'tool.requested', index: 0, name: 'X', input: { n: 1 } })], REQUESTED)

/** Every walk from REQUESTED_X to an answered state, one decision per step. */
function walks(): Decision[][] {
  const all: Decision[][] = []
  const extend = (state: CallState, walk: Decision[]): void => {
    if (state.answered) return void all.push(walk)
    if (walk.length > 20) throw new Error(`a walk that does not end: ${walk.map((d) => d.state.step).join(' → ')}`)
    for (const [kind, ...inputs] of choices(state)) {
      const events = inputs.map(ev)
      const next = foldCall(events, state)
      extend(next, [...walk, { kind, from: state, events, state: next }])
    }
  }
  extend(REQUESTED_X, [])
  return all
}

/**
 * The moves the drive loop makes for a walk: parse's `run` runs the steps until one waits (its
 * decision comes later or on an abort) and moves the machine there; that answer drives on the
 * same way; the last move carries the result.
 */
function compress(walk: readonly Decision[]): Move[] {
  const moves: Move[] = []
  let trigger: Move['trigger'] = 'run'
  for (const decision of walk) {
    if (decision.kind === 'at once') continue
    moves.push({ trigger, state: decision.from })
    trigger = decision.kind
  }
  moves.push({ trigger, state: (walk.at(-1) as Decision).state })
  return moves
}

const FINAL = { success: 'succeeded', error: 'failed', cancelled: 'cancelled' } as const
const where = (state: CallState): string => (state.answered ? FINAL[outcomeOf(state)] : state.step)
const decided = (move: Move): ToolCallEvent => ({ type: 'decided', state: move.state, carry: {} })

/** Plays the moves: `run` raises the first, the test sends a later one, `interrupt` raises one on abort. */
function play(moves: readonly Move[]) {
  let runs = 0
  let interrupts = 0
  let answers = 0
  let next = 0
  const take = (trigger: Move['trigger']): Move | undefined => {
    const move = moves[next]
    if (move?.trigger !== trigger) return undefined
    next++
    return move
  }
  const machine = toolCallMachine.provide({
    actions: {
      run: enqueueActions(({ enqueue }) => {
        runs++
        const move = take('run')
        if (move !== undefined) enqueue.raise(decided(move))
      }) as never,
      interrupt: enqueueActions(({ enqueue }) => {
        interrupts++
        const move = take('abort')
        if (move !== undefined) enqueue.raise(decided(move))
      }) as never,
      answer: enqueueActions(({ enqueue }) => {
        answers++
        const move = take('answer')
        if (move !== undefined) enqueue.raise(decided(move))
      }) as never,
    },
  })
  const actor = createActor(machine, { input: { state: REQUESTED_X } })
  const errors: unknown[] = []
  actor.subscribe({ error: (error) => errors.push(error) })
  actor.start()
  const values = [actor.getSnapshot().value]
  while (next < moves.length && actor.getSnapshot().status === 'active') {
    const trigger = moves[next]?.trigger
    if (trigger === 'later') actor.send(decided(take('later') as Move))
    else if (trigger === 'abort') actor.send({ type: 'abort', reason: 'user pressed Esc' })
    else if (trigger === 'answer') actor.send({ type: 'answer', event: ANSWER })
    else break // a second 'run': cannot happen, and leaves the walk untaken
    values.push(actor.getSnapshot().value)
  }
  return { snapshot: actor.getSnapshot(), values, runs, interrupts, answers, errors, taken: next }
}

/** The chart's transitions on `decided` from the states the machine can be in (parse and those a transition enters). */
function chart(): { transitions: Set<string>; states: Set<string> } {
  const transitions = new Set<string>()
  const states = new Set<string>(['parse'])
  const queue = ['parse']
  for (let from = queue.pop(); from !== undefined; from = queue.pop()) {
    const node = toolCallMachine.root.states[from]
    for (const transition of node?.transitions.get('decided') ?? []) {
      for (const target of transition.target ?? []) {
        transitions.add(`${from} → ${target.key}`)
        if (!states.has(target.key)) queue.push(target.key)
        states.add(target.key)
      }
    }
  }
  return { transitions, states }
}

/**
 * Transitions the chart has that no call takes. The machine lets a call rest next in any waiting
 * step its table's `next` reaches and end from anywhere; what the steps decide is narrower.
 */
const NEVER_TAKEN = [
  // The tool itself always answers later (call.step returns its promise), so a call that gets
  // as far as running rests at call first: from before it, no move reaches what follows the run.
  ...(['parse', 'validate', 'preHook', 'permission'] as const).flatMap((from) =>
    ['budget', 'postHook', 'succeeded'].map((to) => `${from} → ${to}`),
  ),
  // A call at budget ran and completed; after that only map can fail it (a tool_error), and an
  // interruption at budget or post-hooks leaves a result that stands: it never ends cancelled.
  'budget → cancelled',
]

const ALL = walks()
const MOVES = new Map(ALL.map((walk) => [walk, compress(walk)]))
/** The walks by what parse decided, for one test each. */
const byParse = new Map<string, Decision[][]>()
for (const walk of ALL) {
  const first = walk[0]?.events[0] as { type: string; hooks?: { pre: boolean; post: boolean }; code?: string }
  const name =
    first.type === 'tool.parsed'
      ? `parsed, pre-hooks ${first.hooks?.pre === true}, post-hooks ${first.hooks?.post === true}`
      : `${first.type}${first.code === undefined ? '' : ` (${first.code})`} at parse`
  byParse.set(name, [...(byParse.get(name) ?? []), walk])
}

describe('every walk of the tool-call machine', () => {
  for (const [name, group] of byParse) {
    it(`${name}: ${group.length} walks, each rests where its moves say and ends in the one final state its outcome names`, () => {
      for (const walk of group) {
        const moves = MOVES.get(walk) as Move[]
        const path = walk.map((d) => `${d.state.step}${d.kind === 'at once' ? '' : ` (${d.kind})`}`).join(' → ')
        const { snapshot, values, runs, interrupts, answers, errors, taken } = play(moves)
        const last = (walk.at(-1) as Decision).state
        expect(errors, path).toEqual([])
        expect(taken, path).toBe(moves.length)
        // The machine is where each move says: a step the call rests in, then the final state.
        expect(values, path).toEqual(moves.map((m) => where(m.state)))
        expect(snapshot.status, path).toBe('done')
        expect(snapshot.value, path).toBe(FINAL[outcomeOf(last)])
        expect(snapshot.context, path).toStrictEqual(last)
        // Only parse's entry runs steps; the answers and interruptions drive on from there.
        expect(runs, path).toBe(1)
        expect(interrupts, path).toBe(moves.filter((m) => m.trigger === 'abort').length)
        expect(answers, path).toBe(moves.filter((m) => m.trigger === 'answer').length)
        // The result is decided once, last, at emit; only the last move carries it.
        const results = walk.flatMap((d) => d.events).filter((e) => e.type === 'tool.result')
        expect(results, path).toHaveLength(1)
        expect((walk.at(-1) as Decision).from.step, path).toBe('emit')
        expect(
          moves.slice(0, -1).every((m) => !m.state.answered),
          path,
        ).toBe(true)
      }
    })
  }

  it('enumerates enough walks to mean something, and every outcome, at once, later and on abort', () => {
    expect(ALL.length).toBeGreaterThan(1000)
    expect(new Set(ALL.map((walk) => outcomeOf((walk.at(-1) as Decision).state)))).toEqual(
      new Set(['success', 'error', 'cancelled']),
    )
    expect(new Set([...MOVES.values()].flatMap((moves) => moves.map((m) => m.trigger)))).toEqual(
      new Set(['run', 'later', 'abort', 'answer']),
    )
  })

  it('a decision comes later, or on an abort, only in a step the table says waits; every waiting step rests a call', () => {
    const resting = new Set(ALL.flatMap((walk) => walk.filter((d) => d.kind !== 'at once').map((d) => d.from.step)))
    expect([...resting].sort()).toEqual(STEPS.filter((step) => STEP_TABLE[step].waits).sort())
  })

  it("each step's events lead only where its row's next says, and the walks take every entry", () => {
    const taken = new Set<string>()
    for (const walk of ALL)
      for (const { from, state } of walk) taken.add(`${from.step} → ${state.answered ? 'its result' : state.step}`)
    const table = new Set(STEPS.flatMap((step) => STEP_TABLE[step].next.map((to) => `${step} → ${to}`)))
    table.add('emit → its result')
    expect([...taken].sort()).toEqual([...table].sort())
  })

  it('the machine rests only in parse, where it starts, and the steps that wait: no transition enters map or emit', () => {
    const { states } = chart()
    expect(STEPS.filter((step) => !states.has(step))).toEqual(
      STEPS.filter((step) => step !== 'parse' && !STEP_TABLE[step].waits),
    )
    expect(STEPS.filter((step) => !states.has(step))).toEqual(['map', 'emit'])
  })

  it("the walks' moves take every transition the chart has but those no call takes, and no other", () => {
    const taken = new Set<string>()
    for (const moves of MOVES.values()) {
      let from = 'parse'
      for (const { state } of moves) {
        taken.add(`${from} → ${where(state)}`)
        from = where(state)
      }
    }
    const { transitions } = chart()
    // The untaken list names transitions the chart has (none stale)...
    for (const transition of NEVER_TAKEN) expect(transitions, transition).toContain(transition)
    // ...and every other one is taken, and nothing outside the chart.
    const expected = [...transitions].filter((t) => !NEVER_TAKEN.includes(t))
    expect([...taken].sort()).toEqual(expected.sort())
  })
})
