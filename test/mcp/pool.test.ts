/**
 * The MCP source in a kernel's pool (`createKernel({ toolSources })`): its tools are deferred,
 * ToolSearch finds and loads one, the call runs; a list_changed reaches the pool between turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpToolSource } from '../../src/mcp.js'
import { connect, everythingServer, faultyServer, mcpKernel, run, textOf, until } from './mcp-helpers.js'

let source: McpToolSource
beforeAll(async () => {
  source = await connect({ everything: everythingServer, faulty: faultyServer('pool') })
})
afterAll(() => source.close())

describe('MCP tools in the pool', () => {
  it('deferred, found through ToolSearch, then called', async () => {
    const kernel = mcpKernel([], {
      toolSources: [source],
      deferral: { mode: 'always' },
      permissions: { allow: ['mcp__everything', 'mcp__faulty'] },
    })
    const tools = kernel.apiTools()
    const sum = tools.find((tool) => tool.name === 'mcp__everything__get-sum')
    expect(sum).toMatchObject({ defer_loading: true })
    expect(tools.map((tool) => tool.name)).toContain('ToolSearch')
    const found = await run(kernel, [['s', 'ToolSearch', { query: 'sum of two numbers' }]])
    expect(JSON.stringify(found.blocks[0])).toContain('mcp__everything__get-sum')
    const { blocks } = await run(kernel, [['c', 'mcp__everything__get-sum', { a: 1, b: 2 }]])
    expect(textOf(blocks[0])).toContain('3')
  })

  it('a list_changed while a call runs reaches the pool at the next turn boundary (pool.changed)', async () => {
    const kernel = mcpKernel([], { toolSources: [source], permissions: { allow: ['mcp__faulty', 'mcp__everything'] } })
    const pending = run(kernel, [['a', 'mcp__faulty__add-tool', {}]])
    await until(source, () => source.tools().some((tool) => tool.name === 'mcp__faulty__late-tool'))
    await run(mcpKernel(source.tools()), [['r', 'mcp__faulty__release', {}]])
    expect(textOf((await pending).blocks[0])).toBe('add-tool finished')
    const { blocks, events } = await run(kernel, [['l', 'mcp__faulty__late-tool', {}]])
    expect(textOf(blocks[0])).toBe('late tool ran')
    expect(events.find((event) => event.type === 'pool.changed')).toMatchObject({
      source: 'mcp',
      added: ['mcp__faulty__late-tool'],
    })
  })
})
