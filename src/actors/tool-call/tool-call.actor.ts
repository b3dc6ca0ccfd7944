/**
 * Runs one tool-call actor: the machine from src/machines with the kernel's step
 * implementations provided, an environment bound to it, and a guarantee that the call ends with
 * exactly one `tool.result` event whatever fails.
 */
import { createActor, type AnyActorRef } from 'xstate'
import { toolResultBlock, type Step } from '../../events/event.schema.js'
import { toolCallMachine } from '../../machines/tool-call.machine.js'
import type { Failure, ToolCallContext, ToolCallEvent, ToolCallInput } from '../../machines/tool-call.types.js'
import { CallEnvs, resolved, type CallEnv, type CallServices } from './call-env.js'
import { abandonBudgetStep, runBudgetStep } from './budget.step.js'
import { abortCallStep, runCallStep } from './call.step.js'
import { emitStep } from './emit.step.js'
import { mapResultStep } from './map.step.js'
import { parseStep } from './parse.step.js'
import { runPermissionStep } from './permission.step.js'
import { runPostHooksStep } from './post-hook.step.js'
import { runPreHooksStep } from './pre-hook.step.js'
import { runValidateInputStep, validateSchemaStep } from './validate.step.js'
import type { TurnBudget } from '../turn/budget.js'
import { recordStart, recordStep } from './record-step.js'
import { runPermissionAtOnceStep } from './at-once.js'
import { describeError } from '../../tools/result-text.js'
import type { Tool } from '../../tools/tool.types.js'

export interface CallRequest {
  turnId: string
  toolUseId: string
  index: number
  name: string
  input: unknown
  /** Why the input could not be read (stream intake: malformed or truncated JSON). */
  inputError?: string
  /** Set to end the call without running it (abort before start, a stop reason, a failed sibling). */
  voided?: Failure
  /** The turn's message budget, shared by its calls. */
  budget: TurnBudget
  /**
   * The tool and its schema-validated input, as the turn's safety check found them: parse uses
   * them to predict the short lane instead of running the schema again, if the name still finds
   * the same tool.
   */
  validated?: { tool: Tool; input: unknown }
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
}

const NOT_FAILED: CallOutcome = Object.freeze({ toolFailed: false })
const FAILED: CallOutcome = Object.freeze({ toolFailed: true })

/**
 * The machine with the kernel's step implementations, and the registry of its calls'
 * environments. Built once per kernel.
 */
export function provideToolCallMachine() {
  const envs = new CallEnvs()
  const machine = toolCallMachine.provide({
    actions: {
      parse: envs.assigning(parseStep),
      validateSchema: envs.assigning(resolved(validateSchemaStep)),
      runValidateInput: envs.raising(resolved(runValidateInputStep)),
      runPreHooks: envs.raising(resolved(runPreHooksStep)),
      runPermission: envs.raising(resolved(runPermissionStep)),
      runCall: envs.step(resolved(runCallStep)),
      abortCall: envs.step(abortCallStep),
      runBudget: envs.raising(runBudgetStep),
      abandonBudget: envs.step(abandonBudgetStep),
      mapResult: envs.assigning(mapResultStep),
      emit: envs.step(emitStep),
      runPostHooks: envs.raising(resolved(runPostHooksStep)),
      recordStep: ((
        { context, self, event }: { context: ToolCallContext; self: AnyActorRef; event: ToolCallEvent },
        params: { step: Step },
      ) => recordStep({ context, self, event, env: envs.of(self) }, params)) as never,
      recordStart: envs.step(recordStart),
      runPermissionAtOnce: envs.step(resolved(runPermissionAtOnceStep)),
    },
    guards: {
      // Taken only in the initial macrostep (parse's `always`), whose event is the init event
      // with the call's input: that names the environment, since guards get no `self`.
      decidedAtOnce: ({ event }: { event: unknown }) => {
        const init = event as { type: string; input?: ToolCallInput }
        return init.type === 'xstate.init' && envs.byId(init.input?.callId).atOnce === true
      },
    },
  })
  return { machine, envs }
}

export type ProvidedToolCallMachine = ReturnType<typeof provideToolCallMachine>

/** Starts one call. The returned promise settles once its result is logged. */
export function startToolCall(
  { machine, envs }: ProvidedToolCallMachine,
  services: CallServices,
  request: CallRequest,
): CallHandle {
  const env: CallEnv = {
    services,
    turnId: request.turnId,
    toolUseId: request.toolUseId,
    index: request.index,
    name: request.name,
    voided: request.voided,
    validated: request.validated,
    rawInput: request.input,
    inputError: request.inputError,
    controller: undefined,
    budget: request.budget,
    partial: '',
    partialCut: false,
    progressEvents: 0,
    progressLogged: 0,
    hooks: {},
    contexts: [],
    emitted: false,
  }
  const { callId, unbind } = envs.bind(env)
  const input: ToolCallInput = {
    turnId: request.turnId,
    toolUseId: request.toolUseId,
    index: request.index,
    name: request.name,
    callId,
  }
  // A bug in a step: still answer the tool_use, and say where it broke.
  const failInternally = (error: unknown): void => {
    if (!env.emitted) {
      env.emitted = true
      const content = `toolkernel failed internally while running this call (${describeError(error)}); it may or may not have run.`
      services.log.append({
        type: 'tool.result',
        turnId: request.turnId,
        toolUseId: request.toolUseId,
        outcome: 'error',
        block: toolResultBlock(request.toolUseId, content, true),
      })
    }
    unbind()
  }
  // XState never throws out of createActor: an error in the initial step comes to `error` below.
  const actor = createActor(machine, { input, id: callId })
  const done = settleOnce()
  actor.subscribe({
    complete: () => {
      unbind()
      const failure = actor.getSnapshot().context.failure
      done.settle(failure?.step === 'call' && failure.code === 'tool_error' ? FAILED : NOT_FAILED)
    },
    error: (error: unknown) => {
      failInternally(error)
      done.settle(NOT_FAILED)
    },
  })
  actor.start()
  return {
    onDone: done.onDone,
    abort: (reason: string, force = false) => {
      env.abortRequested ??= reason
      const started = env.started === true
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'abort', reason, force, started })
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
