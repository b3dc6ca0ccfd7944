/**
 * The tools of a set of MCP servers as one ToolSource. Names are allocated over all servers at
 * once (so they are unique and independent of listing order); tools whose schema cannot be sent
 * are withheld with a diagnostic; a server's `list_changed` or a restart notifies subscribers, and
 * the pool applies the change between turns.
 */
import type { ToolSource, ToolSourceStatus } from '../tools/tool-source.types.js'
import { canonicalJson } from '../util/canonical-json.js'
import type { McpConnection, McpConnectionState, McpListedTool } from './connection.types.js'
import { flagsFor } from './flags.js'
import { parseListedTool } from './listing.js'
import { allocateNames, fullName, type McpNameEntry } from './names.js'
import { buildResourceTools, type McpResourceTool } from './resources.js'
import { prepareSchema, type PreparedSchema } from './schema.js'
import { buildMcpTool, type McpTool } from './tool.js'

/** Something the app (and the log) should know about: a tool withheld, a server that failed. */
export interface McpDiagnostic {
  readonly kind: 'tool_withheld' | 'server_down'
  readonly server: string
  readonly tool?: string
  readonly reason: string
}

/** Where one server stands. */
export interface McpServerStatus {
  readonly server: string
  readonly state: McpConnectionState
  readonly tools: number
  readonly fault?: string
  readonly pid?: number
  readonly stderr: readonly string[]
}

/** A ToolSource over MCP servers, with what the log and the app need besides the tools. */
export interface McpToolSource extends ToolSource {
  /**
   * The servers' tools, sorted by name, then ListMcpResources and ReadMcpResource while at least
   * one server advertises the `resources` capability.
   */
  tools(): readonly (McpTool | McpResourceTool)[]
  /** The servers' own tools only. */
  serverTools(): readonly McpTool[]
  /** The name map: every tool's name and the server and tool it stands for, sorted by name. */
  names(): readonly McpNameEntry[]
  /** Tools withheld and servers down, as of now. */
  diagnostics(): readonly McpDiagnostic[]
  servers(): readonly McpServerStatus[]
  /** Settles once every server has connected or failed its first attempt. */
  ready(): Promise<void>
  /** Closes every connection (stdio servers are stopped). */
  close(): Promise<void>
}

export interface McpSourceOptions {
  readonly id?: string
  /** Servers whose hints may shape scheduling and retries. */
  readonly trusted: ReadonlySet<string>
}

interface Snapshot {
  readonly tools: readonly McpTool[]
  readonly offered: readonly (McpTool | McpResourceTool)[]
  readonly names: readonly McpNameEntry[]
  readonly diagnostics: readonly McpDiagnostic[]
}

/** The source over already opened connections. */
export function createMcpToolSource(connections: readonly McpConnection[], options: McpSourceOptions): McpToolSource {
  const sorted = [...connections].sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0))
  const listeners = new Set<() => void>()
  const cache = new Map<string, McpTool>()
  let snapshot: Snapshot | undefined
  // One pair for the source's life: the same objects each time, so the pool sees no change.
  const resourceTools = buildResourceTools(() => sorted)
  const rebuild = (): Snapshot =>
    (snapshot ??= withResources(assemble(sorted, options.trusted, cache), sorted, resourceTools))
  // Any change of a server's tools or state is a change of this source's tools() or status().
  const changed = (): void => {
    snapshot = undefined
    for (const listener of [...listeners]) listener()
  }
  const unsubscribes = sorted.map((connection) => connection.subscribe(changed))
  const settled = Promise.all(sorted.map((connection) => firstSettle(connection))).then(() => undefined)
  return {
    id: options.id ?? 'mcp',
    tools: () => rebuild().offered,
    serverTools: () => rebuild().tools,
    names: () => rebuild().names,
    diagnostics: () => rebuild().diagnostics,
    status: () => statusOf(sorted),
    servers: () => sorted.map(serverStatus),
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    ready: () => settled,
    async close() {
      for (const unsubscribe of unsubscribes) unsubscribe()
      await Promise.all(sorted.map((connection) => connection.close()))
    },
  }
}

/** The resource tools join the servers' tools while any server offers resources (docs/decisions/mcp.md). */
function withResources(
  snapshot: Omit<Snapshot, 'offered'>,
  connections: readonly McpConnection[],
  resourceTools: readonly McpResourceTool[],
): Snapshot {
  const offers = connections.some((connection) => connection.hasResources())
  return { ...snapshot, offered: offers ? [...snapshot.tools, ...resourceTools] : snapshot.tools }
}

