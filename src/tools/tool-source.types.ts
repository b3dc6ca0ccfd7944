/**
 * A source of tools: part of the tool contract (it hands the kernel `Tool`s), so it lives beside
 * it rather than in ports/, which declare capabilities and import nothing of the tools.
 */
import type { Tool } from './tool.types.js'

/**
 * Where a source of tools stands: still connecting (its tools may appear later), ready, or failed
 * (with a reason the model and the app can read).
 */
export type ToolSourceStatus =
  { readonly state: 'connecting' } | { readonly state: 'ready' } | { readonly state: 'failed'; readonly reason: string }

/**
 * A set of tools that can change while the kernel runs — an MCP server, an app's plugin system.
 * The kernel reads `tools()` between turns (a change is never applied mid-turn) and records each
 * change in the log, so replay resolves the same names.
 *
 * @example
 * const kernel = createKernel({ tools: [Read], toolSources: [await connectMcpServers(config)] })
 */
export interface ToolSource {
  /** Stable, unique among a kernel's sources (e.g. `mcp:github`). */
  readonly id: string
  /** The tools offered now, in a stable order. */
  tools(): readonly Tool[]
  status(): ToolSourceStatus
  /** Calls `listener` after `tools()` or `status()` changed; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
  /**
   * What each tool's name stands for (an MCP source: the server and the tool as listed). The
   * kernel logs the entries of the tools a change adds (`pool.changed` `names`), so a log says
   * what each name meant and replay resolves the same names.
   */
  names?(): readonly ToolSourceName[]
  /** What the source left out and why; its withheld tools go into `pool.changed` (`withheld`). */
  diagnostics?(): readonly ToolSourceDiagnostic[]
}

/** One tool name and the raw identity it stands for. */
export interface ToolSourceName {
  readonly name: string
  readonly server: string
  readonly tool: string
}

/** A tool the source withheld (`tool_withheld`, with the tool named), or another problem (a server down). */
export interface ToolSourceDiagnostic {
  readonly kind: string
  readonly server: string
  readonly tool?: string
  readonly reason: string
}
