/**
 * The machine alone, with `run` and `interrupt` provided by the test: no kernel, no tools, no
 * steps — what replay and tests do. Each `decided` takes it to the step its state names (the same
 * step again when the state names it), a result ends it in the final state its outcome names, and
 * anything else is a bug that errors the actor.
 */
import { describe, expect, it } from 'vitest'
import { createActor, enqueueActions } from 'xstate'
import type { Step } from '../../src/events/event.schema.js'
import { foldCall, REQUESTED, type CallState } from '../../src/events/tool-call.steps.js'
import { toolCallMachine } from '../../src/machines/tool-call.machine.js'
import type { Carry, ToolCallEvent } from '../../src/machines/tool-call.types.js'

/** The events of one call, as the fold takes them. */
type CallEvent = Parameters<typeof foldCall>[0] extends Iterable<infer E> ? E : never
const ev = (input: Record<string, unknown>) => ({ turnId: 't', toolUseId: 'u', ...input }) as CallEvent

const requested: CallState = { ...REQUESTED, name: 'Echo', input: { text: 'x' } }
const decided = (state: CallState, carry: Carry = {}): ToolCallEvent => ({ type: 'decided', state, carry })

/** An action over the machine's own context and events (as the kernel's are). */
const action = (
  body: Parameters<
    typeof enqueueActions<CallState, ToolCallEvent, { step: Step }, ToolCallEvent, never, never, never, never, never>
  >[0],
) => enqueueActions<CallState, ToolCallEvent, { step: Step }, ToolCallEvent, never, never, never, never, never>(body)

/** A machine whose `run` notes each step it enters and `interrupt` each abort (and may answer it). */
function start(onAbort?: (state: CallState) => CallState) {
  const entered: Step[] = []
  const carries: Carry[] = []
  const aborts: string[] = []
  const machine = toolCallMachine.provide({
    actions: {
      run: action(({ event }, params) => {
        entered.push(params.step)
        if (event.type === 'decided') carries.push(event.carry)
      }) as never,
      interrupt: action(({ context, event, enqueue }) => {
        if (event.type !== 'abort') return
        aborts.push(event.reason)
        if (onAbort !== undefined) enqueue.raise(decided(onAbort(context)))
      }) as never,
    },
  })
  const actor = createActor(machine, { input: { state: requested } })
  const errors: unknown[] = []
  actor.subscribe({ error: (error) => errors.push(error) })
  actor.start()
  const send = (event: ToolCallEvent) => actor.send(event)
  /** Sends, for each group of events, the decided state they fold to; returns the last state. */
  const walk = (...groups: Array<Array<Record<string, unknown>>>): CallState => {
    let state = actor.getSnapshot().context
    for (const group of groups) {
      state = after(state, ...group)
      send(decided(state))
    }
    return state
  }
  return { actor, entered, carries, aborts, errors, send, walk, snapshot: () => actor.getSnapshot() }
}

/** The state after `inputs`, from `from`. */
const after = (from: CallState, ...inputs: Array<Record<string, unknown>>) => foldCall(inputs.map(ev), from)

const parsed = [{ type: 'tool.parsed', tool: 'Echo' }]
const validated = [{ type: 'tool.validated' }]
const permitted = [{ type: 'tool.permitted', behavior: 'allow', source: 'rule' }]
const started = [{ type: 'tool.started', interrupt: 'cancel' }]
const completed = [{ type: 'tool.completed', output: 'x' }]
const mapped = [{ type: 'tool.mapped', isError: false }]
/** Parse to emit for a call that runs and succeeds, one decision per step. */
const toEmit = [parsed, validated, permitted, started, completed, mapped]

