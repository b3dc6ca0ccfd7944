/** The SDK's errors for a failed `tools/call`, in toolkernel's codes (a lost connection is told apart). */
import { SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'
import * as errors from '../mcp/errors.js'
import { McpCallError } from '../mcp/errors.js'

export interface CallLimits {
  readonly callTimeoutMs: number
  readonly maxCallTimeoutMs: number
}

/**
 * What a rejected call means. `'connection_lost'` is for the caller to finish: only the
 * connection knows how the server went (exit code, stderr, a protocol break).
 */
export function sdkFailure(
  error: unknown,
  server: string,
  limits: CallLimits,
  aborted: boolean,
): McpCallError | 'connection_lost' {
  const code = error instanceof SdkError ? error.code : undefined
  const message = error instanceof Error ? error.message : String(error)
  if (aborted) return new McpCallError('mcp_connection_closed', errors.cancelledText(server, message), true)
  if (code === SdkErrorCode.RequestTimeout) {
    const hard = /maximum total timeout/i.test(message)
    const ms = hard ? limits.maxCallTimeoutMs : limits.callTimeoutMs
    return new McpCallError('mcp_timeout', errors.timeoutText(server, ms / 1000, hard), true)
  }
  if (code === SdkErrorCode.InvalidResult)
    return new McpCallError(
      'mcp_protocol',
      errors.protocolText(server, `its result is not valid MCP: ${message}`),
      true,
    )
  if (isConnectionLoss(code, error)) return 'connection_lost'
  return new McpCallError('mcp_server_error', errors.serverErrorText(server, message), true)
}

function isConnectionLoss(code: SdkErrorCode | undefined, error: unknown): boolean {
  const lost: readonly (SdkErrorCode | undefined)[] = [
    SdkErrorCode.ConnectionClosed,
    SdkErrorCode.NotConnected,
    SdkErrorCode.SendFailed,
    SdkErrorCode.ClientHttpFailedToOpenStream,
  ]
  if (lost.includes(code)) return true
  // 404: the server no longer knows the session (it restarted); the spec says to initialize again.
  if (error instanceof SdkHttpError && error.status === 404) return true
  const text = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause)}` : ''
  return /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|terminated|not running/i.test(text)
}
