/**
 * The outside answers of a recorded log, indexed for replay: what each call's tool returned or
 * threw, its progress, its hooks' results, the user's permission answers, where output was
 * persisted. Nothing here runs anything.
 */
import type { EventOf, KernelEvent, ToolResultBlock } from '../events/event.schema.js'
import type { HookResult } from '../hooks/combine.js'
import type { PermissionAnswer } from '../permissions/policy.js'
import type { GrantScope } from '../permissions/grants.js'
import { validateInputPrefix } from '../tools/result-text.js'
import { isPersisted } from '../events/tool-call.steps.js'
import { previewLineCount } from '../actors/turn/budget.js'

export interface RecordedCall {
  /** The tool that ran the call (`tool.parsed`). */
  tool?: string
  /**
   * What the tool's own validateInput answered, and whether that was the call's very next event
   * after `tool.parsed` (then replay answers at once, as a synchronous validator did; otherwise
   * at the moment the log recorded it).
   */
  validation?: { answer: { result: true } | { result: false; message: string }; immediate: boolean }
  completion?: { output: unknown } | { error: string; errorClass?: string; attempts?: number } | { persisted: true }
  /** What each failed attempt of a retried tool threw (`tool.retrying`), in order. */
  retries: Array<{ error: string; errorClass?: string }>
  progress: unknown[]
  hooks: { pre: HookResult[]; post: HookResult[] }
  /** The hook.finished events as recorded, re-appended by the replayed runner. */
  hookEvents: { pre: Array<EventOf<'hook.finished'>>; post: Array<EventOf<'hook.finished'>> }
  hooked: { pre: boolean; post: boolean }
  /** What each hook step decided as a whole (`tool.hooked`): all an app's own hook runner leaves. */
  hookedEvents: { pre?: EventOf<'tool.hooked'>; post?: EventOf<'tool.hooked'> }
  answer?: PermissionAnswer
  /**
   * What the budget step did with output that went to the result store (`tool.budgeted`): where it
   * saved it (or why it could not), its size, the event's position (seq), and the output's line
   * count as the preview's notice gives it (`tool.result`).
   */
  budgeted?: { path?: string; error?: string; chars: number; position: number; lines?: number }
  /** Whether the call's result block was an error (`tool.mapped`). */
  mappedError?: boolean
  /** Characters of output the call's tool returned while its result waited for its siblings' (`budget.held`). */
  heldChars?: number
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
          retries: [],
          hooks: { pre: [], post: [] },
          hookEvents: { pre: [], post: [] },
          hooked: { pre: false, post: false },
          hookedEvents: {},
        }),
      )
    return entry
  }
  const grants = new Map<string, EventOf<'permission.granted'>>()
  let previous: KernelEvent | undefined
  for (const event of events) {
    const before = previous
    previous = event
    if (event.type === 'turn.started') turnIds.push(event.turnId)
    if (!('toolUseId' in event)) continue
    const entry = call(event.toolUseId)
    switch (event.type) {
      case 'tool.completed':
        entry.completion = isPersisted(event) ? { persisted: true } : { output: event.output }
        break
      case 'tool.errored':
        entry.completion = {
          error: event.message,
          ...(event.errorClass === undefined ? {} : { errorClass: event.errorClass }),
          ...(event.attempts === undefined ? {} : { attempts: event.attempts }),
        }
        break
      case 'tool.retrying':
        entry.retries.push({
          error: event.error,
          ...(event.errorClass === undefined ? {} : { errorClass: event.errorClass }),
        })
        break
      case 'tool.progress':
        entry.progress.push(event.data)
        break
      case 'tool.validated':
        entry.validation = { answer: { result: true }, immediate: isParsedOf(before, event.toolUseId) }
        break
      case 'tool.rejected':
        if (event.step === 'validate' && event.code === 'validate_input') {
          const message = stripPrefix(event.message, validateInputPrefix(entry.tool ?? ''))
          entry.validation = { answer: { result: false, message }, immediate: isParsedOf(before, event.toolUseId) }
        }
        break
      case 'tool.parsed':
        entry.tool = event.tool
        if (event.hooks !== undefined) entry.hooked = { ...event.hooks }
        break
      case 'tool.hooked':
        entry.hooked[event.phase] = true
        entry.hookedEvents[event.phase] = event
        break
      case 'hook.finished':
        entry.hooks[event.phase].push(hookResult(event, entry.hooks[event.phase].length))
        entry.hookEvents[event.phase].push(event)
        break
      case 'permission.granted':
        grants.set(event.toolUseId, event)
        // A grant is only ever recorded for an allow. Its tool.permitted may be missing (the store
        // failed between the two and recovery closed the turn); the user's answer is known without it.
        entry.answer = { behavior: 'allow', grant: grantOf(event) }
        break
      case 'tool.permitted':
        if (event.source === 'user') entry.answer = answerOf(event, grants.get(event.toolUseId))
        break
      case 'tool.budgeted': {
        const { path, error, chars, seq: position } = event
        const where = { ...(path === undefined ? {} : { path }), ...(error === undefined ? {} : { error }) }
        entry.budgeted = { ...where, chars, position }
        break
      }
      case 'tool.mapped':
        entry.mappedError = event.isError
        break
      case 'tool.result': {
        const lines = previewLines(event.block)
        if (entry.budgeted !== undefined && lines !== undefined) entry.budgeted = { ...entry.budgeted, lines }
        break
      }
      case 'budget.held':
        entry.heldChars = event.chars
        break
      default:
        break
    }
  }
  return { calls, turnIds }
}

/** The output's line count the preview in `block` gives, if it is one (its first text). */
function previewLines(block: ToolResultBlock): number | undefined {
  const first = typeof block.content === 'string' ? block.content : block.content.find((part) => part.type === 'text')
  const text = typeof first === 'string' ? first : first?.type === 'text' ? first.text : undefined
  return text === undefined ? undefined : previewLineCount(text)
}

function isParsedOf(event: KernelEvent | undefined, toolUseId: string): boolean {
  return event?.type === 'tool.parsed' && event.toolUseId === toolUseId
}

/** The text after `prefix`, when it starts with it. */
export function stripPrefix(text: string, prefix: string): string {
  return text.startsWith(prefix) ? text.slice(prefix.length) : text
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
  if (grant !== undefined) answer.grant = grantOf(grant)
  return answer
}

function grantOf(grant: EventOf<'permission.granted'>): GrantScope {
  return grant.scope === 'rule' ? { scope: 'rule', rule: grant.rule ?? '' } : { scope: grant.scope }
}
