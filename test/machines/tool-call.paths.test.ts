/**
 * Every walk of the tool-call machine, enumerated from the log's side: from `tool.requested`,
 * each step may decide any of the groups of events its step function (or an interruption) can
 * decide there, and folding them gives the next state. Each walk is played on the machine with
 * `run` and `interrupt` provided by the test — a decision at once (raised by `run`), later (sent
 * when the step's wait answers) or by an interruption (raised by `interrupt` on `abort`) — and
 * must end in exactly one final state, the one its outcome names, with `run` fired once for each
 * step entered and no move the machine calls illegal. Together the walks take every transition
 * the chart has.
 */
import { describe, expect, it } from 'vitest'
import { createActor, enqueueActions } from 'xstate'
import { STEPS, type Step } from '../../src/events/event.schema.js'
import { foldCall, outcomeOf, REQUESTED, STEP_TABLE, type CallState } from '../../src/events/tool-call.steps.js'
import { toolCallMachine } from '../../src/machines/tool-call.machine.js'
import type { ToolCallEvent } from '../../src/machines/tool-call.types.js'

type CallEvent = Parameters<typeof foldCall>[0] extends Iterable<infer E> ? E : never
const ev = (input: Record<string, unknown>) => ({ turnId: 't', toolUseId: 'u', ...input }) as CallEvent

/** How a decision reaches the machine. */
type Kind = 'at once' | 'later' | 'abort'
interface Move {
  readonly kind: Kind
  readonly events: readonly CallEvent[]
  /** The call's state with the events folded in: what the `decided` event carries. */
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
        ['at once', { type: 'tool.validated' }],
        ['later', rejected('validate', 'validate_input')],
        ['abort', cancelled('validate')],
      ]
    case 'preHook':
      return [
        ['later', { type: 'tool.hooked', phase: 'pre', outcome: 'continue' }],
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
        [
          'later',
          rejected('preHook', 'hook_blocked'),
          { type: 'tool.hooked', phase: 'pre', outcome: 'block', reason: 'no' },
        ],
        ['abort', cancelled('preHook')],
      ]
    case 'permission':
      return [
        ['at once', { type: 'tool.permitted', behavior: 'allow', source: 'rule' }],
        [
          'later',
          { type: 'tool.permitted', behavior: 'deny', source: 'user' },
          rejected('permission', 'permission_denied'),
        ],
        // Input the app rewrote, which the schema refused.
        [
          'later',
          { type: 'tool.permitted', behavior: 'allow', source: 'user', updatedInput: { n: 'x' } },
          rejected('permission', 'invalid_input'),
        ],
        ['abort', cancelled('permission')],
      ]
    case 'call':
      if (!state.started)
        return [
          ['at once', { type: 'tool.started', interrupt: 'cancel' }],
          ['at once', { type: 'tool.started', interrupt: 'block' }],
        ]
      return [
        ['later', { type: 'tool.completed', output: 'out' }],
        ['later', { type: 'tool.completed', persisted: true }],
        ['later', { type: 'tool.errored', message: 'X failed: boom', errorClass: 'Error' }],
        // Interrupted while running, or stopped at its write-ahead fence before it ran.
        ['abort', cancelled('call')],
        ['abort', cancelled('call', { beforeRun: true })],
      ]
    case 'budget':
      return [
        ['later', { type: 'tool.budgeted', path: '/r/u.txt', chars: 9 }],
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
        ['later', { type: 'tool.hooked', phase: 'post', outcome: 'continue', additionalContext: 'lint' }],
        ['abort', { type: 'tool.hooked', phase: 'post', outcome: 'continue' }],
      ]
    case 'emit':
      return [['at once', { type: 'tool.result', outcome: outcomeOf(state), block: {} }]]
  }
}

const REQUESTED_X = foldCall([ev({ type: 'tool.requested', index: 0, name: 'X', input: { n: 1 } })], REQUESTED)

/** Every walk from REQUESTED_X to an answered state. */
function walks(): Move[][] {
  const all: Move[][] = []
  const extend = (state: CallState, walk: Move[]): void => {
    if (state.answered) return void all.push(walk)
    if (walk.length > 20) throw new Error(`a walk that does not end: ${walk.map((m) => m.state.step).join(' → ')}`)
    for (const [kind, ...inputs] of choices(state)) {
      const events = inputs.map(ev)
      const next = foldCall(events, state)
      extend(next, [...walk, { kind, events, state: next }])
    }
  }
  extend(REQUESTED_X, [])
  return all
}

