/**
 * The emit step: the call's one `tool.result` joins the log, which is what the turn's message
 * is projected from (in `tool_use` order, by the messages projection).
 */
import { outcomeOf } from '../../events/tool-call.steps.js'
import { idsOf, type StepFn } from './call-scope.js'

export const emitStep: StepFn = (call, state, carry) => {
  const block = carry.block
  if (block === undefined) throw new Error(`tool call ${call.toolUseId}: emit has no result block`)
  return { events: [{ type: 'tool.result', ...idsOf(call), outcome: outcomeOf(state), block }] }
}
