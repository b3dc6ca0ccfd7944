/**
 * ListMcpResources and ReadMcpResource against real servers over stdio: the resources fixture
 * (paged listing, text and blob contents, an unknown uri) beside the faulty fixture, which
 * advertises no resources.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createDirectoryResultStore, createKernel, type KernelOptions } from '../../src/index.js'
import type { McpToolSource } from '../../src/mcp.js'
import { projectTelemetry } from '../../src/otel/index.js'
import { connect, faultyServer, textOf } from './mcp-helpers.js'

const RESOURCES = resolve('test/fixtures/mcp-servers/resources.mjs')
const resourcesServer = (env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [RESOURCES],
  env: { RESOURCES_LABEL: 'docs', ...env },
})

let both: McpToolSource
let plain: McpToolSource

beforeAll(async () => {
  ;[both, plain] = await Promise.all([
    connect({ docs: resourcesServer(), faulty: faultyServer('f') }),
    connect({ faulty: faultyServer('g') }),
  ])
}, 60_000)
afterAll(async () => {
  await Promise.all([both.close(), plain.close()])
})

/** A kernel over the source, as an app builds it; resource reads allowed unless the test says otherwise. */
function kernel(source: McpToolSource, options: Partial<KernelOptions> = {}) {
  const results = createDirectoryResultStore(mkdtempSync(join(tmpdir(), 'tk-mcp-res-')))
  return createKernel({
    tools: [],
    toolSources: [source],
    results,
    permissions: { allow: ['ReadMcpResource'] },
    ...options,
  })
}

describe('the resource tools are offered', () => {
  it('while a connected server advertises resources, after the servers own tools', () => {
    const names = both.tools().map((tool) => tool.name)
    expect(names.slice(-2)).toEqual(['ListMcpResources', 'ReadMcpResource'])
    expect(names).toContain('mcp__docs__ping')
    const [list, read] = both.tools().slice(-2)
    for (const tool of [list, read]) {
      expect(tool?.isReadOnly({})).toBe(true)
      expect(tool?.isOpenWorld({})).toBe(true)
      expect(tool?.isDestructive({})).toBe(false)
      expect(tool?.shouldDefer).toBe(true)
    }
    expect(both.serverTools().map((tool) => tool.name)).not.toContain('ListMcpResources')
  })

  it('not when no server advertises resources', () => {
    expect(plain.tools().map((tool) => tool.name)).not.toContain('ListMcpResources')
    expect(plain.tools().map((tool) => tool.name)).not.toContain('ReadMcpResource')
    expect(plain.tools().length).toBeGreaterThan(0)
  })
})

describe('rules for the resource tools', () => {
  it('may name them before any server has connected; a specifier is refused', () => {
    expect(() =>
      createKernel({ tools: [], permissions: { allow: ['ReadMcpResource'], deny: ['ListMcpResources'] } }),
    ).not.toThrow()
    expect(() => createKernel({ tools: [], permissions: { allow: ['ReadMcpResource(docs)'] } })).toThrow(
      'has a specifier, but ReadMcpResource takes none; write ReadMcpResource alone',
    )
  })

  it('a deny rule keeps the model off them', async () => {
    const k = kernel(both, { permissions: { deny: ['ListMcpResources'] } })
    expect(k.apiTools().map((tool) => tool.name)).not.toContain('ListMcpResources')
    const { result } = await k.callTool('ListMcpResources', {})
    expect(result?.is_error).toBe(true)
    expect(textOf(result)).toContain('ListMcpResources')
  })
})

describe('their spans', () => {
  it('carry the MCP request they make (resources/list, resources/read with its uri) and the server', async () => {
    const k = kernel(both)
    await k.callTool('ListMcpResources', { server: 'docs' })
    await k.callTool('ReadMcpResource', { server: 'docs', uri: 'note://readme' })
    const calls = projectTelemetry(k.log.read()).spans.filter((span) => span.kind === 'call')
    expect(calls.map((span) => span.attributes)).toMatchObject([
      { 'mcp.method.name': 'resources/list', 'toolkernel.mcp.server': 'docs' },
      { 'mcp.method.name': 'resources/read', 'toolkernel.mcp.server': 'docs', 'mcp.resource.uri': 'note://readme' },
    ])
    // An app's own tool of the same name is no MCP request: only a tool source's count.
    const own = createKernel({
      tools: [
        buildTool({
          name: 'ListMcpResources',
          description: () => 'Lists the app’s own resources.',
          inputSchema: z.strictObject({}),
          isReadOnly: () => true,
          call: async () => 'none',
        }),
      ],
    })
    await own.callTool('ListMcpResources', {})
    expect(projectTelemetry(own.log.read()).spans.find((span) => span.kind === 'call')?.attributes).not.toHaveProperty(
      'mcp.method.name',
    )
  })
})

