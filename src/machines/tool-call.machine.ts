/**
 * The tool-call machine: one actor per `tool_use`, walking the nine steps of DESIGN §2.
 *
 * Pure structure. Every effect is a named action that the kernel provides
 * (src/actors/tool-call.actor.ts); the defaults here only say that they were not provided.
 * Guards read only context and events, so the same machine decides the same way in replay —
 * except `decidedAtOnce`, which the kernel provides: it reads what parse worked out for the call
 * (never runs anything), and the kernel decides it the same way when it re-executes a log.
 *
 * Sync steps (parse, schema validation, map) compute in their entry action; async-capable steps
 * (validateInput, hooks, permission, call, budget) start their work in an entry action and wait
 * for its `*.done` event — raised at once when the answer is synchronous — so a call costs one
 * actor and no child actors. Context changes only where a guard needs them (`failure`, what
 * parse learned), because each assign copies the snapshot. Each step records its event when
 * the machine leaves it, whichever way it is left.
 *
 * Each microstep costs about as much as a small actor, so the happy path takes two: parse →
 * call when validation and permission answer at once (`decidedAtOnce`), and call → succeeded
 * when the output is already mapped (`mappedCleanly`). Those transitions run the same step
 * actions in the same order as the long way round, so the log is the same event for event;
 * every other case walks the states one by one.
 */
import { assign, setup } from 'xstate'
import type { Step } from '../events/event.schema.js'
import type { Failure, ToolCallContext, ToolCallEvent, ToolCallInput } from './tool-call.types.js'

const missing = (name: string) => (): never => {
  throw new Error(`toolCallMachine: "${name}" must be provided by the kernel (machine.provide)`)
}

/**
 * The failure an event brings to a step: its own `failure`, or for `abort` a cancellation
 * (an interruption once the tool has started). Shared by the machine's assign and by the step
 * recorder, which runs on exit — before the transition's assign.
 */
export function failureOfEvent(event: ToolCallEvent, step: Step): Failure | null {
  if (event.type === 'abort')
    return {
      step,
      code: step === 'call' && event.started !== false ? 'interrupted' : 'cancelled',
      message: event.reason,
    }
  return 'failure' in event && event.failure !== undefined ? event.failure : null
}

/** Every call's context until a step assigns: frozen, so an assign can only ever copy it. */
export const INITIAL_CONTEXT: ToolCallContext = Object.freeze({
  failure: null,
  interrupt: 'block',
  steps: Object.freeze({ customValidation: false, preHooks: false, postHooks: false }),
})

const record = (step: Step) => ({ type: 'recordStep', params: { step } }) as const
const failAt = (step: Step) => ({ type: 'assignFailure', params: { step } }) as const

