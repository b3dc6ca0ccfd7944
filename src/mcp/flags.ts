/**
 * A server's tool annotations, read fail-closed. Hints are the server's word about itself: they
 * shape scheduling and retries only for a server the app marked trusted, and never allow a call.
 */

/** The MCP `ToolAnnotations` hints (all optional, all advisory). */
export interface McpToolHints {
  readonly readOnlyHint?: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint?: boolean
}

/** What toolkernel makes of a tool's hints. */
export interface McpToolFlags {
  /** Read-only and so concurrency-safe: only `readOnlyHint === true` from a trusted server. */
  readonly readOnly: boolean
  /** Destructive unless read-only or `destructiveHint === false` (the spec's default is true). */
  readonly destructive: boolean
  /** Open-world unless `openWorldHint === false` (the spec's default is true). */
  readonly openWorld: boolean
  /** Safe to send again after a lost connection: read-only, or `idempotentHint === true` from a trusted server. */
  readonly retryable: boolean
}

/**
 * The flags for one tool, with the spec's defaults for what a server leaves out. The hints that
 * change what the kernel does (read-only → runs in parallel; idempotent → sent again after a
 * lost connection) count only for a trusted server; the descriptive ones count for any server.
 *
 * @example
 * flagsFor({ readOnlyHint: true }, false) // { readOnly: false, destructive: true, openWorld: true, retryable: false }
 */
export function flagsFor(hints: McpToolHints | undefined, trusted: boolean): McpToolFlags {
  const readOnly = trusted && hints?.readOnlyHint === true
  const destructive = !readOnly && hints?.destructiveHint !== false
  const openWorld = hints?.openWorldHint !== false
  return { readOnly, destructive, openWorld, retryable: readOnly || (trusted && hints?.idempotentHint === true) }
}
