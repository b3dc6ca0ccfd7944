/**
 * What the log says of the pool: which deferred tools are loaded (every `tool.loaded`, in
 * order) and what each turn was offered (`pool.assembled`). Pure, events in: resume, replay and
 * recovery rebuild the loaded set from the log alone, so no side store can disagree with it.
 */
import type { KernelEvent } from '../../events/event.schema.js'

/**
 * The loaded tools, first load first (a tool loaded twice keeps its first place, so formats that
 * append loaded tools keep a stable order).
 *
 * @example
 * const loaded = loadedFromLog(parseJsonl(text).events)
 */
export function loadedFromLog(events: Iterable<KernelEvent>): string[] {
  const loaded = new Set<string>()
  for (const event of events) if (event.type === 'tool.loaded') loaded.add(event.name)
  return [...loaded]
}

/**
 * The loaded tools a search or select loaded (the model got a `tool_reference` or the Responses
 * `tool_search_output` for them, so the provider keeps them deferred), as opposed to a call or the app.
 */
export function referencedFromLog(events: Iterable<KernelEvent>): string[] {
  const first = new Map<string, string>()
  for (const event of events)
    if (event.type === 'tool.loaded' && !first.has(event.name)) first.set(event.name, event.how)
  return [...first].filter(([, how]) => how === 'search' || how === 'select').map(([name]) => name)
}
