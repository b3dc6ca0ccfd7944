/**
 * Hostile MCP servers and hostile hooks (issue 30, items 2 and 3). Every row runs a real kernel: the
 * MCP rows against test/fixtures/mcp-servers/hostile.mjs, a real stdio server that records each
 * tool it really ran, the hook rows with real hook processes. A row passes when the attack's
 * effect did not happen: the tool did not run, the megabytes did not reach the tool_result.
 *
 * The controls show each attack can have its effect here: the server does run the look-alike
 * when asked, a long-named tool does run under its API name without the rule, a hook's `allow`
 * does make an asking tool run. A row whose control fails would pass for the wrong reason.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type HooksConfig, type KernelOptions, type ToolResultBlock } from '../../src/index.js'
import type { McpToolSource } from '../../src/mcp.js'
import { openMcpConnection } from '../../src/adapters/mcp-connection.js'
import { assistant, testKernel } from '../helpers.js'
import { connect, mcpKernel, run, serverState, sideEffects, tempFile, textOf, until } from '../mcp/mcp-helpers.js'

const HOSTILE = resolve('test/fixtures/mcp-servers/hostile.mjs')
const LONG_DELETE = `delete_${'x'.repeat(80)}`
const hostileServer = (state: string, floodMb = 100) => ({
  command: process.execPath,
  args: [HOSTILE],
  env: { HOSTILE_STATE: state, HOSTILE_FLOOD_MB: String(floodMb) },
})

/** A PreToolUse guard that blocks whatever its matcher matches. */
const guard = (matcher: string): HooksConfig => ({
  PreToolUse: [{ matcher, hooks: [{ type: 'function', fn: () => ({ decision: 'block', reason: 'guarded' }) }] }],
})

/** A result past the app's 1 MiB cap fails the call in words; the server comes back and answers the next call. */
async function floodPastTheAppsCap(source: Awaited<ReturnType<typeof connect>>): Promise<void> {
  try {
    const kernel = mcpKernel(source.tools())
    const { blocks } = await run(kernel, [['f', 'mcp__flood__flood', {}]])
    expect(textOf(blocks[0])).toMatch(/larger than 1048576 bytes/)
    await until(source, () => serverState(source, 'flood')?.state === 'ready')
    const again = await run(kernel, [['e', 'mcp__flood__effect', {}]])
    expect(again.blocks[0]?.is_error).not.toBe(true)
  } finally {
    await source.close()
  }
}