describe('the tool-call machine with run and interrupt provided', () => {
  it('starts at parse with its input state as its context, and runs parse', () => {
    const m = start()
    expect(m.snapshot().value).toBe('parse')
    expect(m.snapshot().context).toStrictEqual(requested)
    expect(m.entered).toEqual(['parse'])
  })

  it('each decided goes to the step its state names, its state the context, its carry handed to the step', () => {
    const m = start()
    const withHooks = m.walk([{ type: 'tool.parsed', tool: 'Echo', hooks: { pre: true, post: false } }])
    expect(m.snapshot().value).toBe('validate')
    expect(m.snapshot().context).toStrictEqual(withHooks)
    const state = after(withHooks, { type: 'tool.validated' })
    m.send(decided(state, { input: { text: 'x' } }))
    expect(m.snapshot().value).toBe('preHook')
    expect(m.snapshot().context).toStrictEqual(state)
    expect(m.entered).toEqual(['parse', 'validate', 'preHook'])
    expect(m.carries.at(-1)).toEqual({ input: { text: 'x' } })
  })

  it('a decided that names the same step enters it again: call records the start, then runs the tool', () => {
    const m = start()
    m.walk(parsed, validated, permitted, started)
    expect(m.snapshot().value).toBe('call')
    expect(m.snapshot().context.started).toBe(true)
    expect(m.entered).toEqual(['parse', 'validate', 'permission', 'call', 'call'])
  })

  it.each([
    ['success', 'succeeded', toEmit],
    ['error', 'failed', [parsed, validated, permitted, started, [{ type: 'tool.errored', message: 'boom' }], mapped]],
    ['cancelled', 'cancelled', [parsed, [{ type: 'tool.cancelled', step: 'validate', reason: 'esc' }], mapped]],
    [
      'cancelled',
      'cancelled',
      [...toEmit.slice(0, 4), [{ type: 'tool.cancelled', step: 'call', reason: 'esc' }], mapped],
    ],
  ] as const)(
    'a result with outcome %s ends in %s, the state its context, and runs nothing more',
    (outcome, end, path) => {
      const m = start()
      m.walk(...(path as unknown as Array<Array<Record<string, unknown>>>))
      expect(m.snapshot().value).toBe('emit')
      const entered = m.entered.length
      const answered = m.walk([{ type: 'tool.result', outcome, block: {} }])
      expect(m.snapshot().value).toBe(end)
      expect(m.snapshot().status).toBe('done')
      expect(m.snapshot().context).toStrictEqual(answered)
      expect(m.entered).toHaveLength(entered)
      expect(m.errors).toEqual([])
    },
  )

  it('abort runs interrupt and stays where it is; what interrupt decides moves it like any decision', () => {
    const ignoring = start()
    ignoring.walk(parsed)
    ignoring.send({ type: 'abort', reason: 'esc' })
    expect(ignoring.aborts).toEqual(['esc'])
    expect(ignoring.snapshot().value).toBe('validate')
    expect(ignoring.entered).toEqual(['parse', 'validate'])
    const cancelling = start((state) => after(state, { type: 'tool.cancelled', step: state.step, reason: 'esc' }))
    cancelling.walk(parsed)
    cancelling.send({ type: 'abort', reason: 'esc', force: true })
    expect(cancelling.snapshot().value).toBe('map')
    expect(cancelling.snapshot().context.failure).toEqual({ step: 'validate', code: 'cancelled', message: 'esc' })
    expect(cancelling.entered).toEqual(['parse', 'validate', 'map'])
  })

  it('an abort to a finished call runs nothing', () => {
    const m = start()
    m.walk(...toEmit, [{ type: 'tool.result', outcome: 'success', block: {} }])
    expect(m.snapshot().status).toBe('done')
    m.send({ type: 'abort', reason: 'late' })
    expect(m.aborts).toEqual([])
    expect(m.errors).toEqual([])
  })
})

describe('an illegal move is a bug: the actor errors, saying where from and where to', () => {
  /** A machine at permission. */
  const atPermission = () => {
    const m = start()
    return { m, state: m.walk(parsed, validated) }
  }

  it('back to an earlier step', () => {
    const { m, state } = atPermission()
    m.send(decided({ ...state, step: 'validate' }))
    expect(m.snapshot().status).toBe('error')
    expect(String(m.errors[0])).toBe(
      'Error: tool call: its events took it from permission to validate, which no step leads to',
    )
    expect(m.entered).toEqual(['parse', 'validate', 'permission'])
  })

  it("past a step the table does not lead to (permission's events lead to call or map, not emit)", () => {
    const { m, state } = atPermission()
    m.send(decided({ ...state, step: 'emit' }))
    expect(String(m.errors[0])).toBe(
      'Error: tool call: its events took it from permission to emit, which no step leads to',
    )
  })

  it('a result from a step before emit', () => {
    const { m, state } = atPermission()
    m.send(decided({ ...state, step: 'emit', answered: true }))
    expect(String(m.errors[0])).toBe(
      'Error: tool call: its events took it from permission to its result, which no step leads to',
    )
  })

  it('a run that decides an illegal move at once errors the actor as it starts', () => {
    const machine = toolCallMachine.provide({
      actions: {
        run: action(({ context, enqueue }) => enqueue.raise(decided({ ...context, step: 'budget' }))) as never,
        interrupt: () => undefined,
      },
    })
    const actor = createActor(machine, { input: { state: requested } })
    const errors: unknown[] = []
    actor.subscribe({ error: (error) => errors.push(error) })
    actor.start()
    expect(String(errors[0])).toMatch(/from parse to budget, which no step leads to/)
  })
})

describe('the effects must be provided', () => {
  it.each(['run', 'interrupt'] as const)('refuses to run with %s left unprovided', (name) => {
    const machine =
      name === 'run'
        ? toolCallMachine.provide({ actions: { interrupt: () => undefined } })
        : toolCallMachine.provide({ actions: { run: () => undefined } })
    const actor = createActor(machine, { input: { state: requested } })
    const errors: unknown[] = []
    actor.subscribe({ error: (error) => errors.push(error) })
    actor.start()
    actor.send({ type: 'abort', reason: 'esc' })
    expect(String(errors[0])).toBe(`Error: toolCallMachine: "${name}" must be provided by the kernel (machine.provide)`)
  })
})
