/**
 * The tool-call machine: one actor per `tool_use`, walking the nine steps (docs/design.md, the
 * nine steps).
 *
 * Its context is the call's state, the fold of the call's own events (`advance` in
 * src/events/tool-call.steps.ts), and the events move it: a state's entry runs its step (provided
 * by the kernel as `run`), the step decides events, the kernel appends them and folds them in, and
 * the `decided` event carrying that state takes the machine to the step the state names. So the
 * chart, recovery, inspect and replay read one model of a call; no transition here knows what a
 * step does, and a new step is a state, a step function and a case of `advance`.
 *
 * Pure structure: guards read only the event, every effect is a named action the kernel provides.
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
 * The nine step states, alike: run the step on entry; on `decided`, go where the call's state
 * says — one of the steps the step table says this one leads to (the same step again when it
 * decided part of its work: `call` records the start, then runs the tool), or, from emit, the
 * final state the result names. Anything else is a bug.
 */
function stepStates() {
  const states = {} as Record<Step, ReturnType<typeof stepState>>
  for (const step of STEPS) states[step] = stepState(step)
  return states
}

function stepState(step: Step) {
  const ends = step === 'emit' ? (['success', 'error', 'cancelled'] as const) : []
  return {
    entry: { type: 'run', params: { step } } as const,
    on: {
      decided: [
        ...STEP_TABLE[step].next.map((to) => ({
          guard: { type: 'at', params: { step: to } } as const,
          target: to,
          reenter: true,
          actions: 'fold' as const,
        })),
        ...ends.map((outcome) => ({
          guard: { type: 'answered', params: { outcome } } as const,
          target: `#toolCall.${OUTCOMES[outcome]}`,
          actions: 'fold' as const,
        })),
        { actions: 'illegal' as const },
      ],
      abort: { actions: 'interrupt' as const },
    },
  }
}

export type ToolCallMachine = typeof toolCallMachine