describe('hostile MCP server: names that slip past rules and hooks', () => {
  let source: McpToolSource
  const state = tempFile()
  beforeAll(async () => {
    source = await connect({ evil: hostileServer(state) })
  })
  afterAll(() => source.close())
  beforeEach(() => writeFileSync(state, ''))

  /** Every name the kernel offers for the server's delete tools, plus the one the rule names. */
  const deleteCalls = (): Array<[string, string, unknown]> => {
    const names = source
      .serverTools()
      .filter((tool) => tool.mcp.tool.startsWith('delete'))
      .map((tool) => tool.name)
    return [...new Set([...names, 'mcp__evil__delete_repo'])].map((name, i) => [`d${i}`, name, {}])
  }
  const deleted = () => ['delete_repo', 'delete.repo', LONG_DELETE].reduce((n, tool) => n + sideEffects(state, tool), 0)

  it('a look-alike (delete.repo beside delete_repo) never runs past a deny rule on delete_repo', async () => {
    const kernel = mcpKernel(source.tools(), {
      permissions: { allow: ['mcp__evil'], deny: ['mcp__evil__delete_repo', `mcp__evil__${LONG_DELETE}`] },
    })
    await run(kernel, deleteCalls())
    expect(deleted()).toBe(0)
  })

  it('a look-alike never runs past a guard hook on delete_repo', async () => {
    const kernel = mcpKernel(source.tools(), {
      permissions: { allow: ['mcp__evil'] },
      hooks: {
        PreToolUse: [...guard('mcp__evil__delete_repo').PreToolUse!, ...guard(`mcp__evil__${LONG_DELETE}`).PreToolUse!],
      },
    })
    await run(kernel, deleteCalls())
    expect(deleted()).toBe(0)
  })

  it('both look-alikes are withheld, with a diagnostic naming the clash', () => {
    const withheld = source.diagnostics().filter((d) => d.kind === 'tool_withheld')
    expect(withheld.map((d) => d.tool).sort()).toEqual(['delete.repo', 'delete_repo'])
    expect(withheld[0]?.reason).toMatch(/mcp__evil__delete_repo/)
  })

  it('a deny rule naming a long tool as the server lists it applies to its cut, hashed name', async () => {
    const kernel = mcpKernel(source.tools(), {
      permissions: { allow: ['mcp__evil'], deny: [`mcp__evil__${LONG_DELETE}`] },
    })
    const long = source.serverTools().find((tool) => tool.mcp.tool === LONG_DELETE)
    expect(long?.name.length).toBeLessThanOrEqual(64)
    expect(kernel.apiTools().map((tool) => tool.name)).not.toContain(long?.name)
    const { blocks } = await run(kernel, [['l', long!.name, {}]])
    expect(blocks[0]?.is_error).toBe(true)
    expect(sideEffects(state, LONG_DELETE)).toBe(0)
  })

  it('a guard hook whose matcher names a long tool as the server lists it runs for its hashed name', async () => {
    const kernel = mcpKernel(source.tools(), {
      permissions: { allow: ['mcp__evil'] },
      hooks: guard(`mcp__evil__${LONG_DELETE}`),
    })
    const long = source.serverTools().find((tool) => tool.mcp.tool === LONG_DELETE)!
    const { blocks } = await run(kernel, [['l', long.name, {}]])
    expect(textOf(blocks[0])).toContain('guarded')
    expect(sideEffects(state, LONG_DELETE)).toBe(0)
  })

  describe('controls', () => {
    it('the server does run the look-alike when a client asks for it', async () => {
      const connection = openMcpConnection({
        server: 'evil',
        config: { type: 'stdio', ...hostileServer(state) },
        cwd: process.cwd(),
        clientInfo: { name: 'control', version: '0' },
        callTimeoutMs: 20_000,
        maxCallTimeoutMs: 20_000,
        connectTimeoutMs: 20_000,
        restart: { initialDelayMs: 20, maxDelayMs: 200 },
      })
      try {
        expect(await connection.whenReady(new AbortController().signal)).toBe(true)
        await connection.callTool(
          'delete.repo',
          {},
          {
            signal: new AbortController().signal,
            onProgress: () => undefined,
            onEvent: () => undefined,
          },
        )
        expect(sideEffects(state, 'delete.repo')).toBe(1)
      } finally {
        await connection.close()
      }
    })

    it('without the rule or the hook, the long tool runs under its hashed name', async () => {
      const kernel = mcpKernel(source.tools(), { permissions: { allow: ['mcp__evil'] } })
      const long = source.serverTools().find((tool) => tool.mcp.tool === LONG_DELETE)!
      await run(kernel, [['l', long.name, {}]])
      expect(sideEffects(state, LONG_DELETE)).toBe(1)
    })
  })
})

describe('hostile MCP server: a result past the message size cap', () => {
  it('a 100 MB result is refused with a clear error, not parsed and returned', async () => {
    const state = tempFile()
    const source = await connect({ flood: hostileServer(state, 100) })
    try {
      const kernel = mcpKernel(source.tools())
      const { blocks } = await run(kernel, [['f', 'mcp__flood__flood', {}]])
      expect(blocks[0]?.is_error).toBe(true)
      expect(textOf(blocks[0])).toMatch(/larger than \d+ bytes/)
      expect(textOf(blocks[0]).length).toBeLessThan(10_000)
    } finally {
      await source.close()
    }
  })

  it('the cap the app sets (maxMessageBytes) is the one enforced, and the server comes back', async () => {
    await floodPastTheAppsCap(await connect({ flood: hostileServer(tempFile(), 2) }, { maxMessageBytes: 1024 * 1024 }))
  })

  it('control: the same tool answers under the cap', async () => {
    const source = await connect({ flood: hostileServer(tempFile(), 1) })
    try {
      const kernel = mcpKernel(source.tools())
      const { blocks } = await run(kernel, [['f', 'mcp__flood__flood', {}]])
      expect(blocks[0]?.is_error).not.toBe(true)
    } finally {
      await source.close()
    }
  })
})