const FINAL = { success: 'succeeded', error: 'failed', cancelled: 'cancelled' } as const
const decided = (move: Move): ToolCallEvent => ({ type: 'decided', state: move.state, carry: {} })

/** Plays a walk: `run` raises a decision at once, the test sends a later one, `interrupt` raises one on abort. */
function play(walk: readonly Move[]) {
  const entered: Step[] = []
  let interrupts = 0
  let next = 0
  const take = (kind: Kind): Move | undefined => {
    const move = walk[next]
    if (move?.kind !== kind) return undefined
    next++
    return move
  }
  const machine = toolCallMachine.provide({
    actions: {
      run: enqueueActions(({ enqueue }, params: { step: Step }) => {
        entered.push(params.step)
        const move = take('at once')
        if (move !== undefined) enqueue.raise(decided(move))
      }) as never,
      interrupt: enqueueActions(({ enqueue }) => {
        interrupts++
        const move = take('abort')
        if (move !== undefined) enqueue.raise(decided(move))
      }) as never,
    },
  })
  const actor = createActor(machine, { input: { state: REQUESTED_X } })
  const errors: unknown[] = []
  actor.subscribe({ error: (error) => errors.push(error) })
  actor.start()
  while (next < walk.length && actor.getSnapshot().status === 'active') {
    const kind = walk[next]?.kind
    if (kind === 'at once') break // `run` did not take it: the machine did not enter the step
    if (kind === 'later') actor.send(decided(take('later') as Move))
    else actor.send({ type: 'abort', reason: 'user pressed Esc' })
  }
  return { snapshot: actor.getSnapshot(), entered, interrupts, errors, taken: next }
}

const ALL = walks()
/** The walks by what parse decided, for one test each. */
const byParse = new Map<string, Move[][]>()
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
    it(`${name}: ${group.length} walks, each ends in the one final state its outcome names`, () => {
      for (const walk of group) {
        const where = walk.map((m) => `${m.state.step}${m.kind === 'at once' ? '' : ` (${m.kind})`}`).join(' → ')
        const { snapshot, entered, interrupts, errors, taken } = play(walk)
        const last = walk.at(-1) as Move
        expect(errors, where).toEqual([])
        expect(taken, where).toBe(walk.length)
        expect(snapshot.status, where).toBe('done')
        expect(snapshot.value, where).toBe(FINAL[outcomeOf(last.state)])
        expect(snapshot.context, where).toStrictEqual(last.state)
        // `run` fired once per step entered: parse, then each step a decision took the call to (re-entries too).
        expect(entered, where).toEqual(['parse', ...walk.slice(0, -1).map((m) => m.state.step)])
        expect(interrupts, where).toBe(walk.filter((m) => m.kind === 'abort').length)
        // The result is decided once, last, at emit.
        const results = walk.flatMap((m) => m.events).filter((e) => e.type === 'tool.result')
        expect(results, where).toHaveLength(1)
        expect(walk.at(-2)?.state.step ?? 'parse', where).toBe('emit')
      }
    })
  }

  it('enumerates enough walks to mean something, and every outcome', () => {
    expect(ALL.length).toBeGreaterThan(150)
    expect(new Set(ALL.map((walk) => outcomeOf((walk.at(-1) as Move).state)))).toEqual(
      new Set(['success', 'error', 'cancelled']),
    )
  })

  it('the walks take every transition the chart has, and no other', () => {
    const taken = new Set<string>()
    for (const walk of ALL) {
      let from: Step = 'parse'
      for (const { state } of walk) {
        const to = state.answered ? FINAL[outcomeOf(state)] : state.step
        taken.add(`${from} → ${to}`)
        if (!state.answered) from = state.step
      }
    }
    const chart = new Set(STEPS.flatMap((step) => STEP_TABLE[step].next.map((to) => `${step} → ${to}`)))
    for (const end of Object.values(FINAL)) chart.add(`emit → ${end}`)
    expect([...taken].sort()).toEqual([...chart].sort())
  })
})
