/**
 * What the pure MCP code (tools, the source) needs of a live server connection. The adapter in
 * src/adapters/mcp-connection.ts implements it over the SDK; nothing here does I/O.
 */
import type { McpToolHints } from './flags.js'

/** How a stdio server's process ended. */
export interface McpExit {
  readonly code: number | null
  readonly signal: string | null
  /** Set when the process could not be started at all (e.g. `spawn foo ENOENT`). */
  readonly error?: string
  /** The last lines it wrote to stderr. */
  readonly stderr: readonly string[]
}

/** A tool as the server lists it (the parts toolkernel reads; the rest is kept as sent). */
export interface McpListedTool {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: unknown
  readonly outputSchema?: unknown
  readonly annotations?: McpToolHints & { readonly title?: string }
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** One content block of a `tools/call` result, as the server sent it. */
export type McpContent = Readonly<Record<string, unknown>> & { readonly type: string }

/** A `tools/call` result (already checked against the protocol's schema by the SDK). */
export interface McpCallResult {
  readonly content?: readonly McpContent[]
  readonly structuredContent?: unknown
  readonly isError?: boolean
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** A server's resources, every page of `resources/list` joined. */
export interface McpResourceListing {
  readonly resources: readonly unknown[]
  /** Set when the listing stopped before its last page (the page cap). */
  readonly truncated?: string
}

/** A `resources/read` result: its contents as sent (text or blob entries, checked by the tool). */
export interface McpResourceRead {
  readonly contents: readonly unknown[]
}

export type McpConnectionState = 'connecting' | 'ready' | 'down' | 'closed'

/** A progress notification for a running call. */
export interface McpProgress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

export interface McpCallOptions {
  readonly signal: AbortSignal
  onProgress(progress: McpProgress): void
  /** Something happened during the call that the log should show (an elicitation, say). */
  onEvent(event: Readonly<Record<string, unknown>>): void
}

/** One server. */
export interface McpConnection {
  readonly server: string
  state(): McpConnectionState
  /**
   * The tools from the last listing, as sent (each is checked by the source on its own; kept
   * while the server is down, so calls answer at once).
   */
  tools(): readonly unknown[]
  /** Why the server is down or last went down. */
  lastFault(): string | undefined
  /** The process id of a stdio server while it runs. */
  pid(): number | undefined
  stderrTail(): readonly string[]
  /** Calls a tool; rejects with an `McpCallError` (see errors.ts) for every failure. */
  callTool(name: string, args: unknown, options: McpCallOptions): Promise<McpCallResult>
  /** Whether the server advertised the `resources` capability when it last connected. */
  hasResources(): boolean
  /**
   * `resources/list`, every page (at most 64; `truncated` says why it stopped early). Entries are
   * as sent: the resource tools check each on its own. Rejects with an `McpCallError`.
   */
  listResources(signal: AbortSignal): Promise<McpResourceListing>
  /** `resources/read` of one URI; rejects with an `McpCallError` (a server's "not found" is `mcp_server_error`). */
  readResource(uri: string, signal: AbortSignal): Promise<McpResourceRead>
  /** Resolves true once ready, false if `signal` aborts or the next connection attempt fails. */
  whenReady(signal: AbortSignal): Promise<boolean>
  /** Called after `tools()` or `state()` changed. */
  subscribe(listener: () => void): () => void
  close(): Promise<void>
}
