/**
 * The tool pool: what the model is offered this turn, a pure function of the registry, the
 * rules, the mode and the log (its loaded set). Filters come first — disabled, denied outright,
 * not offered in this mode — so nothing later (search, select, an unloaded call's recovery) can
 * reveal a tool the model may not use. Then the deferral threshold splits the rest into tools
 * sent in full, deferred ones, and deferred ones the log has loaded.
 */
import { guarded } from '../../util/guarded.js'
import type { Tool } from '../tool.types.js'
import { deferralOutcome, type DeferralOptions, type ThresholdOutcome } from './threshold.js'

export interface PoolInput {
  /** The registry's tools, in registry order (new tools last). */
  tools: readonly Tool[]
  /** A rule denies the tool outright (`Tool` with no specifier): it is never offered. */
  denied: (tool: Tool) => boolean
  mode: string
  /** Names the log has loaded, in load order (see `loadedFromLog`). */
  loaded: readonly string[]
  /** Of those, the ones a search or select loaded (see `referencedFromLog`). Default: none. */
  referenced?: readonly string[]
  deferral?: DeferralOptions
  /**
   * Whether a tool is enabled, as its `isEnabled()` answered when the pool was last assembled
   * between turns (the kernel's pool reads it once per assembly). Default: ask `isEnabled()` now.
   */
  enabled?: (tool: Tool) => boolean
}

/** Why a tool is not in the pool at all. */
export type FilterReason = 'disabled' | 'denied' | 'mode'

export interface Pool {
  /** Every tool the model may use, in registry order. */
  offered: readonly Tool[]
  /** Sent in full every turn, in registry order. */
  visible: readonly Tool[]
  /** Deferred and not loaded: only searchable (and, for Anthropic and Responses, named). */
  deferred: readonly Tool[]
  /** Deferred and loaded, in load order (formats without deferral append them in this order). */
  loaded: readonly Tool[]
  /** What ToolSearch searches: deferred and loaded, in registry order. */
  searchable: readonly Tool[]
  /**
   * Loaded tools the model got by reference (ToolSearch): providers with `defer_loading` keep
   * them deferred, since the reference in the conversation expands them. Tools loaded by a call
   * or the app are sent in full.
   */
  referenced: ReadonlySet<string>
  /** Tools left out before anything else, and why. */
  filtered: ReadonlyArray<{ name: string; reason: FilterReason }>
  threshold: ThresholdOutcome
  /** Whether ToolSearch is offered: some tool is deferred (loaded or not). */
  searching: boolean
  find(name: string): Tool | undefined
}

/**
 * Assembles the pool.
 *
 * @example
 * const pool = assemblePool({ tools, denied: () => false, mode: 'default', loaded: loadedFromLog(log.read()) })
 * pool.deferred.map((t) => t.name)
 */
export function assemblePool(input: PoolInput): Pool {
  const filtered: Array<{ name: string; reason: FilterReason }> = []
  const offered: Tool[] = []
  for (const tool of input.tools) {
    const reason = filterReason(tool, input)
    if (reason === undefined) offered.push(tool)
    else filtered.push({ name: tool.name, reason })
  }
  const deferrable = offered.filter((tool) => tool.shouldDefer === true && tool.alwaysLoad !== true)
  const threshold = deferralOutcome(deferrable, input.deferral)
  const deferSet = new Set(threshold.deferred ? deferrable : [])
  const byName = new Map(offered.map((tool) => [tool.name, tool]))
  const loadedNames = [...new Set(input.loaded)].filter((name) => {
    const tool = byName.get(name)
    return tool !== undefined && deferSet.has(tool)
  })
  const loadedSet = new Set(loadedNames)
  return {
    offered,
    visible: offered.filter((tool) => !deferSet.has(tool)),
    deferred: offered.filter((tool) => deferSet.has(tool) && !loadedSet.has(tool.name)),
    loaded: loadedNames.map((name) => byName.get(name) as Tool),
    searchable: offered.filter((tool) => deferSet.has(tool)),
    referenced: new Set((input.referenced ?? []).filter((name) => loadedSet.has(name))),
    filtered,
    threshold,
    searching: deferSet.size > 0,
    find: (name) => byName.get(name),
  }
}

/** Why a tool is left out of the pool before anything else; undefined for a tool offered. */
export function filterReason(
  tool: Tool,
  input: Pick<PoolInput, 'denied' | 'mode' | 'enabled'>,
): FilterReason | undefined {
  const enabled = input.enabled ?? ((t: Tool) => guarded(() => t.isEnabled(), false))
  if (!enabled(tool)) return 'disabled'
  if (guarded(() => input.denied(tool), true)) return 'denied'
  const modes = tool.modes
  if (modes !== undefined && !modes.includes(input.mode)) return 'mode'
  return undefined
}

/** The names of each set: what `pool.assembled` records and what tests compare. */
export interface PoolSnapshot {
  visible: string[]
  deferred: string[]
  loaded: string[]
}

export function poolSnapshot(pool: Pool): PoolSnapshot {
  const names = (tools: readonly Tool[]) => tools.map((tool) => tool.name)
  return { visible: names(pool.visible), deferred: names(pool.deferred), loaded: names(pool.loaded) }
}
