/**
 * What a call says about itself, for people and for the rules: the tool's flags for this input
 * (`isReadOnly`, `isDestructive`, `isOpenWorld`), its name for people and the activity text a UI
 * shows while it runs (docs/decisions/permissions.md, 170). Read fail-closed: a predicate that
 * throws makes the call not read-only, destructive and open-world.
 */
import { guarded } from '../util/guarded.js'
import type { PredicateContext, Tool } from './tool.types.js'

/** A call's flags, as the permission request, the `@flag` rules and telemetry see them. */
export interface CallFlags {
  readonly readOnly: boolean
  readonly destructive: boolean
  readonly openWorld: boolean
  /** The tool's name for people, for this input (`Bash (list files)`). */
  readonly userFacingName: string
  /** What the call does, for a UI while it runs (`Reading src/a.ts`). */
  readonly activity: string
}

/** The flag names `@flag` permission rules take. */
export const RULE_FLAGS = ['destructive', 'openWorld', 'readOnly'] as const
export type RuleFlag = (typeof RULE_FLAGS)[number]

/** Text for people is cut here: a UI line, not the input. */
const TEXT_CHARS = 200

/**
 * The call's flags. Each predicate is asked once and fails closed; they are taken as the tool
 * declares them (a tool that says both read-only and destructive is asked about by `@destructive`).
 */
export function flagsOf(tool: Tool, input: unknown, context?: PredicateContext): CallFlags {
  const readOnly = guarded(() => tool.isReadOnly(input, context) === true, false)
  const destructive = guarded(() => tool.isDestructive(input, context) !== false, true)
  const openWorld = guarded(() => tool.isOpenWorld(input, context) !== false, true)
  const userFacingName = text(
    guarded(() => tool.userFacingName(input), tool.name),
    tool.name,
  )
  const activity = text(
    guarded(() => tool.activityDescription(input), undefined),
    `Running ${userFacingName}`,
  )
  return { readOnly, destructive, openWorld, userFacingName, activity }
}

function text(value: unknown, fallback: string): string {
  if (typeof value !== 'string' || value.trim() === '') return fallback
  return value.length > TEXT_CHARS ? `${value.slice(0, TEXT_CHARS - 1)}…` : value
}
