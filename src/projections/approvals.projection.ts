/**
 * The approvals projection: the calls parked at their permission step, waiting for a person's
 * answer (docs/approvals.md). Pure: any kernel over the same log — in this process or another —
 * lists the same calls, so an app can show them and `kernel.answer` them after a restart.
 */
import type { EventOf, KernelEvent } from '../events/event.schema.js'

/** A call waiting for a person: what to show them, and the digest their answer is bound to. */
export interface PendingApproval {
  readonly turnId: string
  readonly toolUseId: string
  readonly tool: string
  /** Exactly the input the approval is for. */
  readonly input: unknown
  /** Binds an answer to this input: `kernel.answer` refuses an answer that names another digest. */
  readonly digest: string
  readonly reason: string
  /** Who asked: a rule, a hook, the tool's own check, or a guard every mode keeps (`default`). */
  readonly source: EventOf<'permission.pending'>['source']
  /** The rule that asked, when one did. */
  readonly rule?: string
  /** Rules that would allow calls like this one next time, e.g. `Bash(npm run test:*)`. */
  readonly suggestions: readonly string[]
  /** The answer is in the log, but the call has not gone on yet (the turn resumes with it). */
  readonly answered: boolean
  /** A child session's call (docs/subagents.md): the parent call it runs under. */
  readonly parentToolUseId?: string
  /** What the call says about itself (read-only, destructive, open-world, names for people); absent in older logs. */
  readonly flags?: EventOf<'permission.pending'>['flags']
}

/**
 * The calls of `events` that parked and have no result yet: by turn, in tool_use order. An
 * answered one is listed with `answered: true` until its turn takes the answer.
 */
export function pendingApprovals(events: Iterable<KernelEvent>): PendingApproval[] {
  const pending = new Map<string, PendingApproval>()
  const index = new Map<string, number>()
  for (const event of events) {
    if (event.type === 'tool.requested') index.set(event.toolUseId, event.index)
    else if (event.type === 'permission.pending') pending.set(event.toolUseId, pendingOf(event))
    else if (event.type === 'permission.answered') {
      const found = pending.get(event.toolUseId)
      if (found !== undefined) pending.set(event.toolUseId, { ...found, answered: true })
    } else if (event.type === 'tool.permitted' || event.type === 'tool.result' || event.type === 'tool.cancelled')
      pending.delete(event.toolUseId)
  }
  const turns = [...new Set([...pending.values()].map((p) => p.turnId))]
  const at = (p: PendingApproval): number => index.get(p.toolUseId) ?? 0
  return [...pending.values()].sort((a, b) => turns.indexOf(a.turnId) - turns.indexOf(b.turnId) || at(a) - at(b))
}

/**
 * The events of turn `turnId` and of the child turns under its calls, at any depth
 * (docs/subagents.md): where a parked turn's pending calls may wait.
 */
export function withChildTurns(events: readonly KernelEvent[], turnId: string): KernelEvent[] {
  if (!events.some((e) => e.parentToolUseId !== undefined)) return events.filter((e) => e.turnId === turnId)
  const turns = new Set([turnId])
  const calls = new Set<string>()
  return events.filter((e) => {
    if (e.type === 'turn.started' && e.parentToolUseId !== undefined && calls.has(e.parentToolUseId))
      turns.add(e.turnId)
    if (!turns.has(e.turnId)) return false
    if (e.type === 'tool.requested') calls.add(e.toolUseId)
    return true
  })
}

function pendingOf(event: EventOf<'permission.pending'>): PendingApproval {
  const { turnId, toolUseId, tool, input, digest, reason, source, suggestions } = event
  const base: PendingApproval = { turnId, toolUseId, tool, input, digest, reason, source, suggestions, answered: false }
  return {
    ...base,
    ...(event.rule === undefined ? {} : { rule: event.rule }),
    ...(event.flags === undefined ? {} : { flags: event.flags }),
    ...(event.parentToolUseId === undefined ? {} : { parentToolUseId: event.parentToolUseId }),
  }
}
