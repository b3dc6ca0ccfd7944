/** Shared pieces of the MCP tests: real servers (server-everything, the faulty fixture), kernels, turns. */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { createDirectoryResultStore, type KernelOptions, type Tool, type ToolResultBlock } from '../../src/index.js'
import { connectMcpServers, type McpOptions, type McpTool, type McpToolSource } from '../../src/mcp.js'
import { assistant, testKernel } from '../helpers.js'

export const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js')
export const FAULTY = resolve('test/fixtures/mcp-servers/faulty.mjs')

export const everythingServer = { command: process.execPath, args: [EVERYTHING, 'stdio'] }

/** A stdio faulty server; `state` is the file where it counts its side effects. */
export function faultyServer(label: string, state = tempFile()) {
  return { command: process.execPath, args: [FAULTY, 'stdio'], env: { FAULTY_LABEL: label, FAULTY_STATE: state } }
}

export function tempFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'tk-mcp-')), 'state.txt')
}

/** How often the faulty server really ran `tool` (across restarts). */
export function sideEffects(state: string, tool: string): number {
  if (!existsSync(state)) return 0
  return readFileSync(state, 'utf8')
    .split('\n')
    .filter((line) => line === tool).length
}

const FAST: McpOptions = { restart: { initialDelayMs: 20, maxDelayMs: 200 }, connectTimeoutMs: 20_000 }

/** Connects and waits for the first attempt of every server. */
export async function connect(servers: Record<string, unknown>, options: McpOptions = {}): Promise<McpToolSource> {
  const source = connectMcpServers({ mcpServers: servers }, { ...FAST, ...options })
  await source.ready()
  return source
}

/** Resolves when `predicate` holds for the source (checked now and after each change). */
export function until(source: McpToolSource, predicate: () => boolean): Promise<void> {
  if (predicate()) return Promise.resolve()
  return new Promise((resolve) => {
    const unsubscribe = source.subscribe(() => {
      if (!predicate()) return
      unsubscribe()
      resolve()
    })
  })
}

export function serverState(source: McpToolSource, server: string) {
  return source.servers().find((status) => status.server === server)
}

/**
 * A kernel with the source's tools (as `tools`, until `toolSources` lands), a temp result store,
 * and — unless the test sets its own permissions — allow rules for every server (MCP tools ask).
 */
export function mcpKernel(tools: readonly Tool[], options: Partial<KernelOptions> = {}) {
  const results = createDirectoryResultStore(mkdtempSync(join(tmpdir(), 'tk-mcp-results-')))
  const allow = [...new Set(tools.map((tool) => tool.name.split('__').slice(0, 2).join('__')))]
  return testKernel(tools, { results, permissions: { allow }, ...options })
}

/** Runs one turn of calls and returns the blocks plus the events. */
export async function run(
  kernel: ReturnType<typeof mcpKernel>,
  uses: Array<[id: string, name: string, input: unknown]>,
  signal?: AbortSignal,
) {
  const { message, events } = await kernel.runTurn(assistant(...uses), signal !== undefined ? { signal } : {})
  return { blocks: message.content as ToolResultBlock[], events }
}

/** The text of a result block (joined text parts). */
export function textOf(block: ToolResultBlock | undefined): string {
  if (block === undefined) return ''
  if (typeof block.content === 'string') return block.content
  return block.content.map((part) => ('text' in part ? part.text : `[${part.type}]`)).join('\n')
}

export function toolNamed(source: McpToolSource, server: string, tool: string): McpTool {
  const found = source.serverTools().find((candidate) => candidate.mcp.server === server && candidate.mcp.tool === tool)
  if (found === undefined)
    throw new Error(
      `no tool ${server}/${tool} in ${source
        .tools()
        .map((t) => t.name)
        .join(', ')}`,
    )
  return found
}

/** The faulty server over HTTP in its own process: its URL and the process (the test stops it). */
export async function startHttpFaulty(
  label: string,
  state = tempFile(),
): Promise<{ url: string; child: ChildProcess; state: string }> {
  const child = spawn(process.execPath, [FAULTY, 'http'], {
    env: { ...process.env, FAULTY_LABEL: label, FAULTY_STATE: state },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })
  const port = await new Promise<string>((resolvePort, reject) => {
    child.once('exit', (code) => reject(new Error(`faulty http server exited with ${code}`)))
    lines.on('line', (line) => {
      const match = /^LISTENING (\d+)$/.exec(line)
      if (match) resolvePort(match[1] as string)
    })
  })
  return { url: `http://127.0.0.1:${port}/mcp`, child, state }
}
