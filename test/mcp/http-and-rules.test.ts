/**
 * The faulty server over Streamable HTTP (its own process, 127.0.0.1, a random port) next to one
 * over stdio: both expose `search`; permission rules `mcp__server` and `mcp__server__tool` work
 * through a kernel; faults over HTTP get the same codes; a killed HTTP server is reconnected.
 */
import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpToolSource } from '../../src/mcp.js'
import {
  connect,
  faultyServer,
  mcpKernel,
  run,
  serverState,
  sideEffects,
  startHttpFaulty,
  textOf,
  until,
} from './mcp-helpers.js'

let source: McpToolSource
let http: { url: string; child: ChildProcess; state: string }

beforeAll(async () => {
  http = await startHttpFaulty('alpha')
  source = await connect({ alpha: { type: 'http', url: http.url }, beta: faultyServer('beta') })
})
afterAll(async () => {
  await source.close()
  http.child.kill('SIGKILL')
})

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  )

describe('two servers, one over HTTP, both exposing search', () => {
  it('names stay apart and each call reaches its own server', async () => {
    const names = source.tools().map((tool) => tool.name)
    expect(names).toContain('mcp__alpha__search')
    expect(names).toContain('mcp__beta__search')
    expect(new Set(names).size).toBe(names.length)
    const { blocks } = await run(mcpKernel(source.tools()), [
      ['a', 'mcp__alpha__search', { q: 'x' }],
      ['b', 'mcp__beta__search', { q: 'x' }],
    ])
    expect(blocks.map(textOf)).toEqual(['alpha results for x', 'beta results for x'])
  })

  it('a server rule (mcp__beta) denies all of its tools; a tool rule (mcp__alpha__echo) only that one', async () => {
    const kernel = mcpKernel(source.tools(), {
      permissions: { mode: 'default', deny: ['mcp__beta', 'mcp__alpha__echo'], allow: ['mcp__alpha'] },
    })
    const { blocks } = await run(kernel, [
      ['a', 'mcp__alpha__search', { q: 'y' }],
      ['e', 'mcp__alpha__echo', { text: 'no' }],
      ['b', 'mcp__beta__search', { q: 'y' }],
      ['be', 'mcp__beta__echo', { text: 'no' }],
    ])
    expect(textOf(blocks[0])).toBe('alpha results for y')
    for (const denied of blocks.slice(1)) {
      expect(denied.is_error).toBe(true)
      expect(textOf(denied)).toContain('denied')
    }
    expect(kernel.apiTools().map((tool) => tool.name)).not.toContain('mcp__beta__search')
  })

  it('hints never auto-allow: in default mode an untrusted read-only-hinted tool still asks', async () => {
    const asked: string[] = []
    const kernel = mcpKernel(source.tools(), {
      permissions: { mode: 'default' },
      canUseTool: async (request) => {
        asked.push(`${request.tool}: ${request.reason}`)
        return { behavior: 'deny', message: 'not now' }
      },
    })
    const { blocks } = await run(kernel, [['a', 'mcp__alpha__echo', { text: 'hi' }]])
    expect(blocks[0]?.is_error).toBe(true)
    expect(asked).toEqual([expect.stringContaining('mcp__alpha__echo: "echo" is a tool of the MCP server "alpha"')])
  })
})

describe('faults over Streamable HTTP', () => {
  it('an invalid result: mcp_protocol; isError with several blocks keeps all its text', async () => {
    const { blocks } = await run(mcpKernel(source.tools()), [
      ['m', 'mcp__alpha__malformed', {}],
      ['e', 'mcp__alpha__multi-error', {}],
    ])
    expect(textOf(blocks[0])).toContain('mcp_protocol')
    expect(blocks[1]?.is_error).toBe(true)
    expect(textOf(blocks[1])).toContain('second: quota exceeded')
  })

  it('the server process killed mid-call: mcp_connection_closed; while down calls answer at once; back when it is', async () => {
    const kernel = mcpKernel(source.tools())
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'h', name: 'mcp__alpha__hang', input: {} })
    turn.end('tool_use')
    for await (const update of turn.updates()) if (update.type === 'progress') http.child.kill('SIGKILL')
    const { message } = await turn.result()
    expect(textOf(message.content[0])).toContain('mcp_connection_closed')
    await exited(http.child)
    await until(source, () => serverState(source, 'alpha')?.state === 'down')
    const down = await run(kernel, [['e', 'mcp__alpha__echo', { text: 'anyone?' }]])
    expect(textOf(down.blocks[0])).toContain('the call was not sent')
    const port = new URL(http.url).port
    http = await startHttpFaultyOn(port, http.state)
    await until(source, () => serverState(source, 'alpha')?.state === 'ready')
    const back = await run(kernel, [['e2', 'mcp__alpha__echo', { text: 'back' }]])
    expect(textOf(back.blocks[0])).toBe('alpha: back')
  })

  it('a session the server forgot (404): that call fails clearly, the client initializes again, the next works', async () => {
    await until(source, () => serverState(source, 'alpha')?.state === 'ready')
    const kernel = mcpKernel(source.tools())
    await run(kernel, [['f', 'mcp__alpha__forget-sessions', {}]])
    const stale = await run(kernel, [['s', 'mcp__alpha__echo', { text: 'stale' }]])
    expect(textOf(stale.blocks[0])).toContain('mcp_connection_closed')
    await until(source, () => serverState(source, 'alpha')?.state === 'ready')
    const fresh = await run(kernel, [['f2', 'mcp__alpha__echo', { text: 'fresh' }]])
    expect(textOf(fresh.blocks[0])).toBe('alpha: fresh')
  })

  it('exit mid-call over HTTP: mcp_connection_closed and the side effect happened once', async () => {
    await until(source, () => serverState(source, 'alpha')?.state === 'ready')
    const { blocks } = await run(mcpKernel(source.tools()), [['x', 'mcp__alpha__exit-mid-call', {}]])
    expect(textOf(blocks[0])).toContain('mcp_connection_closed')
    expect(sideEffects(http.state, 'exit-mid-call')).toBe(1)
  })
})

async function startHttpFaultyOn(port: string, state: string) {
  const previous = process.env.FAULTY_PORT
  process.env.FAULTY_PORT = port
  try {
    return await startHttpFaulty('alpha', state)
  } finally {
    if (previous === undefined) delete process.env.FAULTY_PORT
    else process.env.FAULTY_PORT = previous
  }
}
