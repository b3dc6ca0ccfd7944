/**
 * The timeline model: a session's turns and calls on one time axis, each call with its segments
 * and everything its detail shows (input, output or error, each hook's answer, the permission
 * decision and who made it, its events with times), and a summary. Pure: the HTML page embeds
 * this as JSON and draws it in the browser.
 */
import { timedOutReason } from '../events/unfinished-text.js'
import type { EventOf, KernelEvent } from '../events/event.schema.js'
import { isPersisted } from '../events/tool-call.steps.js'
import { describeEvent } from './timeline.projection.js'
import { callSegments, SEGMENT_KINDS, type Segment, type SegmentKind } from './timeline-segments.js'
import { summarise, type TimelineSummary } from './timeline-summary.js'
import { capped } from './timeline-capped.js'
import { turnMessages, type TurnMessages } from './timeline-history.projection.js'

export { capped, MAX_EMBEDDED_CHARS } from './timeline-capped.js'

/** One event as the detail lists it: seq, milliseconds since the session started, type, what it said. */
export type TimelineEventRow = [seq: number, t: number, type: KernelEvent['type'], detail: string]

/** A log's fields of one event, without the envelope (what the detail shows of a hook or a decision). */
export type EventFields = Record<string, unknown>

/** One tool_use on the timeline: its bar (start, end, segments, outcome) and everything its detail shows. */
export interface TimelineCall {
  /** Position in the session's calls, in the order they were requested. */
  n: number
  /** Position of its turn in `turns`. */
  turn: number
  /** How deep it runs in child sessions (docs/subagents.md): 0 for the session's own calls. */
  depth: number
  id: string
  /** The name the model wrote. */
  tool: string
  /** The tool it resolved to, when that differs (an alias). */
  resolved: string | null
  /** Position of the tool_use in its message. */
  index: number
  batch: number | null
  /** The scheduler's safety verdict, and why it was fail-closed. */
  safe: boolean | null
  queueReason: string | null
  /** Milliseconds since the session's first event. */
  start: number
  end: number
  outcome: 'success' | 'error' | 'cancelled' | 'open'
  /** The failure code that ended it (unknown_tool, invalid_input, hook_blocked, tool_error, …). */
  errorClass: string | null
  segments: Segment[]
  input: unknown
  inputError: string | null
  /** Input rewritten by a hook or the user, as the tool got it. */
  updatedInput: unknown
  /** What the tool returned (`tool.completed`), if it did. */
  output: unknown
  /** Why it failed: the tool's error, the rejection or the cancellation, as the log says it. */
  error: string | null
  persisted: { path: string; chars: number } | null
  /** The tool_result the model got, as text. */
  result: string | null
  /** Each hook's answer (`hook.finished`) and each phase's combined verdict (`tool.hooked`). */
  hooks: EventFields[]
  verdicts: EventFields[]
  /** The permission decision (`tool.permitted`), the question put to the user, and any grant. */
  permission: EventFields | null
  asked: EventFields | null
  granted: EventFields | null
  progress: number
  cascaded: string[] | null
  events: TimelineEventRow[]
}

/** One turn on the shared axis (times since the session's first event). */
export interface TimelineTurn {
  n: number
  id: string
  start: number
  end: number
  mode: string | null
  maxConcurrency: number | null
  stopReason: string | null
  calls: number
  /** A child turn's parent call (docs/subagents.md): the page shows the turn under that call. */
  parent: string | null
  depth: number
  /** The turn's own events (start, end, abort, recovery, completion). */
  events: TimelineEventRow[]
  /** The turn's messages as the log records them: the assistant's tool_use blocks and the tool_result message. */
  messages: TurnMessages
}

/** What the timeline page draws: the JSON it embeds. */
export interface TimelineModel {
  /** The `at` of the session's first event (milliseconds since the epoch); every time is relative to it. */
  origin: number
  /** Milliseconds from the first event to the last. */
  span: number
  turns: TimelineTurn[]
  calls: TimelineCall[]
  kinds: readonly SegmentKind[]
  summary: TimelineSummary
}

/**
 * Projects a log into the timeline model.
 *
 * @example
 * const model = projectTimelineModel(readJsonlFile('session.jsonl'))
 * model.calls[0]?.segments // [{ kind: 'queued', start: 0, end: 3, doing: 'waiting in the queue' }, …]
 */
export function projectTimelineModel(events: readonly KernelEvent[]): TimelineModel {
  const origin = events.reduce((min, e) => Math.min(min, e.at), events[0]?.at ?? 0)
  const turns = new Map<string, TimelineTurn>()
  const open = new Map<string, { call: TimelineCall; events: KernelEvent[] }>()
  const calls: Array<{ call: TimelineCall; events: KernelEvent[] }> = []
  // Each call's depth in child sessions: a child turn is one deeper than the call it runs under.
  const depthOf = new Map<string, number>()
  // Each turn's events, for its messages: grouped once, so a long session stays linear.
  const byTurn = new Map<string, KernelEvent[]>()
  let last = origin
  for (const event of events) {
    last = Math.max(last, event.at)
    const turn = turnOf(turns, event, origin)
    const own = byTurn.get(event.turnId)
    if (own === undefined) byTurn.set(event.turnId, [event])
    else own.push(event)
    if (!('toolUseId' in event)) {
      if (event.type === 'turn.started') {
        ;[turn.mode, turn.maxConcurrency] = [event.mode, event.maxConcurrency]
        if (event.parentToolUseId !== undefined) {
          turn.parent = event.parentToolUseId
          turn.depth = 1 + (depthOf.get(event.parentToolUseId) ?? 0)
        }
      }
      if (event.type === 'turn.ended') turn.stopReason = event.stopReason
      turn.events.push(row(event, origin))
      continue
    }
    const key = `${event.turnId}\u0000${event.toolUseId}`
    if (event.type === 'tool.requested') {
      const entry = { call: newCall(calls.length, turn, event, origin), events: [event] }
      depthOf.set(event.toolUseId, turn.depth)
      open.set(key, entry)
      calls.push(entry)
      turn.calls += 1
      continue
    }
    const entry = open.get(key)
    if (entry === undefined) continue
    entry.events.push(event)
    record(entry.call, event, origin)
  }
  for (const { call, events: own } of calls) call.segments = callSegments(own, origin)
  for (const turn of turns.values()) turn.messages = turnMessages(byTurn.get(turn.id) ?? [], turn.id)
  const model = { origin, span: last - origin, turns: [...turns.values()], calls: calls.map((c) => c.call) }
  return { ...model, kinds: SEGMENT_KINDS, summary: summarise(model.calls, events.length, model.turns.length) }
}

