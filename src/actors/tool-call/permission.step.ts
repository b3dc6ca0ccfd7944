/** The permission step: rules, mode, the hooks' say, grants, the tool's check and the app's prompt. */
import type { KernelEventInput } from '../../events/event.schema.js'
import type { PermissionVerdict } from '../../permissions/policy.js'
import * as text from '../../tools/result-text.js'
import type { Tool } from '../../tools/tool.types.js'
import { attempt, idsOf, toolContextOf, toolOf, type CallScope, type Decided, type StepFn } from './call-scope.js'
import { acceptedInput, checkSchema, rejected } from './validate.step.js'

/**
 * The decision (`tool.permitted`), then, for anything but an allow, the rejection. Input the tool
 * or the app replaced is validated again. A synchronous verdict (the common case) decides at once.
 */
export const permissionStep: StepFn = (call, state, carry) => {
  const tool = toolOf(call, state)
  const input = acceptedInput(call, tool, state, carry)
  const hookSay = state.hookSay ?? undefined
  return attempt(
    () => call.services.permissions.decide(tool, input, toolContextOf(call), hookSay),
    (verdict) => decided(call, tool, verdict, input),
    (error) => {
      const reason = text.describeError(error)
      const permitted: KernelEventInput = {
        type: 'tool.permitted',
        ...idsOf(call),
        behavior: 'deny',
        source: 'tool',
        reason,
      }
      const message = text.permissionDeniedText(tool.name, `the permission check failed (${reason})`)
      return {
        events: [permitted, ...rejected(call, { step: 'permission', code: 'permission_denied', message }).events],
      }
    },
  )
}

function decided(call: CallScope, tool: Tool, verdict: PermissionVerdict, input: unknown): Decided {
  const permitted: KernelEventInput & { type: 'tool.permitted' } = {
    type: 'tool.permitted',
    ...idsOf(call),
    behavior: verdict.behavior,
    source: verdict.source,
  }
  if (verdict.reason !== undefined) permitted.reason = verdict.reason
  if (verdict.updatedInput !== undefined) permitted.updatedInput = verdict.updatedInput
  if (verdict.behavior !== 'allow') {
    const message = text.permissionDeniedText(tool.name, verdict.reason ?? 'no reason given')
    return { events: [permitted, ...rejected(call, { step: 'permission', code: 'permission_denied', message }).events] }
  }
  if (verdict.updatedInput === undefined) return { events: [permitted], carry: { input } }
  const checked = checkSchema(tool, verdict.updatedInput)
  if (!checked.ok) return { events: [permitted, ...rejected(call, { ...checked.failure, step: 'permission' }).events] }
  return { events: [permitted], carry: { input: checked.input } }
}
