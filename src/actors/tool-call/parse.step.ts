/** The parse step: find the tool by name or alias; the input must be a JSON object. */
import type { Failure, ToolCallContext } from '../../machines/tool-call.types.js'
import * as text from '../../tools/result-text.js'
import { guarded } from '../../util/guarded.js'
import type { StepArgs } from './call-env.js'
import { hintFor } from './validate.step.js'
import { decidesAtOnce } from './at-once.js'

/**
 * Finds the tool and checks the input is an object. Changes the context only for what guards
 * must see: a failure, or steps that differ from the common case (hooks, validateInput, a tool
 * that cancels on interrupt).
 */
export function parseStep({ context, env }: StepArgs): Partial<ToolCallContext> | undefined {
  // Parse is the first step: the only failure before it is the scheduler's (a voided call).
  if (env.voided !== undefined) return { failure: env.voided }
  const { registry, hooks } = env.services
  const tool = registry.find(env.name)
  if (tool === undefined)
    return fail(
      'unknown_tool',
      // Only tools the model may use are suggested: a tool denied outright is never named.
      text.unknownToolText(env.name, env.services.offeredTools),
    )
  if (!guarded(() => tool.isEnabled(), false)) return fail('tool_disabled', text.disabledToolText(tool.name))
  env.tool = tool
  if (env.inputError !== undefined) return fail('invalid_json', text.invalidJsonText(tool.name, env.inputError))
  if (!isPlainObject(env.rawInput))
    return fail('not_an_object', text.notAnObjectText(tool.name, env.rawInput, hintFor(tool)))
  const steps = {
    customValidation: tool.validateInput !== undefined,
    preHooks: hooks.has('pre', tool, env.toolUseId),
    postHooks: hooks.has('post', tool, env.toolUseId),
  }
  if (!steps.customValidation && !steps.preHooks) env.atOnce = decidesAtOnce(env, tool)
  const interrupt = guarded(() => tool.interruptBehavior(), 'block') === 'cancel' ? 'cancel' : 'block'
  if (!steps.customValidation && !steps.preHooks && !steps.postHooks && interrupt === context.interrupt)
    return undefined
  return { steps, interrupt }
}

function fail(code: Failure['code'], message: string): { failure: Failure } {
  return { failure: { step: 'parse', code, message } }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
