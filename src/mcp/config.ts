/**
 * MCP server configuration in the shape users already write: `.mcp.json` and Claude Code's
 * `mcpServers` (stdio `command`/`args`/`env`, `type: 'http'` with `url`/`headers`), with
 * `${VAR}` and `${VAR:-default}` expanded from the environment the app passes in.
 */
import { z } from 'zod'
import { checkOptionsObject } from '../util/known-options.js'

const ServerName = z
  .string()
  .regex(
    /^[a-zA-Z0-9-]+(_[a-zA-Z0-9-]+)*$/,
    'a server name is letters, digits, - and single _ (it becomes part of tool names mcp__<server>__<tool>, so no "__")',
  )
  .max(30, 'a server name is at most 30 characters (tool names are at most 64)')

const StringMap = z.record(z.string(), z.string())

const StdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'command must name the program that starts the server'),
  args: z.array(z.string()).optional(),
  env: StringMap.optional(),
  cwd: z.string().optional(),
})

const HttpServer = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }),
  headers: StringMap.optional(),
})

const McpConfigSchema = z.strictObject({ mcpServers: z.record(z.string(), z.unknown()) })

export type StdioServerConfig = z.infer<typeof StdioServer>
export type HttpServerConfig = z.infer<typeof HttpServer>
/** One server, as configured. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig
/** A whole configuration: `{ mcpServers: { <name>: <server> } }`. */
export interface McpConfig {
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>
}

export type ParsedConfig = { ok: true; config: McpConfig } | { ok: false; error: string }

/**
 * Parses an MCP configuration (a trust boundary: it comes from a file the user wrote). Every
 * problem is named with its path, e.g. `mcpServers.github.url: url must be an http:// or https:// URL`.
 *
 * @example
 * const parsed = parseMcpConfig(JSON.parse(readFileSync('.mcp.json', 'utf8')), { env: process.env })
 * if (!parsed.ok) throw new Error(parsed.error)
 */
export function parseMcpConfig(
  value: unknown,
  options: { env?: Readonly<Record<string, string | undefined>> } = {},
): ParsedConfig {
  checkOptionsObject('parseMcpConfig', options, ['env'])
  const parsed = McpConfigSchema.safeParse(value)
  if (!parsed.success) return { ok: false, error: describe(parsed.error.issues, []) }
  const problems: string[] = []
  const checked: [string, McpServerConfig][] = []
  for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
    const named = ServerName.safeParse(name)
    if (!named.success) problems.push(`mcpServers.${name}: ${named.error.issues.map((i) => i.message).join('; ')}`)
    const one = parseServer(server)
    if (typeof one === 'string') problems.push(`mcpServers.${name}: ${one}`)
    else if (!one.success) problems.push(describe(one.error.issues, ['mcpServers', name]))
    else checked.push([name, one.data])
  }
  if (problems.length > 0) return { ok: false, error: `invalid MCP configuration:\n- ${problems.join('\n- ')}` }
  const missing: string[] = []
  const env = options.env ?? {}
  const expand = (text: string): string => expandVariables(text, env, missing)
  const servers = Object.fromEntries(checked.map(([name, server]) => [name, expandServer(server, expand)]))
  if (missing.length > 0)
    return {
      ok: false,
      error: `invalid MCP configuration: environment variable(s) ${[...new Set(missing)].join(', ')} are not set and have no default (write \${VAR:-default})`,
    }
  return { ok: true, config: { mcpServers: servers } }
}

function expandServer(server: McpServerConfig, expand: (text: string) => string): McpServerConfig {
  const map = (record: Record<string, string> | undefined): Record<string, string> | undefined =>
    record === undefined ? undefined : Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v)]))
  if (server.type === 'http') {
    const headers = map(server.headers)
    return { type: 'http', url: expand(server.url), ...(headers !== undefined && { headers }) }
  }
  const env = map(server.env)
  return {
    ...server,
    command: expand(server.command),
    ...(server.args !== undefined && { args: server.args.map(expand) }),
    ...(env !== undefined && { env }),
    ...(server.cwd !== undefined && { cwd: expand(server.cwd) }),
  }
}

/** `${VAR}` and `${VAR:-default}`, as Claude Code expands them in `.mcp.json`. */
function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>, missing: string[]): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
    const value = env[name]
    if (value !== undefined) return value
    if (fallback !== undefined) return fallback
    missing.push(name)
    return ''
  })
}

/** The schema for a server by its `type`; a string for a shape no schema could fit. */
function parseServer(input: unknown): string | z.ZodSafeParseResult<McpServerConfig> {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return 'a server is an object: { command, args?, env?, cwd? } or { type: "http", url, headers? }'
  const type = (input as { type?: unknown }).type
  if (type === 'http') return HttpServer.safeParse(input)
  if (type === undefined || type === 'stdio') return StdioServer.safeParse(input)
  if (type === 'sse')
    return 'type "sse" is not supported (the SSE transport is deprecated); use type "http" (Streamable HTTP)'
  return `unknown server type ${JSON.stringify(type)}: use "stdio" (the default) or "http"`
}

function describe(issues: readonly z.core.$ZodIssue[], base: readonly string[]): string {
  const lines = issues.map((issue) => {
    const path = [...base, ...issue.path.map(String)].join('.')
    return `${path === '' ? 'config' : path}: ${issue.message}`
  })
  return base.length === 0 ? `invalid MCP configuration:\n- ${lines.join('\n- ')}` : lines.join('\n- ')
}
