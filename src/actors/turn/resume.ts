/**
 * Going on with a parked turn (docs/approvals.md): a person's answer checked and made an event,
 * and a turn read back from the log — each call without a result at the state its events fold to.
 * Pure functions of the log, so a kernel in another process goes on exactly where one stopped.
 */
import type { EventOf, KernelEvent } from '../../events/event.schema.js'
import { foldCall, type CallState } from '../../events/tool-call.steps.js'
import type { PendingApproval } from '../../projections/approvals.projection.js'
import type { IncomingToolUse } from '../../intake/incoming.js'
import { textOf } from './budget.js'
import type { AnswerEvent, ResumedTurn, TurnConfig } from './turn-run.js'

const ALLOW_KEYS = ['behavior', 'updatedInput', 'grant', 'digest']
const DENY_KEYS = ['behavior', 'message', 'digest']
const GRANT_SCOPES = ['call', 'tool', 'rule']

/**
 * The `permission.answered` event for an answer to the parked call `toolUseId`.
 * @throws TypeError for an answer of the wrong shape; Error when no such call waits, it was
 * answered already, or the answer names the digest of other input.
 */
export function answerEvent(
  pending: readonly PendingApproval[],
  events: readonly KernelEvent[],
  toolUseId: string,
  given: unknown,
): AnswerEvent {
  if (typeof toolUseId !== 'string' || toolUseId === '')
    throw new TypeError(`kernel.answer: toolUseId must be a non-empty string, got ${JSON.stringify(toolUseId)}`)
  const answer = checkShape(given)
  const call = pending.find((p) => p.toolUseId === toolUseId)
  if (call === undefined) throw new Error(notWaiting(events, toolUseId))
  if (call.answered)
    throw new Error(`kernel.answer: tool call ${toolUseId} was answered already; an approval is given once`)
  if (answer.digest !== undefined && answer.digest !== call.digest)
    throw new Error(
      `kernel.answer: the answer is for input with digest ${answer.digest}, but tool call ${toolUseId} waits with input of digest ${call.digest}; an approval cannot be moved onto other input`,
    )
  const ids = { turnId: call.turnId, toolUseId }
  if (answer.behavior === 'deny')
    return { type: 'permission.answered', ...ids, digest: call.digest, behavior: 'deny', message: answer.message }
  const event: AnswerEvent = { type: 'permission.answered', ...ids, digest: call.digest, behavior: 'allow' }
  if (answer.updatedInput !== undefined) event.updatedInput = answer.updatedInput
  if (answer.grant !== undefined) event.grant = answer.grant
  return event
}

type Checked =
  | {
      behavior: 'allow'
      updatedInput?: unknown
      grant?: { scope: 'call' | 'tool' | 'rule'; rule?: string }
      digest?: string
    }
  | { behavior: 'deny'; message: string; digest?: string }

function checkShape(given: unknown): Checked {
  const shape = "{ behavior: 'allow', updatedInput?, grant?, digest? } or { behavior: 'deny', message, digest? }"
  if (typeof given !== 'object' || given === null)
    throw new TypeError(`kernel.answer: the answer must be ${shape}, got ${JSON.stringify(given)}`)
  const answer = given as Record<string, unknown>
  const keys = answer.behavior === 'allow' ? ALLOW_KEYS : answer.behavior === 'deny' ? DENY_KEYS : undefined
  if (keys === undefined)
    throw new TypeError(`kernel.answer: behavior must be 'allow' or 'deny', got ${JSON.stringify(answer.behavior)}`)
  const unknown = Object.keys(answer).filter((k) => !keys.includes(k))
  if (unknown.length > 0)
    throw new TypeError(
      `kernel.answer: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} in a '${String(answer.behavior)}' answer; it takes ${keys.join(', ')}`,
    )
  if (answer.digest !== undefined && typeof answer.digest !== 'string')
    throw new TypeError('kernel.answer: digest must be the pending call’s digest (a string)')
  const digest = answer.digest === undefined ? {} : { digest: answer.digest }
  if (answer.behavior === 'deny') {
    if (typeof answer.message !== 'string' || answer.message.trim() === '')
      throw new TypeError('kernel.answer: a denial needs a message for the model (a non-empty string)')
    return { behavior: 'deny', message: answer.message, ...digest }
  }
  const allowed: Checked & { behavior: 'allow' } = { behavior: 'allow', ...digest }
  if (answer.updatedInput !== undefined) allowed.updatedInput = answer.updatedInput
  if (answer.grant !== undefined) allowed.grant = checkGrant(answer.grant)
  return allowed
}

