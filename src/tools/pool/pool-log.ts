/**
 * What the log says of the pool: which deferred tools are loaded (every `tool.loaded`, in
 * order) and what each turn was offered (`pool.assembled`). Pure, events in: resume, replay and
 * recovery rebuild the loaded set from the log alone, so no side store can disagree with it.
 */
import type { KernelEvent, KernelEventInput } from '../../events/event.schema.js'

/**
 * The loaded tools, first load first (a tool loaded twice keeps its first place, so formats that
 * append loaded tools keep a stable order). The session's own by default; with `under`, those of
 * the child session under that call (a child's loads are its own: docs/subagents.md).
 *
 * @example
 * const loaded = loadedFromLog(parseJsonl(text).events)
 */
export function loadedFromLog(events: Iterable<KernelEvent>, under?: string): string[] {
  const loaded = new Set<string>()
  for (const event of events)
    if (event.type === 'tool.loaded' && event.parentToolUseId === under) loaded.add(event.name)
  return [...loaded]
}

/**
 * The loaded tools a search or select loaded (the model got a `tool_reference` or the Responses
 * `tool_search_output` for them, so the provider keeps them deferred), as opposed to a call or the app.
 */
export function referencedFromLog(events: Iterable<KernelEvent>, under?: string): string[] {
  const first = new Map<string, string>()
  for (const event of events)
    if (event.type === 'tool.loaded' && event.parentToolUseId === under && !first.has(event.name))
      first.set(event.name, event.how)
  return [...first].filter(([, how]) => how === 'search' || how === 'select').map(([name]) => name)
}

/** How a deferred tool was loaded: found by ToolSearch, selected by name, called, or loaded by the app. */
export type LoadHow = 'search' | 'select' | 'call' | 'app'

export function loadedEvent(name: string, how: LoadHow, turnId: string, by?: string): KernelEventInput {
  return { type: 'tool.loaded', turnId, name, how, ...(by !== undefined ? { loadedBy: by } : {}) }
}
