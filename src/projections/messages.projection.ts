/**
 * The messages projection: for each turn, the user message of `tool_result` blocks the model
 * reads next, in `tool_use` order. Pure: the same events give the same messages, byte for byte.
 *
 * One mutator (`apply`) holds the logic; `reduceTurnMessage` applies it per event through immer
 * for live consumers that keep the state, and whole-log projection folds a turn on a private
 * object. A log is grouped by turn first, so a long session costs time linear in its events.
 */
import { enableMapSet, produce, type Draft } from 'immer'
import type { KernelEvent, ToolResultBlock } from '../events/event.schema.js'

/** The Anthropic user message that answers a turn's tool calls. */
export interface ToolResultMessage {
  role: 'user'
  content: ToolResultBlock[]
}

export interface TurnMessageState {
  /** tool_use ids in the order the model wrote them. */
  order: string[]
  /**
   * Each id's position among the message's tool calls: `order` sorted by it is tool_use order.
   * Maps, never plain objects: an id is the model's text (`__proto__`, `constructor`).
   */
  requested: Map<string, number>
  results: Map<string, ToolResultBlock>
  /** A discarded turn sends nothing to the model. */
  discarded: boolean
}

// Immer drafts Maps only with this plugin on; the projection's state holds two.
enableMapSet()

export const initialTurnMessageState: TurnMessageState = Object.freeze({
  order: [],
  requested: new Map(),
  results: new Map(),
  discarded: false,
})

/** Applies one event to a draft of a turn's state: the one place the projection's logic lives. */
function apply(draft: Draft<TurnMessageState>, event: KernelEvent): void {
  if (event.type === 'tool.requested') {
    if (!draft.requested.has(event.toolUseId)) {
      draft.requested.set(event.toolUseId, event.index)
      draft.order.push(event.toolUseId)
    }
  } else if (event.type === 'tool.result') {
    // The first result wins: a tool_use is answered exactly once.
    if (!draft.results.has(event.toolUseId)) draft.results.set(event.toolUseId, event.block)
  } else if (event.type === 'turn.discarded') {
    draft.discarded = true
  }
}

const SHAPES_MESSAGE = new Set<KernelEvent['type']>(['tool.requested', 'tool.result', 'turn.discarded'])

/** Folds one event of a turn into its state. Events that do not shape the message return the state as it was. */
export function reduceTurnMessage(state: TurnMessageState, event: KernelEvent): TurnMessageState {
  return SHAPES_MESSAGE.has(event.type) ? produce(state, (draft) => apply(draft, event)) : state
}

/**
 * Folds a whole turn with the same `apply`, on a fresh local object instead of an immer draft:
 * nothing outside can see it before it is returned, so it stays pure without proxy costs on the
 * path every `runTurn` takes.
 */
function fold(events: Iterable<KernelEvent>, keep: (event: KernelEvent) => boolean): TurnMessageState {
  const state: TurnMessageState = { order: [], requested: new Map(), results: new Map(), discarded: false }
  for (const event of events) if (keep(event)) apply(state, event)
  return state
}

/** The message of a turn's state: results in `tool_use` order (calls without a result yet are left out). */
export function messageOf(state: TurnMessageState): ToolResultMessage {
  const content: ToolResultBlock[] = []
  if (state.discarded) return { role: 'user', content }
  // Calls arrive in tool_use order in every stream we know; sorting keeps it so if one does not.
  const order = [...state.order].sort((a, b) => (state.requested.get(a) ?? 0) - (state.requested.get(b) ?? 0))
  for (const id of order) {
    const block = state.results.get(id)
    if (block !== undefined) content.push(block)
  }
  return { role: 'user', content }
}

/**
 * Projects a log into one `tool_result` message per turn, in the order the turns started.
 * Discarded turns send nothing and are left out.
 *
 * @example
 * const messages = projectMessages(parseJsonl(readFileSync('session.jsonl', 'utf8')).events)
 */
export function projectMessages(events: Iterable<KernelEvent>): ToolResultMessage[] {
  const byTurn = new Map<string, KernelEvent[]>()
  for (const event of events) {
    // A child session's turns are its own conversation, not the session's (docs/subagents.md).
    if (event.parentToolUseId !== undefined) continue
    const list = byTurn.get(event.turnId)
    if (list === undefined) byTurn.set(event.turnId, [event])
    else list.push(event)
  }
  return [...byTurn.values()]
    .map((turn) => fold(turn, () => true))
    .filter((state) => !state.discarded)
    .map(messageOf)
}

/** Projects the message of one turn. */
export function projectTurnMessage(events: Iterable<KernelEvent>, turnId: string): ToolResultMessage {
  return messageOf(fold(events, (event) => event.turnId === turnId))
}
