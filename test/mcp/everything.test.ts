/**
 * The MCP client against the reference server (@modelcontextprotocol/server-everything, spawned
 * from its installed files over stdio): every content type, structured content, progress,
 * timeouts with and without progress, abort, elicitation — each through a real kernel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpToolSource } from '../../src/mcp.js'
import { connect, everythingServer, mcpKernel, run, serverState, textOf } from './mcp-helpers.js'

let source: McpToolSource
const elicited: unknown[] = []

beforeAll(async () => {
  source = await connect(
    { everything: everythingServer },
    {
      trusted: ['everything'],
      elicit: (request) => {
        elicited.push(request)
        return { behavior: 'allow', content: { name: 'Ada Lovelace', check: true, integer: 7 } }
      },
    },
  )
})
afterAll(() => source.close())

describe('server-everything over stdio', () => {
  it('lists its tools as deferred mcp__everything__* tools with the server schema kept as sent', async () => {
    const names = source.tools().map((tool) => tool.name)
    expect(names).toContain('mcp__everything__echo')
    expect(names).toContain('mcp__everything__get-sum')
    expect(source.tools().every((tool) => tool.shouldDefer)).toBe(true)
    expect(
      source
        .serverTools()
        .every((tool) => /^mcp__everything__[a-zA-Z0-9_-]+$/.test(tool.name) && tool.name.length <= 64),
    ).toBe(true)
    // It advertises resources: the two resource tools follow its own.
    expect(names.slice(-2)).toEqual(['ListMcpResources', 'ReadMcpResource'])
    const sum = source.tools().find((tool) => tool.name === 'mcp__everything__get-sum')
    expect(sum?.inputJSONSchema).toMatchObject({ type: 'object', required: ['a', 'b'] })
    expect(source.names().find((entry) => entry.name === 'mcp__everything__get-sum')).toEqual({
      server: 'everything',
      tool: 'get-sum',
      name: 'mcp__everything__get-sum',
    })
    expect(source.status()).toEqual({ state: 'ready' })
  })

  it("a trusted server's readOnlyHint makes its tool concurrency-safe; a tool without it stays unsafe", () => {
    const echo = source.serverTools().find((tool) => tool.name === 'mcp__everything__echo')
    const toggle = source.tools().find((tool) => tool.name === 'mcp__everything__toggle-simulated-logging')
    expect(echo?.isConcurrencySafe({})).toBe(true)
    expect(echo?.mcp.flags).toMatchObject({ readOnly: true, retryable: true })
    expect(toggle?.isConcurrencySafe({})).toBe(false)
    expect(toggle?.isDestructive({})).toBe(false)
  })

  it('echo and get-sum through the kernel; a bad input is refused before the server sees it, in words', async () => {
    const kernel = mcpKernel(source.tools())
    const { blocks } = await run(kernel, [
      ['e', 'mcp__everything__echo', { message: 'hello' }],
      ['s', 'mcp__everything__get-sum', { a: 2, b: 40 }],
      ['bad', 'mcp__everything__get-sum', { a: 'two' }],
    ])
    expect(textOf(blocks[0])).toBe('Echo: hello')
    expect(textOf(blocks[1])).toContain('42')
    expect(blocks[2]?.is_error).toBe(true)
    expect(textOf(blocks[2])).toContain('`a` must be a number, got a string')
    expect(textOf(blocks[2])).toContain('missing required field `b`')
  })

  it('tiny image → an image block; annotated message → text and image; resource links → text pointers', async () => {
    const kernel = mcpKernel(source.tools())
    const { blocks } = await run(kernel, [
      ['img', 'mcp__everything__get-tiny-image', {}],
      ['ann', 'mcp__everything__get-annotated-message', { messageType: 'error', includeImage: true }],
      ['links', 'mcp__everything__get-resource-links', { count: 2 }],
    ])
    const image = blocks[0]?.content
    expect(Array.isArray(image) && image.some((part) => part.type === 'image')).toBe(true)
    const annotated = blocks[1]?.content
    expect(Array.isArray(annotated) && annotated.map((part) => part.type)).toEqual(['text', 'image'])
    expect(textOf(blocks[2])).toMatch(/\[resource link: .+ <demo:\/\/resource\/dynamic\/.+>/)
  })

  it('structured content stays with the app (mcpMeta in the output), the model reads the content', async () => {
    const kernel = mcpKernel(source.tools())
    const { blocks, events } = await run(kernel, [
      ['w', 'mcp__everything__get-structured-content', { location: 'Chicago' }],
    ])
    expect(blocks[0]?.is_error).toBeUndefined()
    expect(JSON.parse(textOf(blocks[0]))).toMatchObject({ temperature: 36 })
    const completed = events.find((event) => event.type === 'tool.completed')
    expect(completed).toMatchObject({ output: { mcpMeta: { structuredContent: { temperature: 36, humidity: 82 } } } })
  })

  it('long-running operation (1.5 s, idle timeout 1 s): progress reaches tool.progress and resets the timeout, so it passes', async () => {
    const slow = await connect({ everything: everythingServer }, { trusted: ['everything'], callTimeoutMs: 1000 })
    try {
      const kernel = mcpKernel(slow.tools())
      const { blocks, events } = await run(kernel, [
        ['long', 'mcp__everything__trigger-long-running-operation', { duration: 1.5, steps: 10 }],
      ])
      expect(textOf(blocks[0])).toContain('Long running operation completed')
      const progress = events.filter((event) => event.type === 'tool.progress')
      expect(progress.length).toBeGreaterThanOrEqual(5)
      expect(progress[0]).toMatchObject({ data: { progress: 1, total: 10 } })
    } finally {
      await slow.close()
    }
  })

  it('long-running operation past the hard maximum times out although it reports progress (mcp_timeout)', async () => {
    const capped = await connect({ everything: everythingServer }, { callTimeoutMs: 1500, maxCallTimeoutMs: 400 })
    try {
      const kernel = mcpKernel(capped.tools())
      const { blocks } = await run(kernel, [
        ['long', 'mcp__everything__trigger-long-running-operation', { duration: 4, steps: 20 }],
      ])
      expect(blocks[0]?.is_error).toBe(true)
      expect(textOf(blocks[0])).toContain('mcp_timeout')
      expect(textOf(blocks[0])).toContain('hard limit of 0.4 s')
      const echo = await run(kernel, [['e', 'mcp__everything__echo', { message: 'still here' }]])
      expect(textOf(echo.blocks[0])).toBe('Echo: still here')
    } finally {
      await capped.close()
    }
  })

  it('abort mid-way: the call is interrupted, the server is told and stays up (same process), the next call works', async () => {
    const pid = serverState(source, 'everything')?.pid
    const kernel = mcpKernel(source.tools())
    const controller = new AbortController()
    const turn = kernel.startTurn({ signal: controller.signal })
    turn.addToolUse({
      id: 'long',
      name: 'mcp__everything__trigger-long-running-operation',
      input: { duration: 20, steps: 40 },
    })
    turn.end('tool_use')
    for await (const update of turn.updates()) if (update.type === 'progress') controller.abort('user pressed stop')
    const { message } = await turn.result()
    expect(message.content[0]?.is_error).toBe(true)
    expect(textOf(message.content[0])).toContain('interrupted')
    expect(serverState(source, 'everything')).toMatchObject({ state: 'ready', pid })
    const { blocks } = await run(kernel, [['e', 'mcp__everything__echo', { message: 'after abort' }]])
    expect(textOf(blocks[0])).toBe('Echo: after abort')
  })

  it('elicitation goes to the app callback; its answer reaches the server and the log', async () => {
    const kernel = mcpKernel(source.tools())
    const { blocks, events } = await run(kernel, [['el', 'mcp__everything__trigger-elicitation-request', {}]])
    expect(elicited).toHaveLength(1)
    expect(elicited[0]).toMatchObject({ server: 'everything', message: expect.stringContaining('Please provide') })
    expect(textOf(blocks[0])).toContain('Ada Lovelace')
    const logged = events.find((event) => event.type === 'tool.progress')
    expect(logged).toMatchObject({
      data: { type: 'mcp.elicitation', action: 'accept', content: { name: 'Ada Lovelace' } },
    })
  })
})
