/**
 * One MCP tool as an ordinary toolkernel tool: it walks the same nine steps as the built-in ones.
 * Its input is checked against the server's own schema (ajv, through `validateInput`), its flags
 * come from the server's hints read fail-closed, and a call cut off by a lost connection is sent
 * again once — only when the tool is read-only or idempotent, and the retry is logged.
 */
import { buildTool } from '../tools/build-tool.js'
import type { Tool, ToolContext } from '../tools/tool.types.js'
import type { McpCallResult, McpConnection, McpListedTool } from './connection.types.js'
import { McpCallError, outputSchemaText } from './errors.js'
import type { McpToolFlags } from './flags.js'
import { fullName } from './names.js'
import { toResultBlock, toToolOutput, type McpToolOutput } from './results.js'
import { rawValidator, serverInput, type PreparedSchema } from './schema.js'

/** Descriptions past this are cut (as Claude Code does): a server could fill the context with one. */
export const MAX_DESCRIPTION_CHARS = 2048

/** What an MCP tool carries beyond the contract, for the pool, the app and logs. */
export interface McpToolInfo {
  readonly server: string
  /** The tool's name on its server. */
  readonly tool: string
  readonly flags: McpToolFlags
  readonly trusted: boolean
  readonly wrappedInput: boolean
}

/** An MCP tool: deferrable (`shouldDefer`), deferred once the pool defers (docs/pool.md), then found by ToolSearch. */
export type McpTool = Tool<Record<string, unknown>, McpToolOutput> & { readonly mcp: McpToolInfo }

export interface McpToolSpec {
  readonly name: string
  readonly listed: McpListedTool
  readonly schema: PreparedSchema
  readonly flags: McpToolFlags
  readonly trusted: boolean
  readonly connection: McpConnection
}

/** Builds the tool for one listed MCP tool under its allocated name. */
export function buildMcpTool(spec: McpToolSpec): McpTool {
  const { listed, schema, flags, connection } = spec
  const server = connection.server
  const title = listed.title ?? listed.annotations?.title ?? listed.name
  const tool = buildTool<Record<string, unknown>, McpToolOutput, unknown>({
    name: spec.name,
    description: () => `${title} (MCP server ${server})`,
    prompt: () => modelDescription(listed, schema.wrapped),
    searchHint: `${server} ${listed.name} ${title}`,
    inputJSONSchema: schema.sent,
    validateInput: (input) => {
      const problems = schema.validate(input)
      return problems.length === 0
        ? { result: true }
        : { result: false, message: `invalid input:\n- ${problems.join('\n- ')}` }
    },
    call: (input, context) => callWithRetry(spec, serverInput(schema, input), context),
    // A server's hints describe it in its own words; they never grant anything. Rules do.
    checkPermissions: () => ({ behavior: 'ask', message: approvalText(spec.name, server, listed.name) }),
    isConcurrencySafe: () => flags.readOnly,
    isReadOnly: () => flags.readOnly,
    isDestructive: () => flags.destructive,
    isOpenWorld: () => flags.openWorld,
    interruptBehavior: () => 'cancel',
    // The connection's request timeout (reset on progress) bounds a call: no kernel deadline on top.
    timeoutMs: Infinity,
    mapToolResultToToolResultBlockParam: toResultBlock,
    userFacingName: () => `${server} - ${title} (MCP)`,
    category: 'mcp',
    shouldDefer: true,
  })
  const mcp: McpToolInfo = { server, tool: listed.name, flags, trusted: spec.trusted, wrappedInput: schema.wrapped }
  // A cut, hashed name: rules and hook matchers written for the full name still apply to it.
  const full = fullName({ server, tool: listed.name })
  return Object.assign(tool, { mcp, ...(full !== spec.name && { ruleNames: [full] }) })
}

function approvalText(name: string, server: string, tool: string): string {
  const serverRule = name.split('__').slice(0, 2).join('__')
  return `"${tool}" is a tool of the MCP server "${server}"; MCP tools need approval (the rule ${serverRule} allows all of its tools, ${name} this one)`
}

function modelDescription(listed: McpListedTool, wrapped: boolean): string {
  const own = listed.description ?? listed.title ?? listed.name
  const cut = own.length > MAX_DESCRIPTION_CHARS ? `${own.slice(0, MAX_DESCRIPTION_CHARS)}…` : own
  return wrapped ? `${cut}\n\nPut the whole input in the \`input\` field.` : cut
}

async function callWithRetry(spec: McpToolSpec, args: unknown, context: ToolContext): Promise<McpToolOutput> {
  const { connection, listed, flags } = spec
  const options = {
    signal: context.signal,
    onProgress: (progress: unknown) => context.onProgress(progress),
    onEvent: (event: unknown) => context.onProgress(event),
  }
  let result: McpCallResult
  try {
    result = await connection.callTool(listed.name, args, options)
  } catch (error) {
    if (!(error instanceof McpCallError) || !isCutOff(error) || !flags.retryable || context.signal.aborted) throw error
    context.onProgress({
      type: 'mcp.retry',
      server: connection.server,
      tool: listed.name,
      reason: error.message,
      why: flags.readOnly ? 'read-only' : 'idempotent',
    })
    if (!(await connection.whenReady(context.signal))) throw error
    result = await connection.callTool(listed.name, args, options)
  }
  checkOutput(spec, result)
  return await toToolOutput(result, context.ports.results, { turnId: context.turnId, toolUseId: context.toolUseId })
}

/**
 * A tool that declares an output schema must return structured content that fits it (the spec's
 * rule); an error result is exempt. Checked here, not by the SDK, because the SDK checks only
 * tools from its own listing, which toolkernel reads leniently.
 */
function checkOutput(spec: McpToolSpec, result: McpCallResult): void {
  const schema = spec.listed.outputSchema
  if (schema === undefined || result.isError === true) return
  const server = spec.connection.server
  const fail = (detail: string): never => {
    throw new McpCallError('mcp_output_schema', outputSchemaText(server, detail), true)
  }
  if (result.structuredContent === undefined) fail('it declares an output schema but returned no structuredContent')
  const validator = rawValidator(schema)
  if (!validator.ok) fail(`its output schema cannot be used: ${validator.reason}`)
  else {
    const problems = validator.validate(result.structuredContent)
    if (problems.length > 0) fail(problems.join('; '))
  }
}

/** A call the server received, whose answer the lost connection took with it. */
function isCutOff(error: McpCallError): boolean {
  return error.code === 'mcp_connection_closed' && error.sent
}