describe('ListMcpResources', () => {
  it('lists every page of every server that has resources, each entry with its server', async () => {
    const { result, output } = await kernel(both).callTool('ListMcpResources', {})
    expect(result?.is_error).toBeUndefined()
    const listed = (output as { resources: { uri: string; server: string; name: string }[] }).resources
    // Six entries over three pages; the malformed one (no uri) is left out and said so.
    expect(listed.map((entry) => entry.uri)).toEqual([
      'note://readme',
      'bin://logo.png',
      'bin://data',
      'note://loud',
      'note://big',
    ])
    expect(listed.every((entry) => entry.server === 'docs')).toBe(true)
    const text = textOf(result)
    expect(JSON.parse(text.split('\n\nNote: ')[0] as string)[0]).toEqual({
      server: 'docs',
      uri: 'note://readme',
      name: 'readme',
      title: 'The readme',
      mimeType: 'text/markdown',
      description: 'What this server holds.',
    })
    expect(text).toContain('Note: 1 malformed entries of "docs" left out')
  })

  it('cuts a server-written description at the cap', async () => {
    const { output } = await kernel(both).callTool('ListMcpResources', { server: 'docs' })
    const loud = (output as { resources: { uri: string; description?: string }[] }).resources.find(
      (entry) => entry.uri === 'note://loud',
    )
    expect(loud?.description?.length).toBe(2049)
    expect(loud?.description?.endsWith('…')).toBe(true)
  })

  it('refuses a server that is not connected, or has no resources, naming the servers that do', async () => {
    const k = kernel(both)
    const unknown = await k.callTool('ListMcpResources', { server: 'nope' })
    expect(unknown.result?.is_error).toBe(true)
    expect(textOf(unknown.result)).toContain(
      'no connected MCP server "nope" offers resources (servers that do: "docs")',
    )
    const without = await k.callTool('ListMcpResources', { server: 'faulty' })
    expect(without.result?.is_error).toBe(true)
    expect(textOf(without.result)).toContain('no connected MCP server "faulty" offers resources')
  })
})

describe('ReadMcpResource', () => {
  it('reads text, framed with its uri, type and server', async () => {
    const { result, output } = await kernel(both).callTool('ReadMcpResource', { server: 'docs', uri: 'note://readme' })
    expect(result?.is_error).toBeUndefined()
    expect(textOf(result)).toBe(
      '[resource <note://readme> (text/markdown) from MCP server "docs"]\n# docs\n\nThe readme of docs.',
    )
    expect(output).toMatchObject({
      server: 'docs',
      uri: 'note://readme',
      contents: [{ text: '# docs\n\nThe readme of docs.' }],
    })
  })

  it('describes a blob by type and size and saves it; the bytes are never inlined nor logged', async () => {
    const k = kernel(both)
    const { result, events } = await k.callTool('ReadMcpResource', { server: 'docs', uri: 'bin://data' })
    const text = textOf(result)
    const bytes = Buffer.from('\u0000\u0001binary payload\u00ff')
    expect(text).toMatch(
      new RegExp(
        `^\\[resource <bin://data> \\(application/octet-stream, ${bytes.length} bytes\\) saved as base64 to (\\S+);`,
      ),
    )
    const path = /saved as base64 to (\S+);/.exec(text)?.[1] as string
    expect(existsSync(path)).toBe(true)
    expect(readFileSync(path, 'utf8')).toBe(bytes.toString('base64'))
    expect(JSON.stringify(events)).not.toContain(bytes.toString('base64'))
    // An image blob is not inlined either (the brief of this tool: text only).
    const image = await k.callTool('ReadMcpResource', { server: 'docs', uri: 'bin://logo.png' })
    expect(typeof image.result?.content).toBe('string')
    expect(textOf(image.result)).toContain('(image/png, 70 bytes) saved as base64')
  })

  it("reports the server's own error for an unknown uri", async () => {
    const { result } = await kernel(both).callTool('ReadMcpResource', { server: 'docs', uri: 'note://missing' })
    expect(result?.is_error).toBe(true)
    expect(textOf(result)).toContain('mcp_server_error')
    expect(textOf(result)).toContain('Resource not found: note://missing')
  })

  it('refuses a server without resources before anything is sent', async () => {
    const { result, events } = await kernel(both).callTool('ReadMcpResource', { server: 'faulty', uri: 'x://y' })
    expect(result?.is_error).toBe(true)
    expect(textOf(result)).toContain('no connected MCP server "faulty" offers resources (servers that do: "docs")')
    expect(events.some((event) => event.type === 'tool.started')).toBe(false)
  })

  it('a large text goes through the budget: the model gets a preview and the file', async () => {
    const { result } = await kernel(both).callTool('ReadMcpResource', { server: 'docs', uri: 'note://big' })
    const text = textOf(result)
    expect(text.length).toBeLessThan(200 * 1024)
    expect(text).toMatch(/persisted|saved|preview/i)
  })

  it('a read larger than the message cap fails with mcp_protocol, as a call does', async () => {
    const capped = await connect({ docs: resourcesServer() }, { maxMessageBytes: 64 * 1024 })
    try {
      const { result } = await kernel(capped).callTool('ReadMcpResource', { server: 'docs', uri: 'note://big' })
      expect(result?.is_error).toBe(true)
      expect(textOf(result)).toContain('mcp_protocol')
      expect(textOf(result)).not.toContain('yyyy')
    } finally {
      await capped.close()
    }
  })

  it('asks first: without a rule that allows it, the read parks for a person', async () => {
    const k = kernel(both, { permissions: {} })
    const first = await k.callTool('ReadMcpResource', { server: 'docs', uri: 'note://readme' })
    expect(first.result).toBeUndefined()
    expect(first.pending[0]?.reason).toContain('reads "note://readme" from the MCP server "docs"')
    const listed = await k.callTool('ListMcpResources', {})
    expect(listed.result?.is_error).toBeUndefined()
  })
})