describe('hostile MCP server over HTTP: a result past the message size cap', () => {
  const servers: ChildProcess[] = []
  afterAll(() => {
    for (const child of servers) child.kill('SIGKILL')
  })
  /** The hostile server over Streamable HTTP in its own process (`sse`: each answer as an event stream). */
  async function startHttp(floodMb: number, sse: boolean): Promise<string> {
    const child = spawn(process.execPath, [HOSTILE, sse ? 'sse' : 'http'], {
      env: { ...process.env, HOSTILE_STATE: tempFile(), HOSTILE_FLOOD_MB: String(floodMb) },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    servers.push(child)
    const port = await new Promise<string>((resolvePort, reject) => {
      child.once('exit', (code) => reject(new Error(`hostile http server exited with ${code}`)))
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const match = /^LISTENING (\d+)$/.exec(line)
        if (match) resolvePort(match[1] as string)
      })
    })
    return `http://127.0.0.1:${port}/mcp`
  }

  for (const sse of [false, true])
    describe(sse ? 'answered as an event stream' : 'answered as JSON', () => {
      it('a 100 MB result is cut at the cap: the call fails with a clear error, recorded as a fault', async () => {
        const source = await connect({ flood: { type: 'http', url: await startHttp(100, sse) } })
        try {
          const kernel = mcpKernel(source.tools())
          const { blocks, events } = await run(kernel, [['f', 'mcp__flood__flood', {}]])
          expect(blocks[0]?.is_error).toBe(true)
          expect(textOf(blocks[0])).toMatch(/larger than 67108864 bytes \(the cap on one MCP message\)/)
          expect(textOf(blocks[0])).toContain('mcp_protocol')
          expect(textOf(blocks[0]).length).toBeLessThan(10_000)
          expect(JSON.stringify(events)).toContain('mcp_protocol')
        } finally {
          await source.close()
        }
      })

      it('the cap the app sets is the one enforced, and the server comes back', async () => {
        await floodPastTheAppsCap(
          await connect({ flood: { type: 'http', url: await startHttp(2, sse) } }, { maxMessageBytes: 1024 * 1024 }),
        )
      })

      it('control: the same tool answers under the cap', async () => {
        const source = await connect({ flood: { type: 'http', url: await startHttp(1, sse) } })
        try {
          const kernel = mcpKernel(source.tools())
          const { blocks } = await run(kernel, [['f', 'mcp__flood__flood', {}]])
          expect(blocks[0]?.is_error).not.toBe(true)
          expect(textOf(blocks[0]).length).toBeGreaterThan(0)
        } finally {
          await source.close()
        }
      })
    })
})

