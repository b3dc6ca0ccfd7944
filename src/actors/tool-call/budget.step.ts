/** The budget step as the machine runs it: persist the oversize output, keep a preview. */
import { toolResultBlock } from '../../events/event.schema.js'
import type { ToolCallEvent } from '../../machines/tool-call.types.js'
import { claimBudget, previewOf, textOf } from '../turn/budget.js'
import type { Tool } from '../../tools/tool.types.js'
import { mapOutput } from './map.step.js'
import { attempt, type CallEnv, type StepArgs } from './call-env.js'
import { describeError } from '../../tools/result-text.js'

export function runBudgetStep({ self, env }: StepArgs): ToolCallEvent | undefined {
  if (env.mapped === undefined || !('block' in env.mapped)) return { type: 'budget.done' }
  const text = textOf(env.mapped.block)
  return attempt(
    self,
    () => env.services.results.save({ turnId: env.turnId, toolUseId: env.toolUseId }, text),
    (path) => {
      env.persisted = { path, chars: text.length }
      keepPreview(env, env.toolUseId, path)
      return { type: 'budget.done' }
    },
    (error) => {
      keepPreview(env, env.toolUseId, undefined, describeError(error))
      return { type: 'budget.done' }
    },
  )
}

/** The budget step interrupted before the save finished: keep a preview that says it was not saved. */
export function abandonBudgetStep({ env }: StepArgs): void {
  if (env.persisted === undefined)
    keepPreview(env, env.toolUseId, undefined, 'the turn was interrupted before it was saved')
}

/** Replaces the oversize block with its preview, which is what the turn's message now carries. */
function keepPreview(env: CallEnv, toolUseId: string, path: string | undefined, saveError?: string): void {
  if (env.mapped === undefined || !('block' in env.mapped)) return
  const original = env.mapped.block
  const room = Math.max(0, env.budget.limit - env.budget.used)
  const preview = previewOf(textOf(original), path, saveError, room)
  env.mapped = { block: toolResultBlock(toolUseId, preview, original.is_error === true) }
  env.budget.used += preview.length
}

/**
 * The call's `call.done`: whether the budget step follows, and whether the output already mapped
 * to a non-empty block (then the map step cannot fail, and the machine maps and emits at once).
 */
export function callDone(env: CallEnv, tool: Tool, toolUseId: string): ToolCallEvent {
  const overBudget = measureForBudget(env, tool, toolUseId)
  const content = env.mapped !== undefined && 'block' in env.mapped ? env.mapped.block.content : ''
  const mapped = content.length > 0
  return mapped ? { type: 'call.done', overBudget, mapped } : { type: 'call.done', overBudget }
}

/**
 * Maps the output to its block once, as the call ends, and claims its share of the turn's budget:
 * whether the budget step runs is decided here because the call's own event records it (the
 * output goes to the result store, not the log). A mapper that throws is kept for the map step.
 */
export function measureForBudget(env: CallEnv, tool: Tool, toolUseId: string): boolean {
  try {
    const block = mapOutput(tool, env.output, toolUseId)
    env.mapped = { block }
    return claimBudget(env.budget, textOf(block).length, tool.maxResultSizeChars)
  } catch (error) {
    env.mapped = { error }
    return false
  }
}
