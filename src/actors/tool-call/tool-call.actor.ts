/**
 * Runs one tool-call actor: the machine from src/machines with the kernel's steps provided, and a
 * guarantee that the call ends with exactly one `tool.result` event whatever fails.
 *
 * The loop of one call: the state's step runs on entry and decides events (at once, or when what
 * it waits for answers); they are appended to the log and folded into the state (`advance`); the
 * `decided` event carrying that state moves the machine to the step it names. An answer that
 * arrives after the call moved on (an interruption) is dropped.
 */
import { createActor, enqueueActions, type AnyActorRef } from 'xstate'
import { toolResultBlock, type Step } from '../../events/event.schema.js'
import { advance, isParked, REQUESTED, type CallState } from '../../events/tool-call.steps.js'
import { toolCallMachine } from '../../machines/tool-call.machine.js'
import type { Carry, ToolCallContext, ToolCallEvent } from '../../machines/tool-call.types.js'
import { controllerOf, newCallIO, type CallScope, type CallServices, type Decided, type StepFn } from './call-scope.js'
import { budgetStep } from './budget.step.js'
import { callStep } from './call.step.js'
import { emitStep } from './emit.step.js'
import { interruptAt } from './interrupt.js'
import { mapStep } from './map.step.js'
import { parseStep } from './parse.step.js'
import { permissionStep } from './permission.step.js'
import { postHookStep } from './post-hook.step.js'
import { preHookStep } from './pre-hook.step.js'
import { validateStep } from './validate.step.js'
import type { TurnBudget } from '../turn/budget.js'
import { describeError } from '../../tools/result-text.js'
import { isThenable } from '../../util/is-thenable.js'
import type { Tool } from '../../tools/tool.types.js'

/** The nine steps, each a function from the call's state (and what the step before handed on) to events. */
export const STEP_FUNCTIONS: { readonly [S in Step]: StepFn } = {
  parse: parseStep,
  validate: validateStep,
  preHook: preHookStep,
  permission: permissionStep,
  call: callStep,
  budget: budgetStep,
  map: mapStep,
  postHook: postHookStep,
  emit: emitStep,
}

export interface CallRequest {
  turnId: string
  toolUseId: string
  index: number
  name: string
  input: unknown
  /** Why the input could not be read (stream intake: malformed or truncated JSON). */
  inputError?: string
  /** Set to cancel the call before it runs: why (an abort before start, a stop reason, a failed sibling). */
  voided?: string
  /** The turn's message budget, shared by its calls. */
  budget: TurnBudget
  /** The tool and its schema-validated input, as the turn's safety check found them (validated once). */
  validated?: { tool: Tool; input: unknown }
  /** The call's state so far, folded from its events: a call that goes on (a parked turn resumed). */
  from?: CallState
  /** Queued as concurrency-safe (a context change it returns is not applied). */
  safe?: boolean
}

export interface CallOutcome {
  /** The tool itself failed while running (what triggers a sibling cascade). */
  toolFailed: boolean
}

export interface CallHandle {
  /**
   * Calls `listener` once, synchronously, when the call's `tool.result` is in the log (at once
   * if it already is). Synchronous, not a promise: what the scheduler does next (start the
   * next call) then follows that result at a fixed point of the log, whatever else settles in
   * the meantime — so a re-execution makes the same decisions at the same points.
   */
  onDone(listener: (outcome: CallOutcome) => void): void
  /**
   * Interrupts the call: cancels it where it waits, aborts a running 'cancel' tool, leaves a
   * 'block' tool running — unless `force`, which stops that too.
   */
  abort(reason: string, force?: boolean): void
  /**
   * Calls `listener(true)` when the call parks at its permission step, waiting for a person's
   * answer (at once if it is parked now), and `listener(false)` when an answer moves it on. It
   * holds its place meanwhile: an answer or an abort ends it.
   */
  onParked(listener: (parked: boolean) => void): void
  /** Gives the parked call its answer (its `permission.answered`); false when it is not parked. */
  answer(event: Extract<ToolCallEvent, { type: 'answer' }>['event']): boolean
}

const NOT_FAILED: CallOutcome = Object.freeze({ toolFailed: false })
const FAILED: CallOutcome = Object.freeze({ toolFailed: true })

/** A running call: its scope, what its waiting step was handed, and how a bug ends it. */
interface Running {
  readonly scope: CallScope
  held: Carry
  readonly fail: (error: unknown) => void
}