function assemble(
  connections: readonly McpConnection[],
  trusted: ReadonlySet<string>,
  cache: Map<string, McpTool>,
): Omit<Snapshot, 'offered'> {
  const diagnostics: McpDiagnostic[] = []
  const candidates: { connection: McpConnection; listed: McpListedTool; schema: PreparedSchema }[] = []
  for (const connection of connections) {
    const state = connection.state()
    if (state === 'down' || state === 'closed')
      diagnostics.push({ kind: 'server_down', server: connection.server, reason: connection.lastFault() ?? state })
    for (const entry of connection.tools()) {
      const parsed = parseListedTool(entry)
      if (!parsed.ok) {
        diagnostics.push({ kind: 'tool_withheld', server: connection.server, tool: parsed.name, reason: parsed.reason })
        continue
      }
      const listed = parsed.tool
      const verdict = prepareSchema(listed.inputSchema)
      if (verdict.ok) candidates.push({ connection, listed, schema: verdict.schema })
      else
        diagnostics.push({
          kind: 'tool_withheld',
          server: connection.server,
          tool: listed.name,
          reason: verdict.reason,
        })
    }
  }
  const distinct = withoutLookalikes(candidates, diagnostics)
  const names = allocateNames(
    distinct.map(({ connection, listed }) => ({ server: connection.server, tool: listed.name })),
  )
  const nameOf = new Map(names.map((entry) => [JSON.stringify([entry.server, entry.tool]), entry.name]))
  const kept = new Map<string, McpTool>()
  const tools = distinct.map(({ connection, listed, schema }) => {
    const name = nameOf.get(JSON.stringify([connection.server, listed.name])) as string
    const key = `${name}\u0000${canonicalJson(listed)}`
    let tool = cache.get(key)
    if (tool === undefined) {
      const isTrusted = trusted.has(connection.server)
      tool = buildMcpTool({
        name,
        listed,
        schema,
        flags: flagsFor(listed.annotations, isTrusted),
        trusted: isTrusted,
        connection,
      })
    }
    kept.set(key, tool)
    return tool
  })
  // The same listing gives the same tool objects, so the pool sees no change where there is none.
  cache.clear()
  for (const [key, tool] of kept) cache.set(key, tool)
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { tools, names, diagnostics }
}

/**
 * Tools whose full names clash (`delete.repo` beside `delete_repo`) are withheld, all of them:
 * hashed apart, a deny rule or a guard hook written for `mcp__<server>__delete_repo` would match
 * neither, and the look-alike would run unchecked (docs/decisions/mcp.md, "Hostile servers").
 */
function withoutLookalikes<T extends { connection: McpConnection; listed: McpListedTool }>(
  candidates: readonly T[],
  diagnostics: McpDiagnostic[],
): T[] {
  const byName = new Map<string, T[]>()
  for (const candidate of candidates) {
    const name = fullName({ server: candidate.connection.server, tool: candidate.listed.name })
    byName.set(name, [...(byName.get(name) ?? []), candidate])
  }
  const kept: T[] = []
  for (const [name, group] of byName) {
    const tools = new Set(group.map((c) => c.listed.name))
    // The same name listed twice is one tool (the first entry), as allocateNames has one name for it.
    if (tools.size === 1) {
      kept.push(group[0] as T)
      continue
    }
    const listed = [...tools].map((tool) => JSON.stringify(tool)).join(', ')
    for (const candidate of group)
      diagnostics.push({
        kind: 'tool_withheld',
        server: candidate.connection.server,
        tool: candidate.listed.name,
        reason: `its name ${name} is also the name of ${listed} once characters other than letters, digits, _ and - are replaced; look-alikes are all withheld, so that a rule or a hook for one can never miss the other`,
      })
  }
  return kept
}

function statusOf(connections: readonly McpConnection[]): ToolSourceStatus {
  const states = connections.map((connection) => connection.state())
  if (states.some((state) => state === 'connecting') && !states.some((state) => state === 'ready'))
    return { state: 'connecting' }
  if (states.length > 0 && states.every((state) => state === 'down' || state === 'closed')) {
    const reasons = connections.map(
      (connection) => `${connection.server}: ${connection.lastFault() ?? connection.state()}`,
    )
    return { state: 'failed', reason: `no MCP server is connected (${reasons.join('; ')})` }
  }
  return { state: 'ready' }
}

function serverStatus(connection: McpConnection): McpServerStatus {
  const fault = connection.lastFault()
  const pid = connection.pid()
  return {
    server: connection.server,
    state: connection.state(),
    tools: connection.tools().length,
    ...(fault !== undefined && { fault }),
    ...(pid !== undefined && { pid }),
    stderr: connection.stderrTail(),
  }
}

/** Resolves once the connection has left its first `connecting` state. */
function firstSettle(connection: McpConnection): Promise<void> {
  if (connection.state() !== 'connecting') return Promise.resolve()
  return new Promise((resolve) => {
    const unsubscribe = connection.subscribe(() => {
      if (connection.state() === 'connecting') return
      unsubscribe()
      resolve()
    })
  })
}
