/**
 * What the pre-hook and post-hook steps share: the hooks' combined outcome as its `tool.hooked`
 * event. Each step has its own file (pre-hook.step.ts, post-hook.step.ts).
 */
import type { KernelEventInput } from '../../events/event.schema.js'
import type { HookOutcome } from '../../hooks/hook-runner.js'
import { idsOf, type CallScope } from './call-scope.js'

export function hookedEvent(
  call: CallScope,
  phase: 'pre' | 'post',
  outcome: HookOutcome | undefined,
): KernelEventInput {
  const event: KernelEventInput & { type: 'tool.hooked' } = {
    type: 'tool.hooked',
    ...idsOf(call),
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

/** The hook runner itself failed: its error, as an outcome of the phase. */
export function runnerFailed(error: string, block?: string): HookOutcome {
  const errors = [`the hook runner failed: ${error}`]
  return block === undefined
    ? { outcome: 'continue', systemMessages: [], errors }
    : { outcome: 'block', reason: block, systemMessages: [], errors }
}
