/**
 * The permission step: rules, mode, the hooks' say, grants, the tool's check and the app's prompt
 * — or, for a call parked for a person, their answer (docs/approvals.md).
 */
import type { KernelEventInput } from '../../events/event.schema.js'
import type { Approval, CallState } from '../../events/tool-call.steps.js'
import { fingerprint } from '../../permissions/grants.js'
import type { PermissionVerdict } from '../../permissions/policy.js'
import * as text from '../../tools/result-text.js'
import type { Tool } from '../../tools/tool.types.js'
import { flagsOf } from '../../tools/call-flags.js'
import { attempt, idsOf, toolContextOf, toolOf, type CallScope, type Decided, type StepFn } from './call-scope.js'
import { acceptedInput, checkSchema, rejected } from './validate.step.js'

/**
 * The decision (`tool.permitted`), then, for anything but an allow, the rejection. Input the tool
 * or the app replaced is validated again. A synchronous verdict (the common case) decides at once.
 */
export const permissionStep: StepFn = (call, state, carry) => {
  const tool = toolOf(call, state)
  const input = acceptedInput(call, tool, state, carry)
  if (state.approval !== null) return fromApproval(call, tool, state, state.approval, input)
  const hookSay = state.hookSay ?? undefined
  return attempt(
    () => call.services.permissions.decide(tool, input, toolContextOf(call), hookSay),
    (verdict) => decided(call, tool, state, verdict, input),
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

/**
 * A person's answer to the parked call. It is bound to the digest of the input they were shown:
 * an answer for other input (a log edited, a digest mixed up) denies, whatever it said.
 */
function fromApproval(call: CallScope, tool: Tool, state: CallState, approval: Approval, input: unknown): Decided {
  if (approval.digest !== fingerprint(tool.name, state.input) || approval.digest !== state.pending?.digest) {
    const reason = 'the answer was given for other input than this call has, so it does not count'
    return decided(call, tool, state, { behavior: 'deny', source: 'user', reason }, input)
  }
  const verdict = call.services.permissions.answered(tool, input, approval, toolContextOf(call))
  return decided(call, tool, state, verdict, input)
}

/** A parked call: the exact input the approval is for, its digest, and who asked. */
function parked(call: CallScope, tool: Tool, state: CallState, verdict: PermissionVerdict, input: unknown): Decided {
  const park = verdict.park ?? { suggestions: [] }
  const pending: KernelEventInput = {
    type: 'permission.pending',
    ...idsOf(call),
    tool: tool.name,
    input: state.input,
    digest: fingerprint(tool.name, state.input),
    reason: verdict.reason ?? 'it needs approval',
    source: verdict.source,
    ...(park.rule !== undefined ? { rule: park.rule } : {}),
    suggestions: park.suggestions,
    flags: flagsOf(tool, input, { shell: call.services.ports.shell }),
  }
  return { events: [pending], carry: { input } }
}

function decided(call: CallScope, tool: Tool, state: CallState, verdict: PermissionVerdict, input: unknown): Decided {
  if (verdict.park !== undefined) return parked(call, tool, state, verdict, input)
  const permitted: KernelEventInput & { type: 'tool.permitted' } = {
    type: 'tool.permitted',
    ...idsOf(call),
    behavior: verdict.behavior,
    source: verdict.source,
  }
  if (verdict.reason !== undefined) permitted.reason = verdict.reason
  if (verdict.updatedInput !== undefined) permitted.updatedInput = verdict.updatedInput
  permitted.flags = flagsOf(tool, input, { shell: call.services.ports.shell })
  if (verdict.behavior !== 'allow') {
    const message = text.permissionDeniedText(tool.name, verdict.reason ?? 'no reason given')
    return { events: [permitted, ...rejected(call, { step: 'permission', code: 'permission_denied', message }).events] }
  }
  if (verdict.updatedInput === undefined) return { events: [permitted], carry: { input } }
  const checked = checkSchema(tool, verdict.updatedInput)
  if (!checked.ok) return { events: [permitted, ...rejected(call, { ...checked.failure, step: 'permission' }).events] }
  return { events: [permitted], carry: { input: checked.input } }
}
