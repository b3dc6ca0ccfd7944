/**
 * `toolkernel/mcp`: MCP servers as toolkernel tools, on the official v2 client. Optional: the
 * core never imports it, and `@modelcontextprotocol/client` is an optional peer dependency.
 *
 * This entry is the subpath's composition root, beside kernel.ts: it wires the SDK connection
 * (adapters/mcp-connection.ts) into the pure source of src/mcp/. The adapter imports mcp/'s
 * types, so mcp/ itself never imports the adapter.
 */
import { openMcpConnection } from './adapters/mcp-connection.js'
import { parseMcpConfig, type McpConfig } from './mcp/config.js'
import type { McpElicitHandler } from './mcp/elicitation.js'
import { createMcpToolSource, type McpToolSource } from './mcp/source.js'
import { checkKnownOptions, checkOptionsObject, optionNames } from './util/known-options.js'

export { parseMcpConfig, type McpConfig, type McpServerConfig, type ParsedConfig } from './mcp/config.js'
export type { McpElicitDecision, McpElicitHandler, McpElicitRequest } from './mcp/elicitation.js'
export { McpCallError, type McpErrorCode } from './mcp/errors.js'
export { flagsFor, type McpToolFlags, type McpToolHints } from './mcp/flags.js'
export { allocateNames, MAX_TOOL_NAME, type McpNameEntry, type McpToolIdentity } from './mcp/names.js'
export type { McpToolOutput } from './mcp/results.js'
export { prepareSchema, type PreparedSchema } from './mcp/schema.js'
export type { McpDiagnostic, McpServerStatus, McpToolSource } from './mcp/source.js'
export type { McpTool, McpToolInfo } from './mcp/tool.js'
export type {
  ListMcpResourcesOutput,
  McpResourceContent,
  McpResourceEntry,
  McpResourceTool,
  ReadMcpResourceOutput,
} from './mcp/resources.js'

/** How toolkernel talks to the servers of a configuration. Every field has a default. */
export interface McpOptions {
  /** Servers whose hints (read-only, idempotent) may shape scheduling and retries. Default none. */
  trusted?: readonly string[]
  /** Working directory for stdio servers without their own `cwd`. Default `process.cwd()`. */
  cwd?: string
  /** Environment for `${VAR}` in the configuration. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>
  /** A call's idle timeout: reset by each progress notification. Default 120 s. */
  callTimeoutMs?: number
  /** A call's hard maximum, whatever progress it reports. Default 30 min. */
  maxCallTimeoutMs?: number
  /** Connecting and listing tools. Default 30 s. */
  connectTimeoutMs?: number
  /** Restart backoff after a server goes away: doubles from the first delay up to the cap. Default 250 ms → 30 s. */
  restart?: { initialDelayMs?: number; maxDelayMs?: number }
  /** Per-server overrides of the timeouts. */
  servers?: Readonly<Record<string, { callTimeoutMs?: number; maxCallTimeoutMs?: number }>>
  /** Answers servers' elicitation requests; without it, the client does not offer elicitation. */
  elicit?: McpElicitHandler
  /**
   * The largest JSON-RPC message a server may send, in bytes (stdio: one line; HTTP: one body, or
   * one event of an event stream). Default 64 MiB. A larger one is never parsed: the call gets
   * `mcp_protocol` and the server is restarted.
   */
  maxMessageBytes?: number
  clientInfo?: { name: string; version: string }
}

const MCP_OPTIONS = optionNames<McpOptions>()(
  'trusted',
  'cwd',
  'env',
  'callTimeoutMs',
  'maxCallTimeoutMs',
  'connectTimeoutMs',
  'restart',
  'servers',
  'elicit',
  'maxMessageBytes',
  'clientInfo',
)
const RESTART_OPTIONS = optionNames<NonNullable<McpOptions['restart']>>()('initialDelayMs', 'maxDelayMs')
const SERVER_OPTIONS = optionNames<NonNullable<McpOptions['servers']>[string]>()('callTimeoutMs', 'maxCallTimeoutMs')

/** Refuses an option `connectMcpServers` does not know, nested ones too (decision 118). */
function checkMcpOptions(options: McpOptions): void {
  checkOptionsObject('connectMcpServers', options, MCP_OPTIONS)
  checkKnownOptions('connectMcpServers: restart', options.restart, RESTART_OPTIONS)
  for (const [server, own] of Object.entries(options.servers ?? {}))
    checkKnownOptions(`connectMcpServers: servers.${server}`, own, SERVER_OPTIONS)
}

/**
 * Connects to every server of a configuration and returns their tools as one ToolSource. It
 * returns at once; servers connect in the background (`await source.ready()` to wait for the
 * first attempt of each). Tools are named `mcp__<server>__<tool>` and deferred.
 *
 * @throws Error for a configuration that does not parse (each problem named with its path).
 * @example
 * const source = connectMcpServers(JSON.parse(await readFile('.mcp.json', 'utf8')), { trusted: ['docs'] })
 * await source.ready()
 * const kernel = createKernel({ tools: [...builtinTools], toolSources: [source] })
 */
export function connectMcpServers(config: unknown, options: McpOptions = {}): McpToolSource {
  checkMcpOptions(options)
  const parsed = parseMcpConfig(config, { env: options.env ?? process.env })
  if (!parsed.ok) throw new Error(parsed.error)
  return connectParsed(parsed.config, options)
}

function connectParsed(config: McpConfig, options: McpOptions): McpToolSource {
  const connections = Object.entries(config.mcpServers).map(([server, serverConfig]) => {
    const own = options.servers?.[server] ?? {}
    return openMcpConnection({
      server,
      config: serverConfig,
      cwd: options.cwd ?? process.cwd(),
      clientInfo: options.clientInfo ?? { name: 'toolkernel', version: '0.1.0' },
      callTimeoutMs: own.callTimeoutMs ?? options.callTimeoutMs ?? 120_000,
      maxCallTimeoutMs: own.maxCallTimeoutMs ?? options.maxCallTimeoutMs ?? 1_800_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      restart: {
        initialDelayMs: options.restart?.initialDelayMs ?? 250,
        maxDelayMs: options.restart?.maxDelayMs ?? 30_000,
      },
      ...(options.elicit !== undefined && { elicit: options.elicit }),
      ...(options.maxMessageBytes !== undefined && { maxMessageBytes: options.maxMessageBytes }),
    })
  })
  return createMcpToolSource(connections, { trusted: new Set(options.trusted ?? []) })
}
