/**
 * The short lane of the tool-call machine: a call whose validation and permission answer at once
 * goes from parse to call in one microstep (`decidedAtOnce`). Parse predicts it here without
 * running anything that could be seen: the schema check is pure, and the policy's preview
 * answers without the tool's code or a prompt. The permission step then runs for real, in the
 * transition, and is recorded as usual.
 */
import type { PermissionDecision } from '../../machines/tool-call.types.js'
import { allowByDefault } from '../../tools/build-tool.js'
import type { Tool } from '../../tools/tool.types.js'
import type { CallEnv, ResolvedStepArgs } from './call-env.js'
import { runPermissionStep } from './permission.step.js'
import { checkSchema } from './validate.step.js'

/**
 * Whether validate and permission will pass at once: no deferred-tool loading to record, a valid
 * input (kept as the validated input), the tool's default permission check, and a policy that
 * allows without asking. Anything else walks the steps one by one, and validates there.
 */
export function decidesAtOnce(env: CallEnv, tool: Tool): boolean {
  const loader = env.services.registry.loader
  if (loader !== undefined && (loader.outOfMode(tool.name) !== undefined || loader.isUnloaded(tool.name))) return false
  // A tool's own check is its code: it runs once, in the permission step, never to predict.
  if (tool.checkPermissions !== allowByDefault) return false
  // The turn already ran this tool's schema on this input (for its safety check): not twice.
  const checked =
    env.validated?.tool === tool ? { ok: true as const, input: env.validated.input } : checkSchema(tool, env.rawInput)
  if (!checked.ok || env.services.permissions.preview(tool, checked.input) !== 'allow') return false
  env.input = checked.input
  return true
}

/**
 * The permission step on the short lane: the same step, which must answer at once with an
 * allow, kept for the step's record. Anything else means the prediction was wrong — a bug,
 * which fails the call rather than running it without a decision.
 */
export function runPermissionAtOnceStep(args: ResolvedStepArgs): void {
  const event = runPermissionStep(args)
  if (event?.type !== 'permission.done' || event.failure !== undefined || event.decision.behavior !== 'allow')
    throw new Error(`tool call ${args.env.toolUseId}: permission did not allow at once as parse predicted`)
  args.env.decision = event.decision satisfies PermissionDecision
}