/**
 * Sees each call's state after every move of its machine (tests: it must equal the fold of the
 * call's events in the log at that moment).
 */
export type CallObserver = (call: { turnId: string; toolUseId: string }, state: CallState) => void

/** The machine with the kernel's steps, and the calls it runs (by actor id). Built once per kernel. */
export function provideToolCallMachine(observe?: CallObserver) {
  const calls = new Map<string, Running>()
  const of = (self: AnyActorRef): Running => {
    const running = calls.get(self.id)
    if (running === undefined) throw new Error(`no tool call for actor ${self.id} (start calls with startToolCall)`)
    return running
  }
  const machine = toolCallMachine.provide({
    actions: {
      run: callAction(({ context, self, enqueue }) => {
        enqueue.raise(drive(of(self), self, { state: context, carry: {} }))
      }) as never,
      interrupt: callAction(({ context, event, self, enqueue }) => {
        if (event.type !== 'abort') return
        const running = of(self)
        const interruption = interruptAt(running.scope, context, running.held, event.reason, event.force === true)
        if (interruption === undefined) return
        running.scope.io.wait++ // the answer the step waits for is no longer wanted
        const moved = apply(running.scope, { state: context, carry: running.held }, interruption.decided)
        if (interruption.abort) controllerOf(running.scope).abort(event.reason)
        enqueue.raise(drive(running, self, moved))
      }) as never,
      answer: callAction(({ context, event, self, enqueue }) => {
        if (event.type !== 'answer' || !isParked(context)) return
        const running = of(self)
        const moved = apply(running.scope, { state: context, carry: running.held }, { events: [event.event] })
        enqueue.raise(drive(running, self, moved))
      }) as never,
    },
  })
  let count = 0
  return { machine, calls, observe, nextId: () => `call-${++count}` }
}

/** An action of the kernel's over the machine's own context and events. */
const callAction = (
  body: Parameters<
    typeof enqueueActions<ToolCallContext, ToolCallEvent, unknown, ToolCallEvent, never, never, never, never, never>
  >[0],
) => enqueueActions<ToolCallContext, ToolCallEvent, unknown, ToolCallEvent, never, never, never, never, never>(body)

export type ProvidedToolCallMachine = ReturnType<typeof provideToolCallMachine>

/**
 * Runs the call's steps from `state` while they answer at once, appending and folding what each
 * decides; stops where a step waits (its answer, when it comes, drives on from there), where the
 * call is parked for a person, or where it is answered. Returns the `decided` event for where
 * the call now rests.
 */
function drive(running: Running, self: AnyActorRef, from: Moved): Extract<ToolCallEvent, { type: 'decided' }> {
  const { scope } = running
  let { state, carry } = from
  while (!state.answered && !isParked(state)) {
    const wait = ++scope.io.wait
    const answer = STEP_FUNCTIONS[state.step](scope, state, carry)
    if (isThenable<Decided>(answer)) {
      running.held = carry
      const at = { state, carry }
      answer.then(
        (decided) => {
          if (scope.io.wait !== wait || self.getSnapshot().status !== 'active') return
          let event: ToolCallEvent
          try {
            event = drive(running, self, apply(scope, at, decided))
          } catch (error) {
            return running.fail(error)
          }
          self.send(event)
        },
        (error: unknown) => {
          if (scope.io.wait === wait) running.fail(error)
        },
      )
      break
    }
    ;({ state, carry } = apply(scope, { state, carry }, answer))
  }
  // A parked call's answer drives on from here, with what the steps before handed on.
  if (isParked(state)) running.held = carry
  return { type: 'decided', state, carry }
}

/** Where a step's events took the call, and what it handed on. */
interface Moved {
  readonly state: CallState
  readonly carry: Carry
}

/** Appends a step's events and folds them into the state. */
function apply(scope: CallScope, { state, carry }: Moved, decided: Decided): Moved {
  const { log } = scope.services
  let next = state
  for (const event of decided.events) {
    log.append(event)
    next = advance(next, event as Parameters<typeof advance>[1])
  }
  // A step that decides nothing would run again forever: a bug, which ends the call.
  if (next === state) throw new Error(`tool call ${scope.toolUseId}: the ${state.step} step decided nothing`)
  if (next.answered) scope.io.answered = true
  return { state: next, carry: decided.carry ?? carry }
}

