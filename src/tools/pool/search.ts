/**
 * ToolSearch's query language, kept as Claude Code's so prompts transfer: `select:A,B` loads
 * those tools by name; an exact tool name finds that tool; `mcp__server` (a name prefix ending
 * at a `__` boundary) finds that server's tools; `+term` requires a term; anything else is a
 * BM25 search. Pure: the same searchable set and query give the same answer on every machine.
 */
import type { Tool } from '../tool.types.js'
import { inputJsonSchema, textOf } from '../to-api-format.js'
import { guarded } from '../../util/guarded.js'
import { Bm25Index, FIELD_WEIGHTS, type SearchDocument } from './bm25.js'

export const DEFAULT_SEARCH_RESULTS = 5
export const MAX_SEARCH_RESULTS = 20

export interface SearchAnswer {
  /** `select` for `select:` queries, `search` otherwise: what `tool.loaded` records as `how`. */
  how: 'search' | 'select'
  /** Matching tools, best first (for `select:`, in the order asked). */
  matches: string[]
  /** `select:` names that are not searchable (unknown, denied, or not deferred). */
  missing: string[]
}

const indexes = new WeakMap<readonly Tool[], Bm25Index>()

/** The BM25 index of a searchable set (cached per set: a pool is rebuilt only between turns). */
export function indexOf(tools: readonly Tool[]): Bm25Index {
  let index = indexes.get(tools)
  if (index === undefined) {
    index = new Bm25Index(tools.map(searchDocument))
    indexes.set(tools, index)
  }
  return index
}

/** A tool as a search document: name parts, hint, description, parameter names and descriptions. */
export function searchDocument(tool: Tool): SearchDocument {
  const schema: Record<string, unknown> = guarded(() => inputJsonSchema(tool), { type: 'object' })
  const properties = (schema.properties ?? {}) as Record<string, { description?: unknown } | null>
  const parameters = Object.entries(properties).map(([key, value]) =>
    [key, typeof value?.description === 'string' ? value.description : ''].join(' '),
  )
  return {
    name: tool.name,
    fields: [
      { text: tool.name, weight: FIELD_WEIGHTS.name },
      { text: tool.searchHint ?? '', weight: FIELD_WEIGHTS.hint },
      { text: guarded(() => textOf(tool, 'prompt'), ''), weight: FIELD_WEIGHTS.description },
      { text: parameters.join(' '), weight: FIELD_WEIGHTS.parameter },
    ],
  }
}

/**
 * Answers a query over the searchable tools.
 *
 * @example
 * searchTools(pool.searchable, 'select:mcp__github__create_issue', 5).matches // ['mcp__github__create_issue']
 */
export function searchTools(tools: readonly Tool[], query: string, limit = DEFAULT_SEARCH_RESULTS): SearchAnswer {
  const max = Math.max(1, Math.min(MAX_SEARCH_RESULTS, Math.floor(limit)))
  const trimmed = query.trim()
  const names = new Set(tools.map((tool) => tool.name))
  if (/^select:/i.test(trimmed)) {
    const asked = [
      ...new Set(
        trimmed
          .slice('select:'.length)
          .split(',')
          .map((name) => name.trim()),
      ),
    ].filter((name) => name !== '')
    return {
      how: 'select',
      matches: asked.filter((name) => names.has(name)).slice(0, MAX_SEARCH_RESULTS),
      missing: asked.filter((name) => !names.has(name)),
    }
  }
  if (names.has(trimmed)) return { how: 'search', matches: [trimmed], missing: [] }
  const prefix = serverPrefix(trimmed)
  if (prefix !== undefined) {
    const matches = [...names].filter((name) => name.startsWith(prefix)).sort(byCodePoint)
    if (matches.length > 0) return { how: 'search', matches: matches.slice(0, max), missing: [] }
  }
  const words = trimmed.split(/\s+/).filter((word) => word !== '')
  const required = words.filter((word) => word.startsWith('+') && word.length > 1).map((word) => word.slice(1))
  const rest = words.filter((word) => !word.startsWith('+')).join(' ')
  const hits = indexOf(tools).search(rest, { limit: max, required })
  return { how: 'search', matches: hits.map((hit) => hit.name), missing: [] }
}

/** `mcp__server` or `mcp__server__` as the prefix of that server's tool names. */
function serverPrefix(query: string): string | undefined {
  const match = /^(mcp__[a-zA-Z0-9_-]+?)(__)?$/.exec(query)
  return match?.[1] === undefined ? undefined : `${match[1]}__`
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
