/**
 * A server's tool annotations, read fail-closed. Hints are the server's word about itself: they
 * count only for a server the app marked trusted (decision 143), and never allow a call. An
 * untrusted server's tools are destructive and open-world whatever it says.
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
  /** Destructive unless read-only or `destructiveHint === false` from a trusted server (the spec's default is true). */
  readonly destructive: boolean
  /** Open-world unless `openWorldHint === false` from a trusted server (the spec's default is true). */
  readonly openWorld: boolean
  /** Safe to send again after a lost connection: read-only, or `idempotentHint === true` from a trusted server. */
  readonly retryable: boolean
}

/**
 * The flags for one tool, with the spec's defaults for what a server leaves out. Every hint that
 * would make a tool look safer — read-only (runs in parallel, `@readOnly` rules), not destructive
 * and not open-world (`@destructive`, `@openWorld` rules), idempotent (sent again after a lost
 * connection) — counts only for a trusted server: now that rules act on the flags, no hint is
 * merely descriptive.
 *
 * @example
 * flagsFor({ readOnlyHint: true, destructiveHint: false }, false)
 * // { readOnly: false, destructive: true, openWorld: true, retryable: false }
 */
export function flagsFor(hints: McpToolHints | undefined, trusted: boolean): McpToolFlags {
  const readOnly = trusted && hints?.readOnlyHint === true
  const destructive = !readOnly && !(trusted && hints?.destructiveHint === false)
  const openWorld = !(trusted && hints?.openWorldHint === false)
  return { readOnly, destructive, openWorld, retryable: readOnly || (trusted && hints?.idempotentHint === true) }
}