/** The state a new call starts from: its `tool.requested`, folded. */
export function requestedState(request: Pick<CallRequest, 'name' | 'input' | 'from'>): CallState {
  return request.from ?? { ...REQUESTED, name: request.name, input: request.input }
}

/** Starts one call. Its `onDone` listener hears once its result is logged. */
export function startToolCall(
  { machine, calls, observe, nextId }: ProvidedToolCallMachine,
  services: CallServices,
  request: CallRequest,
): CallHandle {
  const scope: CallScope = {
    services,
    turnId: request.turnId,
    toolUseId: request.toolUseId,
    index: request.index,
    name: request.name,
    budget: request.budget,
    voided: request.voided,
    inputError: request.inputError,
    validated: request.validated,
    ...(request.safe === true ? { safe: true } : {}),
    io: newCallIO(),
  }
  const callId = nextId()
  const done = settleOnce()
  const parked = listeners()
  // A child session's parked calls park this call's place in its turn (docs/subagents.md).
  scope.io.nestedPark = (isNowParked) => (isNowParked ? parked.fire() : parked.rearm())
  // A bug in a step: still answer the tool_use, and say where it broke.
  const failInternally = (error: unknown): void => {
    if (!scope.io.answered) {
      scope.io.answered = true
      const content = `toolkernel failed internally while running this call (${describeError(error)}); it may or may not have run.`
      services.log.append({
        type: 'tool.result',
        turnId: request.turnId,
        toolUseId: request.toolUseId,
        outcome: 'error',
        block: toolResultBlock(request.toolUseId, content, true),
      })
    }
    calls.delete(callId)
    done.settle(NOT_FAILED)
  }
  const running: Running = {
    scope,
    held: {},
    fail: (error) => {
      failInternally(error)
      actor.stop()
    },
  }
  calls.set(callId, running)
  // XState never throws out of createActor: an error in the initial step comes to `error` below.
  const actor = createActor(machine, { input: { state: requestedState(request) }, id: callId })
  if (observe !== undefined) actor.subscribe((snapshot) => observe(scope, snapshot.context))
  actor.subscribe({
    // Told once the machine rests parked (its context is then the fold of the call's events).
    next: (snapshot) => {
      if (snapshot.status === 'active' && isParked(snapshot.context as CallState)) parked.fire()
    },
    complete: () => {
      calls.delete(callId)
      const failure = (actor.getSnapshot().context as ToolCallContext).failure
      done.settle(failure?.step === 'call' && failure.code === 'tool_error' ? FAILED : NOT_FAILED)
    },
    error: (error: unknown) => failInternally(error),
  })
  actor.start()
  return {
    onDone: done.onDone,
    abort: (reason: string, force = false) => {
      scope.io.abortRequested ??= reason
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'abort', reason, force })
    },
    onParked: (listener) => {
      parked.listen(listener)
      const snapshot = actor.getSnapshot()
      if (snapshot.status === 'active' && isParked(snapshot.context as CallState)) listener(true)
    },
    answer: (event) => {
      const snapshot = actor.getSnapshot()
      if (snapshot.status !== 'active' || !isParked(snapshot.context as CallState)) return false
      parked.rearm()
      actor.send({ type: 'answer', event })
      return true
    },
  }
}

/** Listeners told when the call parks (once per time it parks), and when an answer moves it on. */
function listeners(): { listen(listener: (parked: boolean) => void): void; fire(): void; rearm(): void } {
  const all: Array<(parked: boolean) => void> = []
  let fired = false
  return {
    listen: (listener) => void all.push(listener),
    fire() {
      if (fired) return
      fired = true
      for (const listener of all) listener(true)
    },
    rearm() {
      fired = false
      for (const listener of all) listener(false)
    },
  }
}

/** An outcome told once to one listener, whichever comes first: the listener or the outcome. */
function settleOnce(): { settle(outcome: CallOutcome): void; onDone(listener: (outcome: CallOutcome) => void): void } {
  let outcome: CallOutcome | undefined
  let listener: ((outcome: CallOutcome) => void) | undefined
  return {
    settle(value) {
      if (outcome !== undefined) return
      outcome = value
      listener?.(value)
    },
    onDone(value) {
      listener = value
      if (outcome !== undefined) value(outcome)
    },
  }
}