const NO_MESSAGES: TurnMessages = {
  assistant: { role: 'assistant', content: [] },
  toolResults: { role: 'user', content: [] },
  discarded: null,
  unreadable: [],
}

function turnOf(turns: Map<string, TimelineTurn>, event: KernelEvent, origin: number): TimelineTurn {
  let turn = turns.get(event.turnId)
  if (turn === undefined) {
    const t = event.at - origin
    turn = {
      n: turns.size,
      id: event.turnId,
      start: t,
      end: t,
      mode: null,
      maxConcurrency: null,
      stopReason: null,
      calls: 0,
      parent: null,
      depth: 0,
      events: [],
      messages: NO_MESSAGES,
    }
    turns.set(event.turnId, turn)
  }
  turn.end = Math.max(turn.end, event.at - origin)
  return turn
}

function newCall(n: number, turn: TimelineTurn, event: EventOf<'tool.requested'>, origin: number): TimelineCall {
  const t = event.at - origin
  return {
    n,
    turn: turn.n,
    depth: turn.depth,
    id: event.toolUseId,
    tool: event.name,
    resolved: null,
    index: event.index,
    batch: null,
    safe: null,
    queueReason: null,
    start: t,
    end: t,
    outcome: 'open',
    errorClass: null,
    segments: [],
    input: capped(event.input),
    inputError: event.inputError ?? null,
    updatedInput: undefined,
    output: undefined,
    error: null,
    persisted: null,
    result: null,
    hooks: [],
    verdicts: [],
    permission: null,
    asked: null,
    granted: null,
    progress: 0,
    cascaded: null,
    events: [row(event, origin)],
  }
}

/** Folds one of a call's own events (after its `tool.requested`) into the call. */
function record(call: TimelineCall, event: KernelEvent, origin: number): void {
  call.end = Math.max(call.end, event.at - origin)
  call.events.push(row(event, origin))
  const fail = (errorClass: string, message: string) => {
    call.errorClass ??= errorClass
    call.error ??= capped(message) as string
  }
  switch (event.type) {
    case 'tool.queued':
      ;[call.safe, call.queueReason] = [event.safe, event.reason ?? null]
      return
    case 'tool.dispatched':
      return void (call.batch = event.batch)
    case 'tool.parsed':
      return void (call.resolved = event.tool === call.tool ? null : event.tool)
    case 'tool.hooked':
      if (event.updatedInput !== undefined) call.updatedInput = capped(event.updatedInput)
      return void call.verdicts.push(fields(event, origin))
    case 'hook.finished':
      return void call.hooks.push(fields(event, origin))
    case 'permission.requested':
      return void (call.asked = fields(event, origin))
    case 'permission.granted':
      return void (call.granted = fields(event, origin))
    case 'tool.permitted':
      if (event.updatedInput !== undefined) call.updatedInput = capped(event.updatedInput)
      return void (call.permission = fields(event, origin))
    case 'tool.progress':
      return void (call.progress += 1)
    case 'tool.completed':
      return void (call.output = isPersisted(event) ? undefined : capped(event.output))
    case 'tool.budgeted':
      return void (call.persisted = event.path === undefined ? null : { path: event.path, chars: event.chars })
    case 'tool.errored':
      return fail('tool_error', event.message)
    case 'tool.rejected':
      return fail(event.code, event.message)
    case 'tool.cancelled':
      return fail(event.step === 'call' ? 'interrupted' : 'cancelled', event.reason)
    case 'tool.timed_out':
      return fail('timed_out', timedOutReason(event))
    case 'tool.cascaded':
      return void (call.cascaded = event.siblings)
    case 'tool.result':
      call.outcome = event.outcome
      return void (call.result = capped(resultText(event.block.content)) as string)
  }
}

function row(event: KernelEvent, origin: number): TimelineEventRow {
  return [event.seq, event.at - origin, event.type, describeEvent(event)]
}

/** An event's own fields, less the envelope, each value capped; the time is kept as `t`. */
function fields(event: KernelEvent, origin: number): EventFields {
  const out: EventFields = { t: event.at - origin }
  for (const [key, value] of Object.entries(event))
    if (!['v', 'seq', 'at', 'turnId', 'toolUseId', 'type'].includes(key)) out[key] = capped(value)
  return out
}

function resultText(content: EventOf<'tool.result'>['block']['content']): string {
  if (typeof content === 'string') return content
  return content
    .map((part) => {
      if (part.type === 'text') return part.text
      if (part.type === 'image')
        return `[image ${part.source.media_type}, ${part.source.data.length} base64 characters]`
      return `[${JSON.stringify(part)}]`
    })
    .join('\n')
}
