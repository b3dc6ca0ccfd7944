/**
 * ToolSearch: finds deferred tools and loads them. The kernel offers it when some tool is
 * deferred; it searches only the pool's deferred tools (denied, disabled and mode-excluded tools
 * are filtered out before), and each tool it finds is loaded — a `tool.loaded` event — so every
 * later request carries it, through resume and replay alike.
 */
import { z } from 'zod'
import { toolResultBlock, type ToolResultBlock } from '../../events/event.schema.js'
import { buildTool } from '../build-tool.js'
import type { Pool } from '../pool/assemble-pool.js'
import { DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS, searchTools, type SearchAnswer } from '../pool/search.js'
import { jsonInMarkup, openAIChatTool, openAIResponsesTool, type ApiFormat } from '../to-api-format.js'
import type { Tool } from '../tool.types.js'

export const TOOL_SEARCH_NAME = 'ToolSearch'

/** What ToolSearch needs of its kernel: the pool of this turn, the format, and a way to load. */
export interface ToolSearchAccess {
  pool(): Pool
  format(): ApiFormat
  /** Ids of the tool sources still connecting (their tools may appear on a later turn). */
  connecting(): string[]
  load(name: string, how: 'search' | 'select', at: { turnId: string; toolUseId: string }): void
}

export interface ToolSearchOutput extends SearchAnswer {
  query: string
  format: ApiFormat
  connecting: string[]
  /** The found tools' full definitions, for formats without `tool_reference` (their schemas go as text). */
  definitions?: unknown[]
}

const PROMPT = `Finds tools that are available but not yet loaded, and loads them so you can call them. Only the names of deferred tools are known up front; search before calling one.

Query forms:
- keywords, e.g. "create github issue": ranked search over tool names, descriptions and parameters
- "+slack send": words with + must all occur in a result
- "select:Name1,Name2": load exactly these tools by name
- an exact tool name, or an MCP server prefix such as "mcp__github": that tool, or that server's tools

Returns up to max_results tools (default ${DEFAULT_SEARCH_RESULTS}, at most ${MAX_SEARCH_RESULTS}); each one found is loaded and can be called from your next message. When nothing matches, try other words; a tool source that is still connecting may add tools later.`

const InputSchema = z.strictObject({
  query: z
    .string()
    .min(1)
    .describe('Keywords, "+required" words, "select:A,B", an exact tool name or an mcp__server prefix'),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_RESULTS)
    .optional()
    .describe(`Most tools to return (default ${DEFAULT_SEARCH_RESULTS}, at most ${MAX_SEARCH_RESULTS})`),
})

/**
 * A ToolSearch bound to one kernel's pool (the kernel creates it; apps do not).
 *
 * @example
 * const search = createToolSearch({ pool: () => pool, format: () => 'anthropic', connecting: () => [], load })
 */
export function createToolSearch(access: ToolSearchAccess): Tool {
  return buildTool({
    name: TOOL_SEARCH_NAME,
    description: () => 'Finds deferred tools by keyword or name and loads them.',
    prompt: () => PROMPT,
    inputSchema: InputSchema,
    alwaysLoad: true,
    // Not concurrency-safe, though it only reads: loading changes the pool, and a call beside it
    // must see it loaded or not the same way every time (live, replay, resume). It runs alone,
    // in order; a search takes microseconds.
    isConcurrencySafe: () => false,
    isReadOnly: () => true,
    // The definitions must reach the model whole: never persisted to the result store.
    maxResultSizeChars: Infinity,
    async call({ query, max_results }, context): Promise<ToolSearchOutput> {
      // Search and load after a turn of the microtask queue, as any tool's answer arrives: the
      // loads then land at the same point of the log whether or not the store fenced first.
      await Promise.resolve()
      const pool = access.pool()
      const answer = searchTools(pool.searchable, query, max_results ?? DEFAULT_SEARCH_RESULTS)
      const loaded = new Set(pool.loaded.map((tool) => tool.name))
      for (const name of answer.matches)
        if (!loaded.has(name)) access.load(name, answer.how, { turnId: context.turnId, toolUseId: context.toolUseId })
      const format = access.format()
      const output: ToolSearchOutput = { query, format, connecting: access.connecting(), ...answer }
      if (format !== 'anthropic' && answer.matches.length > 0) output.definitions = definitionsOf(pool, answer, format)
      return output
    },
    mapToolResultToToolResultBlockParam: (output, toolUseId) => searchResultBlock(output, toolUseId),
  })
}