describe('hostile hooks', () => {
  const ran: string[] = []
  beforeEach(() => ran.splice(0))
  /** A tool that asks first (no canUseTool here, so "ask" means it does not run) and records each run. */
  const Asks = buildTool({
    name: 'Asks',
    description: () => 'asks first',
    inputSchema: z.object({}),
    checkPermissions: () => ({ behavior: 'ask', message: 'Asks needs approval' }),
    async call() {
      ran.push('Asks')
      return 'asked and ran'
    },
  })
  /** A tool that runs unasked and records each run. */
  const Runs = buildTool({
    name: 'Runs',
    description: () => 'runs',
    inputSchema: z.object({}),
    async call() {
      ran.push('Runs')
      return 'ran'
    },
  })
  const kernel = (hooks: HooksConfig, options: Partial<KernelOptions> = {}) =>
    // An ask nobody answers is denied (not parked), so each row reads the denial.
    testKernel([Asks, Runs], {
      hooks,
      cwd: mkdtempSync(join(tmpdir(), 'tk-hostile-hooks-')),
      approvals: 'deny',
      ...options,
    })
  /** A command hook that prints this JSON answer and exits 0. */
  const answering = (event: 'PreToolUse' | 'PostToolUse', answer: unknown): HooksConfig => ({
    [event]: [{ hooks: [{ type: 'command', command: `printf '%s' '${JSON.stringify(answer)}'` }] }],
  })
  const turn = async (k: ReturnType<typeof kernel>, name: string) => {
    const { message } = await k.runTurn(assistant(['t', name, {}]))
    const block = (message.content as ToolResultBlock[])[0]!
    return { block, text: typeof block.content === 'string' ? block.content : JSON.stringify(block.content) }
  }

  it('an allow labelled for another hook event does not make an asking tool run', async () => {
    const { block } = await turn(
      kernel(
        answering('PreToolUse', { hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'allow' } }),
      ),
      'Asks',
    )
    expect(block.is_error).toBe(true)
    expect(ran).toEqual([])
  })

  it('control: the same allow labelled PreToolUse does make it run', async () => {
    await turn(
      kernel(
        answering('PreToolUse', { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }),
      ),
      'Asks',
    )
    expect(ran).toEqual(['Asks'])
  })

  it('decision "block" beside permissionDecision "allow" in one answer blocks', async () => {
    const { block } = await turn(
      kernel(
        answering('PreToolUse', {
          decision: 'block',
          reason: 'no',
          hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' },
        }),
      ),
      'Asks',
    )
    expect(block.is_error).toBe(true)
    expect(ran).toEqual([])
  })

  it('megabytes of additionalContext do not reach the tool_result', async () => {
    const huge = 'c'.repeat(5 * 1024 * 1024)
    const { text } = await turn(
      kernel({ PostToolUse: [{ hooks: [{ type: 'function', fn: () => ({ additionalContext: huge }) }] }] }),
      'Runs',
    )
    expect(text.length).toBeLessThan(20_000)
    expect(text).toMatch(/cut/)
  })

  it('nearly a megabyte of additionalContext from a command hook is cut too', async () => {
    const { text } = await turn(
      kernel({
        PostToolUse: [
          {
            hooks: [
              {
                type: 'command',
                command: `node -e 'process.stdout.write(JSON.stringify({additionalContext: "c".repeat(900000)}))'`,
              },
            ],
          },
        ],
      }),
      'Runs',
    )
    expect(text.length).toBeLessThan(20_000)
  })

  it('a block with a reason of megabytes does not put them in the tool_result', async () => {
    const { block, text } = await turn(
      kernel({
        PreToolUse: [{ hooks: [{ type: 'function', fn: () => ({ decision: 'block', reason: 'r'.repeat(3e6) }) }] }],
      }),
      'Runs',
    )
    expect(block.is_error).toBe(true)
    expect(ran).toEqual([])
    expect(text.length).toBeLessThan(20_000)
  })

  it('control: a small additionalContext reaches the tool_result whole', async () => {
    const { text } = await turn(
      kernel({ PostToolUse: [{ hooks: [{ type: 'function', fn: () => ({ additionalContext: 'note-for-model' }) }] }] }),
      'Runs',
    )
    expect(text).toContain('note-for-model')
  })

  it('a matcher that backtracks catastrophically does not stall the call', async () => {
    const name = 'a'.repeat(60)
    const Named = buildTool({ name, description: () => 'a', inputSchema: z.object({}), call: async () => 'ok' })
    const k = testKernel([Named], {
      hooks: guard('(a|aa)+b'),
      cwd: mkdtempSync(join(tmpdir(), 'tk-hostile-hooks-')),
    })
    const { message } = await k.runTurn(assistant(['t', name, {}]))
    expect((message.content as ToolResultBlock[])[0]?.is_error).not.toBe(true)
  })
})
