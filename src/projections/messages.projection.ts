/**
 * The messages projection: for each turn, the user message of `tool_result` blocks the model
 * reads next, in `tool_use` order. Pure: the same events give the same messages, byte for byte.
 *
 * The reducer folds one turn (immer keeps its state immutable); a log is grouped by turn first,
 * so a long session costs time linear in its events rather than copying a growing map of turns.
 */
import { produce } from 'immer'
import type { KernelEvent, ToolResultBlock } from '../events/event.schema.js'

/** The Anthropic user message that answers a turn's tool calls. */
export interface ToolResultMessage {
  role: 'user'
  content: ToolResultBlock[]
}

export interface TurnMessageState {
  /** tool_use ids in the order the model wrote them. */
  order: string[]
  results: Record<string, ToolResultBlock>
}

export const initialTurnMessageState: TurnMessageState = { order: [], results: {} }

/** Folds one event of a turn into its state. Events that do not shape the message return the state as it was. */
export function reduceTurnMessage(state: TurnMessageState, event: KernelEvent): TurnMessageState {
  switch (event.type) {
    case 'tool.requested':
      if (event.toolUseId in state.results || state.order.includes(event.toolUseId)) return state
      return produce(state, (draft) => {
        draft.order.push(event.toolUseId)
      })
    case 'tool.result':
      // The first result wins: a tool_use is answered exactly once.
      if (state.results[event.toolUseId] !== undefined) return state
      return produce(state, (draft) => {
        draft.results[event.toolUseId] = event.block
      })
    default:
      return state
  }
}

/** The message of a turn's state: results in `tool_use` order (calls without a result yet are left out). */
export function messageOf(state: TurnMessageState): ToolResultMessage {
  const content: ToolResultBlock[] = []
  for (const id of state.order) {
    const block = state.results[id]
    if (block !== undefined) content.push(block)
  }
  return { role: 'user', content }
}

/**
 * Projects a log into one `tool_result` message per turn, in the order the turns started.
 *
 * @example
 * const messages = projectMessages(parseJsonl(readFileSync('session.jsonl', 'utf8')).events)
 */
export function projectMessages(events: Iterable<KernelEvent>): ToolResultMessage[] {
  const turns = new Map<string, TurnMessageState>()
  for (const event of events) {
    const state = turns.get(event.turnId) ?? initialTurnMessageState
    turns.set(event.turnId, reduceTurnMessage(state, event))
  }
  return [...turns.values()].map(messageOf)
}

/** Projects the message of one turn. */
export function projectTurnMessage(events: Iterable<KernelEvent>, turnId: string): ToolResultMessage {
  let state = initialTurnMessageState
  for (const event of events) if (event.turnId === turnId) state = reduceTurnMessage(state, event)
  return messageOf(state)
}
