/**
 * What the timeline page shows besides the time axis: the event history (every event of the log,
 * one row each, with its JSON) and each turn's messages as the log records them — the tool_use
 * blocks of the assistant's message and the tool_result message the turn produced. Pure: events
 * in, JSON-ready values out (docs/decisions/timeline.md, 150 and 151).
 */
import type { KernelEvent, ToolResultBlock } from '../events/event.schema.js'
import { projectTurnMessage } from './messages.projection.js'
import { describeEvent } from './timeline.projection.js'
import { capped } from './timeline-capped.js'

/** One event of the history: its one-line summary and the event itself, each field capped. */
export type HistoryRow = [summary: string, event: Record<string, unknown>]

/**
 * Every event of the log in log order, for the page's event-history table. Values longer than
 * the page keeps (`MAX_EMBEDDED_CHARS`) are cut field by field with a note; the envelope is whole.
 *
 * @example
 * projectEventHistory(events)[0] // ['batch turn, at most 10 at once', { v: 2, seq: 0, type: 'turn.started', … }]
 */
export function projectEventHistory(events: readonly KernelEvent[]): HistoryRow[] {
  return events.map((event) => {
    const fields: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(event)) fields[key] = capped(value)
    return [describeEvent(event), fields]
  })
}

/** A tool_use block of the assistant's message, rebuilt from its `tool.requested`. */
export interface ToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}

/** One turn's messages as far as the log records them. */
export interface TurnMessages {
  /**
   * The assistant message's tool_use blocks in the order the model wrote them. The log records no
   * text or thinking blocks: those are the app's to keep (docs/telemetry.md §The timeline).
   */
  assistant: { role: 'assistant'; content: ToolUseBlock[] }
  /** The tool_result message the turn produced, as `projectMessages` gives it (empty when discarded). */
  toolResults: { role: 'user'; content: Array<ToolResultBlock | string> }
  /** Why the turn was discarded (the model got nothing from it), when it was. */
  discarded: string | null
  /** tool_use ids whose `input` is the raw text the model wrote (it did not parse as JSON). */
  unreadable: string[]
}

/**
 * The messages of one turn from its own events: tool_use blocks from `tool.requested` (the
 * first request of an id, ordered by `index`), the tool_result message from the messages
 * projection. A block too long for the page is kept as the start of its JSON text with a note.
 *
 * @example
 * turnMessages(eventsOfTurn, 'turn_1').assistant.content
 * // [{ type: 'tool_use', id: 'toolu_a', name: 'Lookup', input: { key: 'a' } }]
 */
export function turnMessages(events: readonly KernelEvent[], turnId: string): TurnMessages {
  const requests = new Map<string, { index: number; block: ToolUseBlock }>()
  const unreadable: string[] = []
  let discarded: string | null = null
  for (const event of events) {
    if (event.turnId !== turnId) continue
    if (event.type === 'turn.discarded') discarded ??= event.reason
    if (event.type !== 'tool.requested' || requests.has(event.toolUseId)) continue
    const block: ToolUseBlock = { type: 'tool_use', id: event.toolUseId, name: event.name, input: capped(event.input) }
    requests.set(event.toolUseId, { index: event.index, block })
    if (event.inputError !== undefined) unreadable.push(event.toolUseId)
  }
  const content = [...requests.values()].sort((a, b) => a.index - b.index).map((r) => r.block)
  const results = projectTurnMessage(events, turnId).content.map((block) => capped(block) as ToolResultBlock | string)
  return {
    assistant: { role: 'assistant', content },
    toolResults: { role: 'user', content: results },
    discarded,
    unreadable,
  }
}
