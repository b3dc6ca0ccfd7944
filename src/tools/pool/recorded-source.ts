/**
 * Tool sources rebuilt from a log, for replay: each source the log's `pool.changed` events name
 * (other than the app) offers, turn by turn, exactly the tools the log says it had then, with the
 * name map and the withheld tools it recorded — so the replaying kernel's pool makes the same
 * changes at the same turn boundaries and resolves the same names, without the servers.
 */
import type { EventOf, KernelEvent } from '../../events/event.schema.js'
import type { ToolSource, ToolSourceDiagnostic, ToolSourceName } from '../tool-source.types.js'
import type { Tool } from '../tool.types.js'

export interface RecordedSources {
  /** One source per id the log's `pool.changed` events name, app changes aside; empty at first. */
  readonly sources: ToolSource[]
  /** Names any recorded source ever offers: these are not the kernel's own tools in replay. */
  readonly sourced: ReadonlySet<string>
  /** Applies one turn's recorded changes, before the turn starts (the kernel reads them at its start). */
  advance(turnEvents: readonly KernelEvent[]): void
}

type Change = EventOf<'pool.changed'>

/**
 * The recorded sources of a log, offering the given tools by name.
 *
 * @example
 * const recorded = recordedSources(events, tools)
 * const own = tools.filter((t) => !recorded.sourced.has(t.name))
 * const kernel = createKernel({ tools: own, toolSources: recorded.sources })
 * for (const turn of turns) { recorded.advance(turn); await replayTurn(kernel, turn) }
 */
export function recordedSources(events: readonly KernelEvent[], tools: readonly Tool[]): RecordedSources {
  const changes = events.filter((e): e is Change => e.type === 'pool.changed' && e.source !== 'app')
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  const states = new Map<string, RecordedSource>()
  for (const change of changes)
    if (!states.has(change.source)) states.set(change.source, new RecordedSource(change.source))
  return {
    sources: [...states.values()],
    sourced: new Set(changes.flatMap((c) => c.added)),
    advance(turnEvents) {
      for (const e of turnEvents)
        if (e.type === 'pool.changed' && e.source !== 'app') states.get(e.source)?.apply(e, byName)
    },
  }
}

class RecordedSource implements ToolSource {
  readonly id: string
  #tools: Tool[] = []
  readonly #names = new Map<string, ToolSourceName>()
  #withheld: ToolSourceDiagnostic[] = []
  readonly #listeners = new Set<() => void>()

  constructor(id: string) {
    this.id = id
  }

  tools(): readonly Tool[] {
    return this.#tools
  }

  status(): { state: 'ready' } {
    return { state: 'ready' }
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  names(): readonly ToolSourceName[] {
    return [...this.#names.values()]
  }

  diagnostics(): readonly ToolSourceDiagnostic[] {
    return this.#withheld
  }

  /** A tool the log names but replay was not given is left out: the replay then diverges right there. */
  apply(change: Change, byName: ReadonlyMap<string, Tool>): void {
    const gone = new Set(change.removed)
    const offered = [...change.added, ...(change.skipped ?? [])].flatMap((name) => byName.get(name) ?? [])
    this.#tools = [...this.#tools.filter((tool) => !gone.has(tool.name)), ...offered]
    for (const name of gone) this.#names.delete(name)
    for (const entry of change.names ?? []) this.#names.set(entry.name, entry)
    if (change.withheld !== undefined) this.#withheld = change.withheld.map((w) => ({ kind: 'tool_withheld', ...w }))
    for (const listener of [...this.#listeners]) listener()
  }
}
