/**
 * The outside answers of a recorded log, indexed for replay: what each call's tool returned or
 * threw, its progress, its hooks' results, the user's permission answers, where output was
 * persisted. Nothing here runs anything.
 */
import type { EventOf, KernelEvent } from '../events/event.schema.js'
import type { HookResult } from '../hooks/combine.js'
import type { PermissionAnswer } from '../permissions/policy.js'

export interface RecordedCall {
  completion?: { output: unknown } | { error: string }
  progress: unknown[]
  hooks: { pre: HookResult[]; post: HookResult[] }
  /** The hook.finished events as recorded, re-appended by the replayed runner. */
  hookEvents: { pre: Array<EventOf<'hook.finished'>>; post: Array<EventOf<'hook.finished'>> }
  hooked: { pre: boolean; post: boolean }
  answer?: PermissionAnswer
  persistedAt?: string
}

export interface Recording {
  calls: Map<string, RecordedCall>
  turnIds: string[]
}

export function indexRecording(events: readonly KernelEvent[]): Recording {
  const calls = new Map<string, RecordedCall>()
  const turnIds: string[] = []
  const call = (id: string): RecordedCall => {
    let entry = calls.get(id)
    if (entry === undefined)
      calls.set(
        id,
        (entry = {
          progress: [],
          hooks: { pre: [], post: [] },
          hookEvents: { pre: [], post: [] },
          hooked: { pre: false, post: false },
        }),
      )
    return entry
  }
  const grants = new Map<string, EventOf<'permission.granted'>>()
  for (const event of events) {
    if (event.type === 'turn.started') turnIds.push(event.turnId)
    if (!('toolUseId' in event)) continue
    const entry = call(event.toolUseId)
    switch (event.type) {
      case 'tool.completed':
        entry.completion = { output: event.output }
        break
      case 'tool.errored':
        entry.completion = { error: event.message }
        break
      case 'tool.progress':
        entry.progress.push(event.data)
        break
      case 'tool.parsed':
        if (event.hooks !== undefined) entry.hooked = { ...event.hooks }
        break
      case 'tool.hooked':
        entry.hooked[event.phase] = true
        break
      case 'hook.finished':
        entry.hooks[event.phase].push(hookResult(event, entry.hooks[event.phase].length))
        entry.hookEvents[event.phase].push(event)
        break
      case 'permission.granted':
        grants.set(event.toolUseId, event)
        break
      case 'tool.permitted':
        if (event.source === 'user') entry.answer = answerOf(event, grants.get(event.toolUseId))
        break
      case 'tool.budgeted':
        entry.persistedAt = event.path
        break
      default:
        break
    }
  }
  return { calls, turnIds }
}

function hookResult(event: EventOf<'hook.finished'>, order: number): HookResult {
  const result: HookResult = { label: event.hook, order, outcome: event.outcome }
  if (event.exitCode !== undefined) result.exitCode = event.exitCode
  if (event.decision !== undefined) result.decision = event.decision
  if (event.reason !== undefined) result.reason = event.reason
  if (event.updatedInput !== undefined) result.updatedInput = event.updatedInput as Record<string, unknown>
  if (event.additionalContext !== undefined) result.additionalContext = event.additionalContext
  if (event.systemMessage !== undefined) result.systemMessage = event.systemMessage
  if (event.stopReason !== undefined) result.stopReason = event.stopReason
  if (event.error !== undefined) result.error = event.error
  return result
}

function answerOf(
  event: EventOf<'tool.permitted'>,
  grant: EventOf<'permission.granted'> | undefined,
): PermissionAnswer {
  if (event.behavior !== 'allow') return { behavior: 'deny', message: event.reason ?? 'denied' }
  const answer: PermissionAnswer = { behavior: 'allow' }
  if (event.updatedInput !== undefined) answer.updatedInput = event.updatedInput
  if (grant !== undefined)
    answer.grant = grant.scope === 'rule' ? { scope: 'rule', rule: grant.rule ?? '' } : { scope: grant.scope }
  return answer
}
