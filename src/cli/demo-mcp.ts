/**
 * The MCP section of `toolkernel demo`: the kernel connects to the reference server
 * (@modelcontextprotocol/server-everything, spawned from its installed files over stdio), lists
 * its tools as deferred, finds one through ToolSearch and calls it.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { ToolResultBlock } from '../events/event.schema.js'
import type { EventLog } from '../ports/event-log.port.js'
import type { ResultStore } from '../ports/result-store.port.js'
import { createKernel } from '../kernel.js'
import { connectMcpServers } from '../mcp.js'
import { safeForTerminal } from './terminal.js'

export interface McpDemoOptions {
  out: (line: string) => void
  cwd: string
  log?: EventLog
  results?: ResultStore
}

/** Where server-everything's entry point is installed, if it is (it is a devDependency). */
export function everythingServerPath(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')
    const entry = join(dirname(pkg), 'dist', 'index.js')
    return existsSync(entry) ? entry : undefined
  } catch {
    return undefined
  }
}

/**
 * Runs the MCP section. Without server-everything installed it says so and returns.
 *
 * @example
 * await runMcpDemo({ out: console.log, cwd: root, log, results })
 */
export async function runMcpDemo({ out, cwd, log, results }: McpDemoOptions): Promise<void> {
  out('')
  out('── MCP: server-everything over stdio, its tools deferred ──')
  const entry = everythingServerPath()
  if (entry === undefined) {
    out('  (skipped: @modelcontextprotocol/server-everything is not installed — npm install it to see this part)')
    return
  }
  const source = connectMcpServers(
    { mcpServers: { everything: { command: process.execPath, args: [entry, 'stdio'] } } },
    { trusted: ['everything'], cwd },
  )
  try {
    await source.ready()
    const status = source.servers()[0]
    out(
      `  connected: everything (${status?.state ?? 'unknown'}, ${source.tools().length} tools, pid ${status?.pid ?? '?'})`,
    )
    const kernel = createKernel({
      tools: [],
      toolSources: [source],
      cwd,
      deferral: { mode: 'always' },
      permissions: { allow: ['mcp__everything'] },
      ...(log !== undefined && { log }),
      ...(results !== undefined && { results }),
    })
    const offered = kernel.apiTools()
    const deferred = offered.filter((tool) => tool.defer_loading === true).map((tool) => tool.name)
    out(
      `  sent in full: ${offered
        .filter((tool) => tool.defer_loading !== true)
        .map((tool) => tool.name)
        .join(', ')}`,
    )
    out(`  deferred (name only): ${deferred.join(', ')}`)
    const search = await kernel.runTurn(toolUse('toolu_mcp_search', 'ToolSearch', { query: 'add two numbers' }))
    out(`  ToolSearch "add two numbers" → ${summary(search.message.content[0])}`)
    const call = await kernel.runTurn(toolUse('toolu_mcp_sum', 'mcp__everything__get-sum', { a: 19, b: 23 }))
    out(`  mcp__everything__get-sum { a: 19, b: 23 } → ${summary(call.message.content[0])}`)
    await kernel.close()
  } finally {
    await source.close()
  }
}

function toolUse(id: string, name: string, input: unknown) {
  return { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id, name, input }] }
}

/** One line for a result: its text, or the tools a `tool_reference` answer names. */
function summary(block: ToolResultBlock | undefined): string {
  if (block === undefined) return '(no result)'
  const parts = typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : block.content
  const text = parts
    .map((part) =>
      part.type === 'text'
        ? part.text
        : part.type === 'tool_reference'
          ? `[tool_reference ${part.tool_name}]`
          : `[${part.type}]`,
    )
    .join(' ')
  const line = safeForTerminal(text.replace(/\s+/g, ' ').trim())
  return `${block.is_error === true ? 'error: ' : ''}${line.length > 160 ? `${line.slice(0, 157)}…` : line}`
}
