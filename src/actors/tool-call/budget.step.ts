/** The budget step: persist the oversize output, hand on a preview (head and tail) instead. */
import { toolResultBlock } from '../../events/event.schema.js'
import type { Carry } from '../../machines/tool-call.types.js'
import { previewOf, textOf } from '../turn/budget.js'
import { describeError } from '../../tools/result-text.js'
import { attempt, idsOf, type CallScope, type Decided, type StepFn } from './call-scope.js'

export const budgetStep: StepFn = (call, _state, carry) => {
  const text = textOfCarry(call, carry)
  return attempt(
    () => call.services.results.save(idsOf(call), text),
    (path) => budgeted(call, carry, text, path),
    (error) => budgeted(call, carry, text, undefined, describeError(error)),
  )
}

/** The budget step interrupted before the save finished: a preview that says it was not saved. */
export function abandonBudget(call: CallScope, carry: Carry): Decided {
  return budgeted(call, carry, textOfCarry(call, carry), undefined, 'the turn was interrupted before it was saved')
}

function textOfCarry(call: CallScope, carry: Carry): string {
  if (carry.block === undefined) throw new Error(`tool call ${call.toolUseId}: the budget step has no output to save`)
  return textOf(carry.block)
}

/** The saved output's record, and the preview the turn's message now carries. */
function budgeted(call: CallScope, carry: Carry, text: string, path: string | undefined, error?: string): Decided {
  const original = carry.block
  const room = Math.max(0, call.budget.limit - call.budget.used)
  const preview = previewOf(text, path, error, room)
  call.budget.used += preview.length
  const block = toolResultBlock(call.toolUseId, preview, original?.is_error === true)
  const where = path === undefined ? { error: error ?? 'not saved' } : { path }
  return {
    events: [{ type: 'tool.budgeted', ...idsOf(call), ...where, chars: text.length }],
    carry: { ...carry, block },
  }
}
