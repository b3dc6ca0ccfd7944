/** The pre-hook step: PreToolUse hooks may block, ask, allow, rewrite the input or add context. */
import type { HookOutcome } from '../../hooks/hook-runner.js'
import type { Carry } from '../../machines/tool-call.types.js'
import { describeError, hookBlockedText } from '../../tools/result-text.js'
import type { Tool } from '../../tools/tool.types.js'
import { attempt, controllerOf, toolOf, type CallScope, type Decided, type StepFn } from './call-scope.js'
import { hookedEvent, runnerFailed } from './hooks.js'
import { acceptedInput, checkSchema, rejected } from './validate.step.js'

export const preHookStep: StepFn = (call, state, carry) => {
  const tool = toolOf(call, state)
  const input = acceptedInput(call, tool, state, carry)
  const request = { phase: 'pre' as const, turnId: call.turnId, toolUseId: call.toolUseId, tool, input }
  return attempt(
    () => call.services.hooks.run(request, controllerOf(call).signal),
    (outcome) => applyPre(call, tool, outcome, input),
    (error) => {
      // Hooks are how an app checks calls, and a check that did not happen is not a pass (fail closed).
      const reason = `the hook runner failed (${describeError(error)}), so the hooks could not check the call and it did not run`
      return blocked(call, tool, runnerFailed(describeError(error), reason), reason)
    },
  )
}

function applyPre(call: CallScope, tool: Tool, outcome: HookOutcome, input: unknown): Decided {
  if (outcome.outcome === 'block') return blocked(call, tool, outcome, outcome.reason ?? 'no reason given')
  let carry: Carry = { input }
  if (outcome.updatedInput !== undefined) {
    // A hook cannot smuggle in a field the schema forbids: rewritten input is validated again.
    const checked = checkSchema(tool, outcome.updatedInput)
    if (!checked.ok) {
      const message = `A PreToolUse hook rewrote the input into one ${tool.name} does not accept, so the call did not run. ${checked.failure.message}`
      const failure = { ...checked.failure, step: 'preHook' as const, message }
      return { events: [...rejected(call, failure).events, hookedEvent(call, 'pre', outcome)] }
    }
    carry = { input: checked.input }
  }
  return { events: [hookedEvent(call, 'pre', outcome)], carry }
}

/** The call stops here: its rejection, then what the hooks said. */
function blocked(call: CallScope, tool: Tool, outcome: HookOutcome, reason: string): Decided {
  const failure = {
    step: 'preHook' as const,
    code: 'hook_blocked' as const,
    message: hookBlockedText(tool.name, reason),
  }
  return { events: [...rejected(call, failure).events, hookedEvent(call, 'pre', outcome)] }
}
