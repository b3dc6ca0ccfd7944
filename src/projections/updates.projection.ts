/** The updates projection: what `turn.updates()` yields, one update per event that matters to a UI. */
import type { KernelEvent, ToolResultBlock } from '../events/event.schema.js'
import type { ProgressPair } from '../events/progress-pair.js'

/**
 * One update of a turn. `P` is the progress the kernel's tools report: per tool
 * (`ToolProgress` pairs, what `createKernel` gives when its tools are known statically), so that
 * `tool` narrows `data`; or the data itself (`TurnUpdate<string>`); `unknown` otherwise.
 */
export type TurnUpdate<P = unknown> =
  | { type: 'started'; toolUseId: string }
  | ProgressUpdate<P>
  | { type: 'completed'; toolUseId: string; outcome: 'success' | 'error' | 'cancelled'; block: ToolResultBlock }

/** A progress update: `tool` names the tool that reports `data` (docs/decisions/tools.md, 173). */
// No `any` test (`0 extends 1 & P`) here: it would make `P` invariant, and a `Kernel<P>` would no
// longer go where a `Kernel` is expected. `any` falls to PlainProgress through EachTool's else.
export type ProgressUpdate<P = unknown> = [P] extends [never]
  ? PlainProgress<P>
  : [P] extends [ProgressPair]
    ? EachTool<P>
    : PlainProgress<P>

type PlainProgress<P> = { type: 'progress'; toolUseId: string; tool: string; data: P }

/** One member per tool: the union `tool` discriminates. */
type EachTool<P> =
  P extends ProgressPair<infer N, infer D>
    ? { type: 'progress'; toolUseId: string; tool: N; data: D }
    : PlainProgress<P>

/**
 * The update an event makes, if any. Pure. `tool` is the call's tool name (its `tool.requested`),
 * which a progress update carries.
 */
export function updateOf(event: KernelEvent, tool = ''): TurnUpdate | undefined {
  switch (event.type) {
    case 'tool.started':
      return { type: 'started', toolUseId: event.toolUseId }
    case 'tool.progress':
      return { type: 'progress', toolUseId: event.toolUseId, tool, data: event.data }
    case 'tool.result':
      return { type: 'completed', toolUseId: event.toolUseId, outcome: event.outcome, block: event.block }
    default:
      return undefined
  }
}

/** `updateOf` over a turn's events in order: it remembers each call's tool name from its request. */
export function namedUpdates(): (event: KernelEvent) => TurnUpdate | undefined {
  const names = new Map<string, string>()
  return (event) => {
    if (event.type === 'tool.requested') names.set(event.toolUseId, event.name)
    return updateOf(event, event.type === 'tool.progress' ? names.get(event.toolUseId) : undefined)
  }
}
