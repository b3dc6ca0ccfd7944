/**
 * The type-level brand that pairs a `tool.progress` event's data with its tool's name
 * (docs/decisions/tools.md, 173): what `ToolProgress` (src/tools/progress.types.ts) brands a
 * tool's progress with, and what `TurnUpdate` (src/projections/updates.projection.ts) reads back
 * to narrow an update's `data` by its `tool`. A type only: no value has it.
 */
declare const REPORTS: unique symbol

/** The brand of a `ToolProgress`: its tool's name and data. */
export interface ProgressPair<N extends string = string, D = unknown> {
  readonly [REPORTS]: { readonly tool: N; readonly data: D }
}
