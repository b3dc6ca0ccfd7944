/**
 * The emit step: the call's one `tool.result` joins the log, which is what the turn's message
 * is projected from (in `tool_use` order, by the messages projection).
 */
import type { StepArgs } from './call-env.js'

export function emitStep({ context, env }: StepArgs): void {
  const failure = context.failure
  const cancelled = failure !== null && (failure.code === 'cancelled' || failure.code === 'interrupted')
  const outcome = failure === null ? 'success' : cancelled ? 'cancelled' : 'error'
  if (env.block !== undefined) {
    const ids = { turnId: env.turnId, toolUseId: env.toolUseId }
    env.services.log.append({ type: 'tool.result', ...ids, outcome, block: env.block })
  }
  env.emitted = true
}
