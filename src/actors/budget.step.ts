/** The budget step as the machine runs it: persist the oversize output, keep a preview. */
import type { ToolCallEvent } from '../machines/tool-call.types.js'
import { previewOf, textOf } from './budget.js'
import { attempt, type StepArgs } from './call-env.js'
import { describeError } from './result-text.js'

export function runBudgetStep({ context, self, env }: StepArgs): ToolCallEvent | undefined {
  if (env.mapped === undefined || !('block' in env.mapped)) return { type: 'budget.done' }
  const original = env.mapped.block
  const text = textOf(original)
  const keep = (preview: string): ToolCallEvent => {
    env.mapped = { block: original.is_error === true ? { type: 'tool_result', tool_use_id: context.toolUseId, content: preview, is_error: true } : { type: 'tool_result', tool_use_id: context.toolUseId, content: preview } }
    env.budget.used += preview.length
    return { type: 'budget.done' }
  }
  return attempt(
    self,
    () => env.services.results.save(context.toolUseId, text),
    (path) => {
      env.persisted = { path, chars: text.length }
      return keep(previewOf(text, path))
    },
    (error) => keep(previewOf(text, undefined, describeError(error))),
  )
}

/** The budget step interrupted before the save finished: keep a preview that says it was not saved. */
export function abandonBudgetStep({ context, env }: StepArgs): void {
  if (env.mapped === undefined || !('block' in env.mapped) || env.persisted !== undefined) return
  const original = env.mapped.block
  const preview = previewOf(textOf(original), undefined, 'the turn was interrupted before it was saved')
  env.mapped = { block: original.is_error === true ? { type: 'tool_result', tool_use_id: context.toolUseId, content: preview, is_error: true } : { type: 'tool_result', tool_use_id: context.toolUseId, content: preview } }
}
