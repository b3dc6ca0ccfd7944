/**
 * What `pool.changed` records of a tool source besides the names it added and removed: what each
 * added name stands for (the source's name map) and which tools it withheld and why. Read through
 * `guarded`: a source that throws records nothing rather than stopping the pool.
 */
import type { ToolSource } from '../tool-source.types.js'
import { guarded } from '../../util/guarded.js'

/** One entry of the name map: a tool name and the server and tool it stands for. */
export interface NameEntry {
  name: string
  server: string
  tool: string
}

/** A tool the source left out of its tools, and why. */
export interface WithheldEntry {
  server: string
  tool: string
  reason: string
}

/** The name map's entries for `added`, in the order of `added`; empty when the source has no map. */
export function namesFor(source: ToolSource, added: readonly string[]): NameEntry[] {
  if (source.names === undefined || added.length === 0) return []
  const map = new Map(guarded(() => [...(source.names?.() ?? [])], []).map((entry) => [entry.name, entry]))
  return added.flatMap((name) => {
    const entry = map.get(name)
    return entry === undefined ? [] : [{ name, server: entry.server, tool: entry.tool }]
  })
}

/** The tools the source withholds now, or undefined for a source that reports none. */
export function withheldOf(source: ToolSource): WithheldEntry[] | undefined {
  if (source.diagnostics === undefined) return undefined
  return guarded(() => [...(source.diagnostics?.() ?? [])], []).flatMap((d) =>
    d.kind === 'tool_withheld' && d.tool !== undefined ? [{ server: d.server, tool: d.tool, reason: d.reason }] : [],
  )
}
