/**
 * The names of the MCP resource tools (src/mcp/resources.ts). Here, in the leaves below mcp/,
 * permissions/ and projections/, because a permission rule may name them before any server has
 * connected (the tools come from the MCP source at run time, the rules are compiled at
 * `createKernel`), and telemetry reads the log alone (docs/decisions/mcp.md, "MCP resources as
 * two tools").
 */
export const LIST_MCP_RESOURCES = 'ListMcpResources'
export const READ_MCP_RESOURCE = 'ReadMcpResource'
export const MCP_RESOURCE_TOOLS: readonly string[] = [LIST_MCP_RESOURCES, READ_MCP_RESOURCE]
