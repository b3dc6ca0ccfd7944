/** Statistics of a log: counts, time in the queue and in execution, error classes. Pure. */
import type { KernelEvent } from '../events/event.schema.js'
import {
  advance,
  REQUESTED,
  STEP_TABLE,
  type CallPosition,
  type CallState as CallFold,
} from '../events/tool-call.steps.js'
import { callKey } from '../events/call-key.js'

export interface CallTiming {
  toolUseId: string
  tool: string
  /** From the tool_use arriving to its start (ms); undefined when it never started. */
  queueMs: number | undefined
  /** From its start to its result (ms). */
  runMs: number | undefined
  /** `pending`: parked for a person's approval (docs/approvals.md); `open`: no result, not parked. */
  outcome: 'success' | 'error' | 'cancelled' | 'open' | 'pending'
  /** A child session's call (docs/subagents.md): the call it ran under. */
  parentToolUseId?: string
}

export interface LogStats {
  events: number
  turns: number
  calls: number
  byOutcome: Record<string, number>
  byTool: Record<string, number>
  /** Why calls failed, by code (unknown_tool, invalid_input, permission_denied, tool_error, cancelled, …). */
  errorClasses: Record<string, number>
  timings: CallTiming[]
  /** Calls of child sessions (docs/subagents.md), counted in `calls` too, by the call they ran under. */
  childCalls: Record<string, number>
}

export function projectStats(events: readonly KernelEvent[]): LogStats {
  // Keyed by turn and id: the same tool_use id may come back in a later turn.
  const calls = new Map<
    string,
    {
      toolUseId: string
      tool: string
      requested: number
      dispatched?: number
      done?: number
      outcome: CallTiming['outcome']
      parentToolUseId?: string
    }
  >()
  const errorClasses: Record<string, number> = counts()
  const turns = new Set<string>()
  const count = (map: Record<string, number>, key: string) => (map[key] = (map[key] ?? 0) + 1)
  for (const event of events) {
    if (event.type === 'turn.started') turns.add(event.turnId)
    if (!('toolUseId' in event)) continue
    const key = callKey(event.turnId, event.toolUseId)
    const call = calls.get(key)
    if (event.type === 'tool.requested') {
      const { toolUseId, name: tool, at: requested, parentToolUseId } = event
      calls.set(key, { toolUseId, tool, requested, outcome: 'open', ...(parentToolUseId ? { parentToolUseId } : {}) })
    } else if (call === undefined) continue
    else if (event.type === 'tool.dispatched') call.dispatched = event.at
    else if (event.type === 'permission.pending') call.outcome = 'pending'
    else if (event.type === 'permission.answered') call.outcome = 'open'
    else if (event.type === 'tool.result') {
      call.done = event.at
      call.outcome = event.outcome
    } else if (event.type === 'tool.rejected') count(errorClasses, event.code)
    else if (event.type === 'tool.errored') count(errorClasses, 'tool_error')
    else if (event.type === 'tool.cancelled') count(errorClasses, event.step === 'call' ? 'interrupted' : 'cancelled')
    else if (event.type === 'tool.timed_out') count(errorClasses, 'timed_out')
  }
  const byOutcome: Record<string, number> = counts()
  const byTool: Record<string, number> = counts()
  const childCalls: Record<string, number> = counts()
  const timings: CallTiming[] = [...calls.values()].map((c) => {
    count(byOutcome, c.outcome)
    count(byTool, c.tool)
    if (c.parentToolUseId !== undefined) count(childCalls, c.parentToolUseId)
    return {
      toolUseId: c.toolUseId,
      tool: c.tool,
      queueMs: c.dispatched === undefined ? undefined : c.dispatched - c.requested,
      runMs: c.dispatched === undefined || c.done === undefined ? undefined : c.done - c.dispatched,
      outcome: c.outcome,
      ...(c.parentToolUseId === undefined ? {} : { parentToolUseId: c.parentToolUseId }),
    }
  })
  const { length } = events
  return { events: length, turns: turns.size, calls: calls.size, byOutcome, byTool, errorClasses, timings, childCalls }
}

/** Each call's state after event `at` (inclusive): what `toolkernel inspect --at N` shows. */
export function callStatesAt(events: readonly KernelEvent[], at: number): CallState[] {
  // Keyed by turn and id: the same tool_use id may come back in a later turn.
  const states = new Map<string, CallState & { position: CallFold }>()
  for (const event of events) {
    if (event.seq > at) break
    if (!('toolUseId' in event)) continue
    const key = callKey(event.turnId, event.toolUseId)
    if (event.type === 'tool.requested') {
      const base = { toolUseId: event.toolUseId, turnId: event.turnId, tool: event.name, position: REQUESTED }
      states.set(key, { ...base, state: 'requested', lastEvent: `${event.seq} tool.requested` })
    }
    const entry = states.get(key)
    if (entry === undefined) continue
    entry.lastEvent = `${event.seq} ${event.type}`
    entry.position = advance(entry.position, event)
    entry.state = stateAfter(event, entry.position, entry.state)
  }
  return [...states.values()].map(({ position: _, ...s }) => s)
}

export interface CallState {
  toolUseId: string
  turnId: string
  tool: string
  state: string
  lastEvent: string
}

/** What inspect says of a call: the scheduler's word before it starts, then the step table's. */
function stateAfter(event: KernelEvent, position: CallPosition, previous: string): string {
  switch (event.type) {
    case 'tool.requested':
      return 'requested'
    case 'tool.queued':
      return event.safe ? 'queued (safe)' : 'queued (exclusive)'
    case 'tool.dispatched':
      return `dispatched (batch ${event.batch})`
    case 'permission.requested':
      return 'waiting for the user'
    case 'permission.pending':
      return `parked: waiting for a person's approval (${event.reason})`
    case 'permission.answered':
      return `answered (${event.behavior}), going on`
    case 'tool.result':
      return `done (${event.outcome})`
    case 'tool.retrying':
      return `waiting ${event.delayMs} ms to retry (attempt ${event.attempt} failed)`
    case 'tool.restarted':
      return `running (attempt ${event.attempt})`
    case 'budget.held':
      return 'returned; waiting for its running siblings to share the message budget'
    case 'tool.progress':
    case 'hook.finished':
    case 'permission.granted':
    case 'tool.cascaded':
      return previous
    default:
      return STEP_TABLE[position.step].doing
  }
}

/** A tally keyed by names from outside (tool names are the model's text): no prototype to hit. */
function counts(): Record<string, number> {
  return Object.create(null) as Record<string, number>
}
