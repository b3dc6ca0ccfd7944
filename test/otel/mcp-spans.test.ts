/**
 * MCP attributes on real MCP calls: the reference server (server-everything over stdio) joins the
 * pool as a tool source, its tools are called through an instrumented kernel, and the spans the
 * real OTel SDK exports (in-memory exporter) carry the MCP conventions' `mcp.method.name` and the
 * server and tool each name stands for (docs/telemetry.md) — learnt live from the `pool.changed`
 * the source recorded, not from a log spliced by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpToolSource } from '../../src/mcp.js'
import { instrumentKernel } from '../../src/otel/index.js'
import { assistant, Echo } from '../helpers.js'
import { connect, everythingServer, mcpKernel, textOf } from '../mcp/mcp-helpers.js'
import { byName, tracing } from './otel-helpers.js'

let source: McpToolSource
beforeAll(async () => {
  source = await connect({ everything: everythingServer })
})
afterAll(() => source.close())

describe('spans of MCP tool calls (server-everything over stdio)', () => {
  it('carry mcp.method.name tools/call, the server and the tool; resources/list for the resource tool; none for an app tool', async () => {
    const kernel = mcpKernel([Echo], {
      toolSources: [source],
      permissions: { allow: ['mcp__everything', 'ListMcpResources'] },
    })
    const { exporter, tracer } = tracing()
    const telemetry = instrumentKernel(kernel, { tracer })
    const { message } = await kernel.runTurn(
      assistant(
        ['s', 'mcp__everything__get-sum', { a: 2, b: 40 }],
        ['l', 'ListMcpResources', { server: 'everything' }],
        ['e', 'Echo', { text: 'x' }],
      ),
    )
    telemetry.stop()
    // The calls really went to the server.
    const [sum, list] = message.content
    expect(sum?.is_error).not.toBe(true)
    expect(textOf(sum)).toContain('42')
    expect(list?.is_error).not.toBe(true)

    const spans = exporter.getFinishedSpans()
    const [sumSpan] = byName(spans, 'execute_tool mcp__everything__get-sum')
    expect(sumSpan?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'mcp__everything__get-sum',
      'gen_ai.tool.call.id': 's',
      'gen_ai.tool.type': 'extension',
      'mcp.method.name': 'tools/call',
      'toolkernel.mcp.server': 'everything',
      'toolkernel.mcp.tool': 'get-sum',
    })
    const [listSpan] = byName(spans, 'execute_tool ListMcpResources')
    expect(listSpan?.attributes).toMatchObject({
      'mcp.method.name': 'resources/list',
      'toolkernel.mcp.server': 'everything',
    })
    const [echoSpan] = byName(spans, 'execute_tool Echo')
    expect(echoSpan).toBeDefined()
    expect(Object.keys(echoSpan?.attributes ?? {}).filter((key) => key.includes('mcp'))).toEqual([])
  })
})
