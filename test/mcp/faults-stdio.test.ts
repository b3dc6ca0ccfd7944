/**
 * The faulty fixture server over stdio: crashes, kills, hangs, garbage, huge output, error
 * results, schemas the model APIs reject, long and colliding names, list_changed mid-call.
 * Every call is answered; nothing runs twice across a reconnect unless it is safe to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpToolSource } from '../../src/mcp.js'
import {
  connect,
  faultyServer,
  mcpKernel,
  run,
  serverState,
  sideEffects,
  tempFile,
  textOf,
  toolNamed,
  until,
} from './mcp-helpers.js'

let source: McpToolSource
const state = tempFile()

beforeAll(async () => {
  source = await connect({ faulty: faultyServer('main', state) }, { callTimeoutMs: 10_000 })
})
afterAll(() => source.close())

const ready = () => until(source, () => serverState(source, 'faulty')?.state === 'ready')

describe('faulty server over stdio: crashes', () => {
  it('exit mid-call: mcp_connection_closed with the exit code and stderr, no retry, then restarted', async () => {
    const kernel = mcpKernel(source.tools())
    const { blocks, events } = await run(kernel, [['x', 'mcp__faulty__exit-mid-call', { code: 3 }]])
    const text = textOf(blocks[0])
    expect(blocks[0]?.is_error).toBe(true)
    expect(text).toContain('mcp_connection_closed')
    expect(text).toContain('exited with code 3')
    expect(text).toContain('exit-mid-call: exiting with 3')
    expect(text).toContain('may or may not have taken effect')
    expect(events.some((event) => event.type === 'tool.progress')).toBe(false)
    expect(sideEffects(state, 'exit-mid-call')).toBe(1)
    await ready()
    const after = await run(kernel, [['e', 'mcp__faulty__echo', { text: 'back' }]])
    expect(textOf(after.blocks[0])).toBe('main: back')
    expect(sideEffects(state, 'exit-mid-call')).toBe(1)
  })

  it('killed with SIGKILL mid-call: the call says so, the server comes back with a new process', async () => {
    await ready()
    const pid = serverState(source, 'faulty')?.pid as number
    const kernel = mcpKernel(source.tools())
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'h', name: 'mcp__faulty__hang', input: {} })
    turn.end('tool_use')
    for await (const update of turn.updates()) if (update.type === 'progress') process.kill(pid, 'SIGKILL')
    const { message } = await turn.result()
    expect(message.content[0]?.is_error).toBe(true)
    expect(textOf(message.content[0])).toContain('killed by SIGKILL')
    await ready()
    expect(serverState(source, 'faulty')?.pid).not.toBe(pid)
    const after = await run(kernel, [['e', 'mcp__faulty__echo', { text: 'again' }]])
    expect(textOf(after.blocks[0])).toBe('main: again')
  })

  it('garbage on stdout: mcp_protocol, the connection is reset, the next call works', async () => {
    await ready()
    const kernel = mcpKernel(source.tools())
    const { blocks } = await run(kernel, [['m', 'mcp__faulty__malformed', {}]])
    expect(blocks[0]?.is_error).toBe(true)
    expect(textOf(blocks[0])).toContain('mcp_protocol')
    expect(textOf(blocks[0])).toContain('not JSON-RPC')
    await ready()
    const after = await run(kernel, [['e', 'mcp__faulty__echo', { text: 'clean' }]])
    expect(textOf(after.blocks[0])).toBe('main: clean')
  })
})

describe('faulty server over stdio: retry after a lost connection', () => {
  it('a trusted read-only tool cut off is sent once more, and the retry is in the log', async () => {
    const retryState = tempFile()
    const trusted = await connect({ faulty: faultyServer('retry', retryState) }, { trusted: ['faulty'] })
    try {
      const { blocks, events } = await run(mcpKernel(trusted.tools()), [['r', 'mcp__faulty__exit-once-readonly', {}]])
      expect(textOf(blocks[0])).toBe('answered on the second try')
      expect(sideEffects(retryState, 'exit-once-readonly')).toBe(2)
      const retry = events.find((event) => event.type === 'tool.progress')
      expect(retry).toMatchObject({
        data: { type: 'mcp.retry', server: 'faulty', tool: 'exit-once-readonly', why: 'read-only' },
      })
    } finally {
      await trusted.close()
    }
  })

  it('the same tool from an untrusted server is not sent again: its hints do not count', async () => {
    const onceState = tempFile()
    const untrusted = await connect({ faulty: faultyServer('untrusted', onceState) })
    try {
      const { blocks } = await run(mcpKernel(untrusted.tools()), [['r', 'mcp__faulty__exit-once-readonly', {}]])
      expect(textOf(blocks[0])).toContain('mcp_connection_closed')
      expect(sideEffects(onceState, 'exit-once-readonly')).toBe(1)
    } finally {
      await untrusted.close()
    }
  })

  it('a call to a server that is down answers at once, without sending anything', async () => {
    const downState = tempFile()
    const slow = await connect(
      { faulty: faultyServer('down', downState) },
      { restart: { initialDelayMs: 600_000, maxDelayMs: 600_000 } },
    )
    try {
      const kernel = mcpKernel(slow.tools())
      await run(kernel, [['x', 'mcp__faulty__exit-mid-call', {}]])
      expect(serverState(slow, 'faulty')?.state).toBe('down')
      const { blocks } = await run(kernel, [['x2', 'mcp__faulty__exit-mid-call', {}]])
      expect(textOf(blocks[0])).toContain('is not connected')
      expect(textOf(blocks[0])).toContain('the call was not sent and had no effect')
      expect(sideEffects(downState, 'exit-mid-call')).toBe(1)
      expect(slow.status()).toMatchObject({ state: 'failed' })
      expect(slow.diagnostics()).toContainEqual(expect.objectContaining({ kind: 'server_down', server: 'faulty' }))
    } finally {
      await slow.close()
    }
  })
  it('a server that cannot start: the source says why, and its calls are never attempted', async () => {
    const missing = await connect({ ghost: { command: '/nonexistent/mcp-server' } })
    try {
      expect(missing.status()).toMatchObject({ state: 'failed', reason: expect.stringContaining('ENOENT') })
      expect(missing.tools()).toEqual([])
      expect(serverState(missing, 'ghost')?.fault).toContain('could not be started')
    } finally {
      await missing.close()
    }
  })
})

describe('faulty server over stdio: timeouts', () => {
  it('hang forever: mcp_timeout, the server is told to cancel, and it stays up', async () => {
    const quick = await connect({ faulty: faultyServer('hang') }, { callTimeoutMs: 300 })
    try {
      const kernel = mcpKernel(quick.tools())
      const pid = serverState(quick, 'faulty')?.pid
      const { blocks } = await run(kernel, [['h', 'mcp__faulty__hang', {}]])
      expect(textOf(blocks[0])).toContain('mcp_timeout')
      expect(textOf(blocks[0])).toContain('no answer and no progress for 0.3 s')
      const stats = await run(kernel, [['s', 'mcp__faulty__stats', {}]])
      expect(JSON.parse(textOf(stats.blocks[0]))).toMatchObject({ cancelled: 1 })
      expect(serverState(quick, 'faulty')?.pid).toBe(pid)
    } finally {
      await quick.close()
    }
  })
  it('abort mid-call: the server is told to cancel (it counts it), and the same process serves the next call', async () => {
    await ready()
    const pid = serverState(source, 'faulty')?.pid
    const kernel = mcpKernel(source.tools())
    const before = JSON.parse(textOf((await run(kernel, [['s0', 'mcp__faulty__stats', {}]])).blocks[0])) as {
      cancelled: number
    }
    const controller = new AbortController()
    const turn = kernel.startTurn({ signal: controller.signal })
    turn.addToolUse({ id: 'h', name: 'mcp__faulty__hang', input: {} })
    turn.end('tool_use')
    for await (const update of turn.updates()) if (update.type === 'progress') controller.abort('stop')
    const { message } = await turn.result()
    expect(textOf(message.content[0])).toContain('interrupted')
    const after = await run(kernel, [['s1', 'mcp__faulty__stats', {}]])
    expect(JSON.parse(textOf(after.blocks[0]))).toMatchObject({ cancelled: before.cancelled + 1 })
    expect(serverState(source, 'faulty')?.pid).toBe(pid)
  })
})

describe('faulty server over stdio: results', () => {
  it('5 MB of output goes through the budget step like any tool: persisted, the model gets a preview and the path', async () => {
    const { blocks, events } = await run(mcpKernel(source.tools()), [['b', 'mcp__faulty__big', { mb: 5 }]])
    expect(textOf(blocks[0]).length).toBeLessThan(20_000)
    expect(events.some((event) => event.type === 'tool.budgeted')).toBe(true)
  })

  it('isError with several text blocks: is_error with all of its text', async () => {
    const { blocks } = await run(mcpKernel(source.tools()), [['e', 'mcp__faulty__multi-error', {}]])
    expect(blocks[0]?.is_error).toBe(true)
    const text = textOf(blocks[0])
    for (const part of ['first: the query was rejected', 'second: quota exceeded', 'third: try again tomorrow'])
      expect(text).toContain(part)
  })

  it('an output schema without structured content: mcp_output_schema', async () => {
    const { blocks } = await run(mcpKernel(source.tools()), [['o', 'mcp__faulty__no-structured', {}]])
    expect(blocks[0]?.is_error).toBe(true)
    expect(textOf(blocks[0])).toContain('mcp_output_schema')
  })

  it('every content type: text, image inline; audio and blobs saved with a pointer; structuredContent and _meta kept out', async () => {
    const { blocks, events } = await run(mcpKernel(source.tools()), [['c', 'mcp__faulty__all-content', {}]])
    const content = blocks[0]?.content
    expect(Array.isArray(content) && content.map((part) => part.type)).toEqual([
      'text',
      'image',
      'text',
      'text',
      'text',
      'text',
    ])
    const text = textOf(blocks[0])
    expect(text).toMatch(/\[audio \(audio\/wav, \d+ bytes\) saved as base64 to \S+/)
    expect(text).toContain('[resource <file:///notes.txt> (text/plain)]\nembedded text')
    expect(text).toMatch(/\[resource <file:\/\/\/blob.bin> \(application\/octet-stream, \d+ bytes\) saved as base64 to/)
    expect(text).toContain('[resource link: linked.md <file:///linked.md> (text/markdown, A linked file)]')
    expect(JSON.stringify(blocks)).not.toContain('example.com/trace')
    const completed = events.find((event) => event.type === 'tool.completed')
    expect(completed).toMatchObject({
      output: { mcpMeta: { structuredContent: { kinds: 6 }, _meta: { 'example.com/trace': 'abc' } } },
    })
  })
})

describe('faulty server over stdio: schemas and names', () => {
  it('a top-level oneOf is sent wrapped under `input`, validated with ajv, and unwrapped for the server', async () => {
    const tool = toolNamed(source, 'faulty', 'one-of')
    expect(tool.inputJSONSchema).toMatchObject({
      type: 'object',
      required: ['input'],
      properties: { input: { oneOf: expect.any(Array) } },
    })
    expect(tool.inputJSONSchema).not.toHaveProperty('oneOf')
    const { blocks } = await run(mcpKernel(source.tools()), [
      ['ok', tool.name, { input: { b: 2 } }],
      ['bad', tool.name, { input: { c: 1 } }],
    ])
    expect(JSON.parse(textOf(blocks[0]))).toEqual({ got: { b: 2 } })
    expect(blocks[1]?.is_error).toBe(true)
    expect(textOf(blocks[1])).toContain('missing required field `input.a`')
  })

  it("an untrusted server's readOnlyHint counts for nothing: not concurrency-safe, not read-only", () => {
    const echo = toolNamed(source, 'faulty', 'echo')
    expect(echo.isConcurrencySafe({})).toBe(false)
    expect(echo.isReadOnly({})).toBe(false)
    expect(echo.mcp).toMatchObject({ trusted: false, flags: { readOnly: false, retryable: false } })
  })

  it('a schema that cannot be compiled is withheld with a diagnostic naming server, tool and reason', () => {
    expect(source.serverTools().some((tool) => tool.mcp.tool === 'bad-schema')).toBe(false)
    expect(source.diagnostics()).toContainEqual(
      expect.objectContaining({
        kind: 'tool_withheld',
        server: 'faulty',
        tool: 'bad-schema',
        reason: expect.stringContaining('not a valid JSON Schema'),
      }),
    )
  })

  it('100-character names: unique, at most 64 characters, hashed, and each calls its own tool', async () => {
    const long = source.names().filter((entry) => entry.tool.length > 60)
    expect(long).toHaveLength(2)
    expect(new Set(long.map((entry) => entry.name)).size).toBe(2)
    for (const entry of long) expect(entry.name).toMatch(/^mcp__faulty__a+_[0-9a-f]{8}$/)
    expect(long.every((entry) => entry.name.length <= 64 && entry.hashed === 'overflow')).toBe(true)
    const [one, two] = long.sort((a, b) => (a.tool < b.tool ? -1 : 1))
    const { blocks } = await run(mcpKernel(source.tools()), [
      ['1', one!.name, {}],
      ['2', two!.name, {}],
    ])
    expect(blocks.map(textOf)).toEqual(['one', 'two'])
    const all = source.tools().map((tool) => tool.name)
    expect(new Set(all).size).toBe(all.length)
    expect(all.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name))).toBe(true)
  })

  it('list_changed while a call runs: the call is answered, the new tool appears and is callable', async () => {
    await ready()
    const kernel = mcpKernel(source.tools())
    const pending = run(kernel, [['a', 'mcp__faulty__add-tool', {}]])
    await until(source, () => source.tools().some((tool) => tool.name === 'mcp__faulty__late-tool'))
    await run(mcpKernel(source.tools()), [['r', 'mcp__faulty__release', {}]])
    expect(textOf((await pending).blocks[0])).toBe('add-tool finished')
    const { blocks } = await run(mcpKernel(source.tools()), [['l', 'mcp__faulty__late-tool', {}]])
    expect(textOf(blocks[0])).toBe('late tool ran')
  })
})
