/**
 * Records each step as an event when the machine leaves it: the step's outcome, derived from
 * the machine context and the call's environment. The log is the only record of what happened.
 */
import type { KernelEventInput, Step } from '../../events/event.schema.js'
import type { HookOutcome } from '../../hooks/hook-runner.js'
import { STEP_TABLE } from '../../events/tool-call.steps.js'
import { failureOfEvent } from '../../machines/tool-call.machine.js'
import type { ToolCallEvent } from '../../machines/tool-call.types.js'
import type { StepArgs } from './call-env.js'

export function recordStep(
  { context, env, event }: StepArgs & { event: ToolCallEvent },
  { step }: { step: Step },
): void {
  const log = env.services.log
  const ids = { turnId: env.turnId, toolUseId: env.toolUseId }
  // Exit actions run before the transition's assigns: what the event brings is not in context yet.
  // Only the steps that wait for an event take their failure from it; later steps left in the
  // same macrostep (map, emit) still see that event and must not.
  const row = STEP_TABLE[step]
  const failure = context.failure ?? (row.waits ? failureOfEvent(event, step) : null)
  // On the machine's short lane no `permission.done` event carries the decision: the call's environment does.
  const decision = event.type === 'permission.done' ? event.decision : env.decision
  if (step === 'permission' && decision !== undefined) log.append({ type: 'tool.permitted', ...ids, ...decision })
  if (failure !== null && failure.step === step) {
    const cancelled = failure.code === 'cancelled' || failure.code === 'interrupted'
    if (cancelled) log.append({ type: 'tool.cancelled', ...ids, step, reason: failure.message })
    else if (row.failure === 'tool.errored') {
      const errorClass = failure.errorClass === undefined ? {} : { errorClass: failure.errorClass }
      log.append({ type: 'tool.errored', ...ids, message: failure.message, ...errorClass })
    } else if (row.failure === 'tool.rejected') {
      log.append({ type: 'tool.rejected', ...ids, step, code: failure.code, message: failure.message })
    }
    if (step === 'preHook' && env.hooks.pre !== undefined) log.append(hookedEvent(ids, 'pre', env.hooks.pre))
    // A failure the step's own closing event records (map: `tool.mapped` with isError) goes on below.
    if (row.failure !== 'tool.mapped') return
  }
  switch (step) {
    case 'parse': {
      const { preHooks, postHooks } = context.steps
      const parsed = { type: 'tool.parsed' as const, ...ids, tool: env.tool?.name ?? env.name }
      log.append(preHooks || postHooks ? { ...parsed, hooks: { pre: preHooks, post: postHooks } } : parsed)
      return
    }
    case 'validate':
      log.append({ type: 'tool.validated', ...ids })
      return
    case 'preHook':
    case 'postHook': {
      const phase = step === 'preHook' ? 'pre' : 'post'
      log.append(hookedEvent(ids, phase, env.hooks[phase]))
      return
    }
    case 'call':
      // Output that goes to the result store is kept there, not in the log: the budget event names the file.
      log.append(
        event.type === 'call.done' && event.overBudget
          ? { type: 'tool.completed', ...ids, persisted: true }
          : { type: 'tool.completed', ...ids, output: env.output },
      )
      return
    case 'budget':
      if (env.persisted !== undefined) log.append({ type: 'tool.budgeted', ...ids, ...env.persisted })
      return
    case 'map':
      log.append({ type: 'tool.mapped', ...ids, isError: env.block?.is_error === true })
      return
    default:
      return
  }
}

function hookedEvent(
  ids: { turnId: string; toolUseId: string },
  phase: 'pre' | 'post',
  outcome: HookOutcome | undefined,
): KernelEventInput {
  const event: KernelEventInput & { type: 'tool.hooked' } = {
    type: 'tool.hooked',
    ...ids,
    phase,
    outcome: outcome?.outcome ?? 'continue',
  }
  if (outcome === undefined) return event
  if (outcome.reason !== undefined) event.reason = outcome.reason
  if (outcome.decision !== undefined) event.decision = outcome.decision
  if (outcome.updatedInput !== undefined) event.updatedInput = outcome.updatedInput
  if (outcome.additionalContext !== undefined) event.additionalContext = outcome.additionalContext
  if (outcome.systemMessages.length > 0 || outcome.errors.length > 0)
    event.systemMessages = [...outcome.systemMessages, ...outcome.errors.map((e) => `hook error: ${e}`)]
  return event
}

export function recordStart({ context, env }: StepArgs): void {
  env.services.log.append({
    type: 'tool.started',
    turnId: env.turnId,
    toolUseId: env.toolUseId,
    interrupt: context.interrupt,
  })
}
