/**
 * An MCP server's annotations count only as the trust rule says (decision 143): the same real
 * server (server-everything over stdio), connected once trusted and once not. Its
 * `toggle-simulated-logging` says `destructiveHint: false` and `echo` says `readOnlyHint: true`;
 * an `ask: ['@destructive']` rule asks for the untrusted one's toggle and lets the trusted one's run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionRequest } from '../../src/index.js'
import type { McpToolSource } from '../../src/mcp.js'
import { connect, everythingServer, mcpKernel, run } from './mcp-helpers.js'

let source: McpToolSource
beforeAll(async () => {
  source = await connect({ trusted: everythingServer, plain: everythingServer }, { trusted: ['trusted'] })
})
afterAll(() => source.close())

describe("an untrusted server's hints", () => {
  it('destructiveHint: false and readOnlyHint: true are believed from the trusted server only', async () => {
    const asked: PermissionRequest[] = []
    const kernel = mcpKernel(source.tools(), {
      permissions: { allow: ['mcp__trusted', 'mcp__plain'], ask: ['@destructive'] },
      canUseTool: (request) => {
        asked.push(request)
        return { behavior: 'deny', message: 'not now' }
      },
    })
    await kernel.ready()
    const { blocks, events } = await run(kernel, [
      ['t', 'mcp__trusted__toggle-simulated-logging', {}],
      ['p', 'mcp__plain__toggle-simulated-logging', {}],
      ['te', 'mcp__trusted__echo', { message: 'hi' }],
      ['pe', 'mcp__plain__echo', { message: 'hi' }],
    ])
    expect(asked.map((request) => request.toolUseId)).toEqual(['p', 'pe'])
    expect(asked[0]?.flags).toMatchObject({ readOnly: false, destructive: true, openWorld: true })
    expect(blocks[0]?.is_error).not.toBe(true)
    expect(blocks[1]?.is_error).toBe(true)
    const flags = new Map(events.flatMap((e) => (e.type === 'tool.permitted' ? [[e.toolUseId, e.flags]] : [])))
    expect(flags.get('t')).toMatchObject({ destructive: false })
    expect(flags.get('te')).toMatchObject({ readOnly: true, destructive: false })
    expect(flags.get('pe')).toMatchObject({ readOnly: false, destructive: true })
  })
})
