/**
 * The tool-call machine: one actor per `tool_use`, walking the nine steps
 * (docs/design.md §The nine steps).
 *
 * Its context is the call's state, the fold of the call's own events (`advance` in
 * src/events/tool-call.steps.ts), and those events move it: the kernel's `run` (parse's entry)
 * runs the steps, each deciding its events, which the kernel appends and folds in; the `decided`
 * event carrying that state takes the machine to the step where the call now rests, waiting for
 * an answer, or to the final state its result names. So the chart, recovery, inspect and replay
 * read one model of a call; no transition here knows what a step does.
 *
 * A call started from a later state (its events so far) starts in parse too, and moves at once
 * to where its steps rest. Pure structure: guards read only the event, every effect is a named
 * action the kernel provides.
 */
import { assign, setup } from 'xstate'
import { STEPS, type Step } from '../events/event.schema.js'
import { outcomeOf, STEP_TABLE, type CallState } from '../events/tool-call.steps.js'
import type { ToolCallContext, ToolCallEvent, ToolCallInput } from './tool-call.types.js'

const missing = (name: string) => (): never => {
  throw new Error(`toolCallMachine: "${name}" must be provided by the kernel (machine.provide)`)
}

const decidedState = (event: ToolCallEvent): CallState | undefined =>
  event.type === 'decided' ? event.state : undefined

const OUTCOMES = { success: 'succeeded', error: 'failed', cancelled: 'cancelled' } as const

export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    input: {} as ToolCallInput,
    events: {} as ToolCallEvent,
  },
  actions: {
    /** Runs the step the machine entered (the kernel's step functions). */
    run: missing('run') as (args: unknown, params: { step: Step }) => void,
    /** Decides what an interruption does to the call where it stands. */
    interrupt: missing('interrupt'),
    /** Takes a person's answer to a call parked at its permission step, and runs the steps on. */
    answer: missing('answer'),
    fold: assign(({ context, event }) => decidedState(event) ?? context),
    illegal: ({ context, event }) => {
      const to = decidedState(event)
      throw new Error(
        `tool call: its events took it from ${context.step} to ${to === undefined ? event.type : to.answered ? 'its result' : to.step}, which no step leads to`,
      )
    },
  },
  guards: {
    at: ({ event }, params: { step: Step }) => {
      const state = decidedState(event)
      return state !== undefined && !state.answered && state.step === params.step
    },
    answered: ({ event }, params: { outcome: keyof typeof OUTCOMES }) => {
      const state = decidedState(event)
      return state !== undefined && state.answered && outcomeOf(state) === params.outcome
    },
  },
}).createMachine({
  id: 'toolCall',
  initial: 'parse',
  context: ({ input }) => input.state,
  states: {
    ...stepStates(),
    succeeded: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
})

/**
 * The nine step states. The call starts in parse, whose entry runs its steps (`run`: every step
 * that answers at once runs in turn, each deciding its events); the machine then moves, on one
 * `decided`, to the step where the call rests waiting for an answer — a hook, a prompt, the tool,
 * a save — or to the final state its result names. The answer runs the steps on from there the
 * same way. Steps that never wait (parse, map, emit) are passed through in the same move; a
 * `decided` that names any other step is a bug.
 */
function stepStates() {
  const states = {} as Record<Step, ReturnType<typeof stepState>>
  for (const step of STEPS) states[step] = stepState(step)
  return states
}

function stepState(step: Step) {
  const row = STEP_TABLE[step]
  return {
    description: row.waits ? `${row.doing}: rests here until answered` : `${row.doing}: answers at once`,
    ...(step === 'parse' ? { entry: { type: 'run', params: { step } } as const } : {}),
    on: {
      decided: [
        ...restsFrom(step).map((to) => ({
          guard: { type: 'at', params: { step: to } } as const,
          target: to,
          actions: 'fold' as const,
        })),
        ...(['success', 'error', 'cancelled'] as const).map((outcome) => ({
          guard: { type: 'answered', params: { outcome } } as const,
          target: `#toolCall.${OUTCOMES[outcome]}`,
          actions: 'fold' as const,
        })),
        { actions: 'illegal' as const },
      ],
      ...(row.waits ? { abort: { actions: 'interrupt' as const } } : {}),
      ...(step === 'permission' ? { answer: { actions: 'answer' as const } } : {}),
    },
  }
}

/**
 * The steps a call in `step` can rest in next: those that wait, reached through the table's
 * `next` — the step itself only where a call parks there (permission: waiting for a person).
 */
function restsFrom(step: Step): Step[] {
  const seen = new Set<Step>()
  const visit = (from: Step): void => {
    for (const to of STEP_TABLE[from].next) {
      if (seen.has(to)) continue
      seen.add(to)
      visit(to)
    }
  }
  visit(step)
  return STEPS.filter((s) => seen.has(s) && STEP_TABLE[s].waits && (s !== step || STEP_TABLE[s].parks))
}

export type ToolCallMachine = typeof toolCallMachine
