/** The parse step: find the tool by name or alias; the input must be a JSON object. */
import type { Failure } from '../../events/tool-call.steps.js'
import * as text from '../../tools/result-text.js'
import { guarded } from '../../util/guarded.js'
import { idsOf, type Decided, type StepFn } from './call-scope.js'
import { hintFor, rejected } from './validate.step.js'

/**
 * Finds the tool and checks the input is an object; records which hook steps apply, so the
 * call's state (and a replay) walks the same steps. A call the scheduler voided before it
 * started is cancelled here: parse is the first step.
 */
export const parseStep: StepFn = (call, state) => {
  // Cancelled before it started: the turn's reason (an abort, a stop reason, a failed sibling).
  if (call.voided !== undefined)
    return { events: [{ type: 'tool.cancelled', ...idsOf(call), step: 'parse', reason: call.voided }] }
  const { registry, hooks } = call.services
  const tool = registry.find(state.name)
  // Only tools the model may use are suggested: a tool denied outright is never named.
  if (tool === undefined)
    return reject(call, 'unknown_tool', text.unknownToolText(state.name, call.services.offeredTools))
  if (!guarded(() => tool.isEnabled(), false)) return reject(call, 'tool_disabled', text.disabledToolText(tool.name))
  if (call.inputError !== undefined)
    return reject(call, 'invalid_json', text.invalidJsonText(tool.name, call.inputError))
  if (!isPlainObject(state.input))
    return reject(call, 'not_an_object', text.notAnObjectText(tool.name, state.input, hintFor(tool)))
  const pre = hooks.has('pre', tool, call.toolUseId)
  const post = hooks.has('post', tool, call.toolUseId)
  const parsed = { type: 'tool.parsed' as const, ...idsOf(call), tool: tool.name }
  return { events: [pre || post ? { ...parsed, hooks: { pre, post } } : parsed] }
}

function reject(call: Parameters<StepFn>[0], code: Failure['code'], message: string): Decided {
  return rejected(call, { step: 'parse', code, message })
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