export const toolCallMachine = setup({
  types: {
    context: {} as ToolCallContext,
    input: {} as ToolCallInput,
    events: {} as ToolCallEvent,
  },
  actions: {
    parse: missing('parse'),
    validateSchema: missing('validateSchema'),
    runValidateInput: missing('runValidateInput'),
    runPreHooks: missing('runPreHooks'),
    runPermission: missing('runPermission'),
    runCall: missing('runCall'),
    abortCall: missing('abortCall'),
    runBudget: missing('runBudget'),
    abandonBudget: missing('abandonBudget'),
    mapResult: missing('mapResult'),
    emit: missing('emit'),
    runPostHooks: missing('runPostHooks'),
    recordStep: missing('recordStep') as (args: unknown, params: { step: Step }) => void,
    recordStart: missing('recordStart'),
    runPermissionAtOnce: missing('runPermissionAtOnce'),
    assignFailure: assign(({ event, context }, params: { step: Step }) => ({
      failure: failureOfEvent(event, params.step) ?? context.failure,
    })),
  },
  guards: {
    /**
     * The short lane (provided by the kernel): parse found that schema validation and permission
     * pass at once, so the call goes from parse to call in one microstep, recording both steps on
     * the way. It reads only what parse worked out, never runs anything. Here: never, so the
     * machine alone walks every step.
     */
    decidedAtOnce: () => false,
    // The call's output already mapped to a non-empty block and nothing follows: map and emit
    // run as the actions of one transition to succeeded.
    mappedCleanly: ({ context, event }) =>
      event.type === 'call.done' &&
      event.mapped === true &&
      !event.overBudget &&
      context.failure === null &&
      !context.steps.postHooks,
    failed: ({ context }) => context.failure !== null,
    eventFailed: ({ event }) => 'failure' in event && event.failure !== undefined,
    interruptible: ({ context, event }) =>
      context.interrupt === 'cancel' || (event.type === 'abort' && event.force === true),
    cancelledOutcome: ({ context }) => context.failure?.code === 'cancelled' || context.failure?.code === 'interrupted',
    hasCustomValidation: ({ context }) => context.steps.customValidation,
    hasPreHooks: ({ context }) => context.steps.preHooks,
    // Post-hooks follow a call that ran (PostToolUse) or failed while running (PostToolUseFailure),
    // not one that never started (cancelled at call: interrupted or refused at its fence).
    hasPostHooks: ({ context }) =>
      context.steps.postHooks &&
      (context.failure === null ||
        (context.failure.step === 'call' && context.failure.code !== 'cancelled') ||
        context.failure.step === 'map'),
    overBudget: ({ event }) => event.type === 'call.done' && event.overBudget,
  },
}).createMachine({
  id: 'toolCall',
  initial: 'parse',
  // Static, not built from input: a context factory is resolved as an assign (one more snapshot
  // per call). The call's ids are the kernel's (its environment for the call), not the chart's.
  context: INITIAL_CONTEXT,
  states: {
    parse: {
      entry: 'parse',
      exit: record('parse'),
      always: [
        { guard: 'failed', target: 'map' },
        {
          guard: 'decidedAtOnce',
          target: 'call',
          actions: [record('validate'), 'runPermissionAtOnce', record('permission')],
        },
        { target: 'validate' },
      ],
    },
    validate: {
      entry: 'validateSchema',
      // Recorded on the way out, except into validateInput, which records the step when it ends.
      always: [
        { guard: 'failed', target: 'map', actions: record('validate') },
        { guard: 'hasCustomValidation', target: 'validateInput' },
        { guard: 'hasPreHooks', target: 'preHook', actions: record('validate') },
        { target: 'permission', actions: record('validate') },
      ],
    },
    // The second half of validate: the tool's own validateInput, which may be async.
    validateInput: {
      entry: 'runValidateInput',
      exit: record('validate'),
      on: {
        'validateInput.done': [
          { guard: 'eventFailed', target: 'map', actions: failAt('validate') },
          { guard: 'hasPreHooks', target: 'preHook' },
          { target: 'permission' },
        ],
        abort: { target: 'map', actions: [failAt('validate'), 'abortCall'] },
      },
    },
    preHook: {
      entry: 'runPreHooks',
      exit: record('preHook'),
      on: {
        'preHook.done': [{ guard: 'eventFailed', target: 'map', actions: failAt('preHook') }, { target: 'permission' }],
        abort: { target: 'map', actions: [failAt('preHook'), 'abortCall'] },
      },
    },
    permission: {
      entry: 'runPermission',
      exit: record('permission'),
      on: {
        'permission.done': [{ guard: 'eventFailed', target: 'map', actions: failAt('permission') }, { target: 'call' }],
        abort: { target: 'map', actions: [failAt('permission'), 'abortCall'] },
      },
    },
    call: {
      entry: ['recordStart', 'runCall'],
      exit: record('call'),
      on: {
        'call.done': [
          { guard: 'overBudget', target: 'budget' },
          // The happy path's second half in one microstep: the same actions map and emit run.
          { guard: 'mappedCleanly', target: 'succeeded', actions: ['mapResult', record('map'), 'emit'] },
          { target: 'map' },
        ],
        'call.failed': { target: 'map', actions: failAt('call') },
        abort: { guard: 'interruptible', target: 'map', actions: [failAt('call'), 'abortCall'] },
      },
    },
    budget: {
      entry: 'runBudget',
      exit: record('budget'),
      // Interrupted while saving: the model still gets a preview (never the whole output), without a path.
      on: { 'budget.done': 'map', abort: { target: 'map', actions: 'abandonBudget' } },
    },
    map: {
      entry: 'mapResult',
      exit: record('map'),
      always: [{ guard: 'hasPostHooks', target: 'postHook' }, { target: 'emit' }],
    },
    postHook: {
      entry: 'runPostHooks',
      exit: record('postHook'),
      on: { 'postHook.done': 'emit', abort: 'emit' },
    },
    emit: {
      entry: 'emit',
      always: [
        { guard: 'cancelledOutcome', target: 'cancelled' },
        { guard: 'failed', target: 'failed' },
        { target: 'succeeded' },
      ],
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
})

export type ToolCallMachine = typeof toolCallMachine
