/** The permission step: rules, mode, the hooks' say, grants, the tool's check and the app's prompt. */
import type { PermissionDecision, ToolCallEvent } from '../../machines/tool-call.types.js'
import * as text from '../../tools/result-text.js'
import { attempt, toolContextOf, type ResolvedStepArgs } from './call-env.js'
import { checkSchema } from './validate.step.js'

/**
 * The permission step. A synchronous verdict (the common case: the tool's own check) is
 * returned for the machine to raise at once; an asynchronous one (a prompt) is sent as
 * `permission.done` when it arrives.
 */
export function runPermissionStep({ self, env, tool }: ResolvedStepArgs): ToolCallEvent | undefined {
  return attempt(
    self,
    () => env.services.permissions.decide(tool, env.input, toolContextOf(env, env.turnId, env.toolUseId), env.hookSay),
    (verdict) => {
      const decision: PermissionDecision = { behavior: verdict.behavior, source: verdict.source }
      if (verdict.reason !== undefined) decision.reason = verdict.reason
      if (verdict.updatedInput !== undefined) decision.updatedInput = verdict.updatedInput
      if (verdict.behavior !== 'allow') {
        const reason = verdict.reason ?? 'no reason given'
        return {
          type: 'permission.done',
          decision,
          failure: {
            step: 'permission',
            code: 'permission_denied',
            message: text.permissionDeniedText(tool.name, reason),
          },
        }
      }
      if (verdict.updatedInput !== undefined) {
        const checked = checkSchema(tool, verdict.updatedInput)
        if (!checked.ok)
          return { type: 'permission.done', decision, failure: { ...checked.failure, step: 'permission' } }
        env.input = checked.input
      }
      return { type: 'permission.done', decision }
    },
    (error) => ({
      type: 'permission.done',
      decision: { behavior: 'deny', source: 'tool', reason: text.describeError(error) },
      failure: {
        step: 'permission',
        code: 'permission_denied',
        message: text.permissionDeniedText(tool.name, `the permission check failed (${text.describeError(error)})`),
      },
    }),
  )
}
