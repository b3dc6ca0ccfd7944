/** The post-hook step: PostToolUse (after success) or PostToolUseFailure hooks may add context. */
import type { HookOutcome, HookRequest } from '../../hooks/hook-runner.js'
import type { Carry } from '../../machines/tool-call.types.js'
import { describeError } from '../../tools/result-text.js'
import { attempt, controllerOf, toolOf, withContext, type CallScope, type Decided, type StepFn } from './call-scope.js'
import { hookedEvent, runnerFailed } from './hooks.js'
import { acceptedInput } from './validate.step.js'

export const postHookStep: StepFn = (call, state, carry) => {
  const tool = toolOf(call, state)
  const request: HookRequest = {
    phase: 'post',
    turnId: call.turnId,
    toolUseId: call.toolUseId,
    tool,
    input: acceptedInput(call, tool, state, carry),
  }
  if (state.failure === null) request.response = carry.output
  else {
    request.error = state.failure.message
    request.isInterrupt = state.failure.code === 'interrupted' || state.failure.code === 'cancelled'
  }
  return attempt(
    () => call.services.hooks.run(request, controllerOf(call).signal),
    (outcome) => posted(call, carry, outcome),
    // After the call there is nothing left to block: the failure is noted and the result stands.
    (error) => posted(call, carry, runnerFailed(describeError(error))),
  )
}

/** The block with what the hooks added, and their `tool.hooked`. */
export function posted(call: CallScope, carry: Carry, outcome: HookOutcome | undefined): Decided {
  const context = outcome?.additionalContext
  const block = context === undefined || carry.block === undefined ? carry.block : withContext(carry.block, [context])
  return { events: [hookedEvent(call, 'post', outcome)], carry: block === undefined ? carry : { ...carry, block } }
}