function checkGrant(grant: unknown): { scope: 'call' | 'tool' | 'rule'; rule?: string } {
  const g = grant as { scope?: unknown; rule?: unknown } | null
  if (typeof g !== 'object' || g === null || !GRANT_SCOPES.includes(g.scope as string))
    throw new TypeError(
      `kernel.answer: grant must be { scope: 'call' }, { scope: 'tool' } or { scope: 'rule', rule }, got ${JSON.stringify(grant)}`,
    )
  if (g.scope !== 'rule') return { scope: g.scope as 'call' | 'tool' }
  if (typeof g.rule !== 'string' || g.rule === '')
    throw new TypeError(
      "kernel.answer: a grant of scope 'rule' names the rule, e.g. { scope: 'rule', rule: 'Bash(npm test)' }",
    )
  return { scope: 'rule', rule: g.rule }
}

/** Why no call `toolUseId` waits for an answer, as the log tells it. */
function notWaiting(events: readonly KernelEvent[], toolUseId: string): string {
  const own = events.filter((e) => 'toolUseId' in e && e.toolUseId === toolUseId)
  if (own.length === 0) return `kernel.answer: no tool call ${toolUseId} in this session`
  if (own.some((e) => e.type === 'tool.result'))
    return `kernel.answer: tool call ${toolUseId} has its result already; there is nothing to answer`
  if (own.some((e) => e.type === 'permission.answered'))
    return `kernel.answer: tool call ${toolUseId} was answered already; an approval is given once`
  return `kernel.answer: tool call ${toolUseId} is not waiting for an answer (it never parked for approval)`
}

/**
 * The parked turn `turnId` as the log has it: its mode, where it began, and each call without a
 * result with the state its events fold to (and whether it was dispatched before).
 */
export function resumedTurn(events: readonly KernelEvent[], turnId: string): ResumedTurn & { config: TurnConfig } {
  const own = events.filter((e) => e.turnId === turnId)
  const started = own.find((e) => e.type === 'turn.started')
  if (started === undefined) throw new Error(`toolkernel: turn ${turnId} has no turn.started in this log`)
  const calls = new Map<string, { use: IncomingToolUse; events: KernelEvent[]; dispatched: boolean }>()
  let used = 0
  for (const event of own) {
    if (event.type === 'tool.requested') {
      const use: IncomingToolUse = { id: event.toolUseId, name: event.name, input: event.input, index: event.index }
      if (event.inputError !== undefined) use.inputError = event.inputError
      calls.set(event.toolUseId, { use, events: [], dispatched: false })
    }
    if (!('toolUseId' in event)) continue
    const call = calls.get(event.toolUseId)
    if (call === undefined) continue
    if (event.type === 'tool.dispatched') call.dispatched = true
    if (event.type === 'tool.result') used += textOf(event.block).length
    call.events.push(event)
  }
  const open: Array<{ use: IncomingToolUse; from: CallState; dispatched: boolean }> = []
  for (const call of [...calls.values()].sort((a, b) => a.use.index - b.use.index)) {
    const from = foldCall(call.events as Parameters<typeof foldCall>[0])
    if (!from.answered) open.push({ use: call.use, from, dispatched: call.dispatched })
  }
  return {
    first: started.seq,
    ids: [...calls.keys()],
    calls: open,
    used,
    config: { mode: started.mode, earlyStart: earlyStartOf(started) },
  }
}

/**
 * Which calls of a recorded turn could start before its message ended. A log from before the
 * field was recorded had batch turns add every call before they ended (so `'all'` decides as they
 * did) and stream turns start safe calls early (the default then, and now).
 */
export function earlyStartOf(started: EventOf<'turn.started'>): 'safe' | 'none' | 'all' {
  return started.earlyStart ?? (started.mode === 'batch' ? 'all' : 'safe')
}