function definitionsOf(pool: Pool, answer: SearchAnswer, format: ApiFormat): unknown[] {
  return answer.matches.flatMap((name) => {
    const tool = pool.find(name)
    if (tool === undefined) return []
    return [
      format === 'openai-responses'
        ? openAIResponsesTool({ tool, deferred: false })
        : openAIChatTool({ tool, deferred: false }),
    ]
  })
}

/**
 * The result as the model reads it: Anthropic gets `tool_reference` blocks (the API expands each
 * into the tool's definition); other formats get the definitions as JSON text — for OpenAI
 * Responses exactly the function tools a `tool_search_output` item carries.
 */
export function searchResultBlock(output: ToolSearchOutput, toolUseId: string): ToolResultBlock {
  if (output.matches.length === 0) return toolResultBlock(toolUseId, noMatchText(output), false)
  const missing =
    output.missing.length > 0 ? `Not found among the deferred tools: ${inText(output.missing)}.` : undefined
  if (output.format === 'anthropic') {
    const refs = output.matches.map((name) => ({ type: 'tool_reference' as const, tool_name: name }))
    return toolResultBlock(toolUseId, missing === undefined ? refs : [{ type: 'text', text: missing }, ...refs], false)
  }
  if (output.format === 'openai-responses')
    return toolResultBlock(toolUseId, JSON.stringify(output.definitions ?? []), false)
  // Escaped: a definition (a server's description) must not close the frame (jsonInMarkup).
  const functions = (output.definitions ?? []).map((d) => `<function>${jsonInMarkup(d)}</function>`).join('\n')
  const head = `Loaded ${output.matches.length} tool(s): ${inText(output.matches)}. Call them like any other tool; their definitions:`
  return toolResultBlock(
    toolUseId,
    [head, `<functions>\n${functions}\n</functions>`, missing ?? ''].join('\n').trim(),
    false,
  )
}

/** Names in the text around the frame, with `<`, `>` and `&` escaped as in the frame. */
function inText(names: readonly string[]): string {
  return names.map((name) => jsonInMarkup(name).slice(1, -1)).join(', ')
}

function noMatchText(output: ToolSearchOutput): string {
  const asked =
    output.how === 'select' ? `None of ${output.missing.join(', ')} is` : `No tool matches "${output.query}";`
  const pending =
    output.connecting.length > 0
      ? ` Tool sources still connecting: ${output.connecting.join(', ')} — their tools may appear later; search again on a later turn.`
      : ''
  const what =
    output.how === 'select'
      ? ' a deferred tool that can be loaded (check the spelling, or search by keywords instead).'
      : ' try other keywords, fewer words, or an mcp__server prefix.'
  return `${asked}${what}${pending}`
}

/** What a call to a deferred tool that was not loaded yet adds to its validation error. */
export function unloadedToolText(name: string): string {
  return `${name} is a deferred tool and had not been loaded, so its full schema was not in your tool list. It is loaded now; to see its schema first, call ${TOOL_SEARCH_NAME} with query "select:${name}", then send the call again with input that matches it.`
}

/** Why a call to a tool the permission mode leaves out did not run. */
export function outOfModeText(name: string, mode: string): string {
  return `${name} is not available in ${mode} mode, so the call did not run. Use one of the tools you were given, or ask the user to switch modes.`
}
