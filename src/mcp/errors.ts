/**
 * Why an MCP call failed, as data with a code, and in words the model can act on. The code is
 * the error's `name`, so the tool's error text reads `mcp__s__t failed: mcp_timeout: …` and
 * telemetry classifies it from the name.
 */
import type { McpExit } from './connection.types.js'

export type McpErrorCode =
  /** No answer in time (no progress within the idle timeout, or past the hard maximum). */
  | 'mcp_timeout'
  /** The connection closed before the answer came, or the server is down. */
  | 'mcp_connection_closed'
  /** The server wrote something that is not MCP. */
  | 'mcp_protocol'
  /** The result does not match the tool's declared output schema. */
  | 'mcp_output_schema'
  /** The server answered the request with a JSON-RPC error (unknown tool, bad params, its own failure). */
  | 'mcp_server_error'

/** A failed MCP call. `sent` says whether the request reached the server (a retry needs it to be true). */
export class McpCallError extends Error {
  constructor(
    readonly code: McpErrorCode,
    message: string,
    readonly sent: boolean,
  ) {
    super(message)
    this.name = code
  }
}

/** How a process ended, in words: `exited with code 3`, `was killed by SIGKILL`, `could not start (…)`. */
export function describeExit(exit: McpExit | undefined): string {
  if (exit === undefined) return 'the connection was lost'
  if (exit.error !== undefined) return `the server could not be started (${exit.error})`
  if (exit.signal !== null) return `the server process was killed by ${exit.signal}`
  return `the server process exited with code ${exit.code ?? 'unknown'}`
}

/** The last lines of stderr, for an error text (bounded: the model reads it). */
export function stderrNote(lines: readonly string[], max = 5): string {
  const tail = lines.filter((line) => line.trim() !== '').slice(-max)
  return tail.length === 0 ? '' : ` Last lines of its stderr:\n${tail.map((line) => `  ${line}`).join('\n')}`
}

export function cutOffText(server: string, why: string): string {
  return `The connection to MCP server "${server}" closed while the call ran: ${why}. The call may or may not have taken effect; check before calling it again. The server is being restarted.`
}

export function downText(server: string, why: string): string {
  return `MCP server "${server}" is not connected (${why}), so the call was not sent and had no effect. It is being restarted; try again later or use another tool.`
}

export function timeoutText(server: string, seconds: number, hard: boolean): string {
  const limit = hard ? `ran past the hard limit of ${seconds} s` : `sent no answer and no progress for ${seconds} s`
  return `MCP server "${server}" ${limit}, so the call was cancelled on the server. It may have had partial effects; check before calling it again, or ask for less work per call.`
}

export function protocolText(server: string, detail: string): string {
  return `MCP server "${server}" broke the protocol (${detail}), so its answer could not be read. The call may have taken effect; the connection is reset. Check before calling it again.`
}

export function outputSchemaText(server: string, detail: string): string {
  return `MCP server "${server}" returned a result that does not match the tool's declared output schema (${detail}). The tool ran; its output is not trusted, so nothing of it is shown. Use another tool, or ask the user to check the server.`
}

export function cancelledText(server: string, why: string): string {
  return `The call to MCP server "${server}" was cancelled (${why}) before its answer came. It may have had partial effects; check before calling it again.`
}

export function serverErrorText(server: string, message: string): string {
  return `MCP server "${server}" answered the call with an error: ${message.replace(/\.?$/, '')}. The call did not complete; check the input against the tool's description and try again, or use another tool.`
}
