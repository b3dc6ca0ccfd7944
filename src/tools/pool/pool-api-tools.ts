/**
 * The pool as each provider's `tools` parameter. One contract, each provider's mechanism:
 * Anthropic and OpenAI Responses get every tool in registry order, deferred ones marked
 * `defer_loading` (the order never changes, so the prompt-cache prefix holds); OpenAI Chat has
 * no deferral, so it gets the tools sent in full and then the loaded ones, in load order (new
 * ones last).
 */
import { createHash } from 'node:crypto'
import {
  anthropicTool,
  openAIChatTool,
  openAIResponsesTool,
  openAIResponsesToolSearch,
  type ApiFormat,
  type ApiToolOf,
  type PlannedTool,
} from '../to-api-format.js'
import type { Tool } from '../tool.types.js'
import type { Pool } from './assemble-pool.js'

/** The tools in the order the format sends them, each deferred or not. */
export function plannedTools(pool: Pool, format: ApiFormat, toolSearch: Tool | undefined): PlannedTool[] {
  const search: PlannedTool[] =
    pool.searching && toolSearch !== undefined ? [{ tool: toolSearch, deferred: false }] : []
  if (format === 'openai-chat')
    return [...search, ...[...pool.visible, ...pool.loaded].map((tool) => ({ tool, deferred: false }))]
  // Stays deferred: not loaded, or loaded by reference (the conversation carries the reference).
  const deferred = new Set([...pool.deferred, ...pool.loaded.filter((tool) => pool.referenced.has(tool.name))])
  return [...search, ...pool.offered.map((tool) => ({ tool, deferred: deferred.has(tool) }))]
}

/** The `tools` request parameter for `format`. */
export function poolApiTools<F extends ApiFormat>(
  pool: Pool,
  format: F,
  toolSearch: Tool | undefined,
): Array<ApiToolOf[F]> {
  const planned = plannedTools(pool, format, toolSearch)
  if (format === 'anthropic') return planned.map(anthropicTool) as Array<ApiToolOf[F]>
  if (format === 'openai-chat') return planned.map(openAIChatTool) as Array<ApiToolOf[F]>
  // Responses: ToolSearch is the API's own client-executed tool_search, not a function.
  const functions = planned.filter((p) => p.tool !== toolSearch).map(openAIResponsesTool)
  const search = planned.some((p) => p.tool === toolSearch) && toolSearch !== undefined
  return [...functions, ...(search ? [openAIResponsesToolSearch(toolSearch)] : [])] as Array<ApiToolOf[F]>
}

/** The serialised parameter's size and hash: what `pool.assembled` records. */
export function paramDigest(tools: readonly unknown[]): { hash: string; bytes: number } {
  const text = JSON.stringify(tools)
  return {
    hash: createHash('sha256').update(text).digest('hex').slice(0, 16),
    bytes: Buffer.byteLength(text),
  }
}
