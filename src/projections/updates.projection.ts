/** The updates projection: what `turn.updates()` yields, one update per event that matters to a UI. */
import type { KernelEvent, ToolResultBlock } from '../events/event.schema.js'

/**
 * One update of a turn. `P` is the progress the kernel's tools report (`KernelProgress`):
 * `unknown` unless the tools are known statically.
 */
export type TurnUpdate<P = unknown> =
  | { type: 'started'; toolUseId: string }
  | { type: 'progress'; toolUseId: string; data: P }
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
