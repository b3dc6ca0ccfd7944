/** The updates projection: what `turn.updates()` yields, one update per event that matters to a UI. */
import type { KernelEvent, ToolResultBlock } from '../events/event.schema.js'

export type TurnUpdate =
  | { type: 'started'; toolUseId: string }
  | { type: 'progress'; toolUseId: string; data: unknown }
  | { type: 'completed'; toolUseId: string; outcome: 'success' | 'error' | 'cancelled'; block: ToolResultBlock }

/** The update an event makes, if any. Pure. */
export function updateOf(event: KernelEvent): TurnUpdate | undefined {
  switch (event.type) {
    case 'tool.started':
      return { type: 'started', toolUseId: event.toolUseId }
    case 'tool.progress':
      return { type: 'progress', toolUseId: event.toolUseId, data: event.data }
    case 'tool.result':
      return { type: 'completed', toolUseId: event.toolUseId, outcome: event.outcome, block: event.block }
    default:
      return undefined
  }
}
