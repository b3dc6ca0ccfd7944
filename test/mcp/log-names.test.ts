/**
 * The MCP name map and the withheld tools in the log: `pool.changed` records, for a source's
 * change, which server and tool each new name stands for and which tools were withheld and why,
 * so a log says what the names meant and replay resolves the same ones.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { createMemoryLog, replay, type KernelEvent } from '../../src/index.js'
import type { McpToolSource } from '../../src/mcp.js'
import { connect, faultyServer, mcpKernel, run, textOf } from './mcp-helpers.js'

let source: McpToolSource
beforeAll(async () => {
  source = await connect({ faulty: faultyServer('names'), other: faultyServer('other') })
})
afterAll(() => source.close())

const changes = (events: readonly KernelEvent[]) =>
  events.filter((e): e is Extract<KernelEvent, { type: 'pool.changed' }> => e.type === 'pool.changed')

describe('the MCP name map in pool.changed', () => {
  it('names every added tool with its server and tool, lists the withheld ones, and replays', async () => {
    const log = createMemoryLog({ now: () => 1 })
    const kernel = mcpKernel([], {
      log,
      toolSources: [source],
      permissions: { allow: ['mcp__faulty', 'mcp__other'] },
    })
    const { blocks, events } = await run(kernel, [['e', 'mcp__faulty__echo', { text: 'hi' }]])
    expect(textOf(blocks[0])).toContain('hi')
    const [change] = changes(events)
    expect(change?.source).toBe('mcp')
    const expected = source.names().map(({ name, server, tool }) => ({ name, server, tool }))
    expect(change?.names).toEqual(expected)
    expect(change?.names?.map((n) => n.name)).toEqual(change?.added)
    // Two servers both expose `search`, and the long names are hashed: the map says which is which.
    expect(change?.names).toContainEqual({ name: 'mcp__other__search', server: 'other', tool: 'search' })
    expect(change?.withheld).toEqual(
      expect.arrayContaining([
        { server: 'faulty', tool: 'bad-schema', reason: expect.stringMatching(/./) },
        { server: 'other', tool: 'bad-schema', reason: expect.stringMatching(/./) },
      ]),
    )
  })

  // Needs replay.ts to rebuild the recorded sources (recordedSources, src/tools/pool/recorded-source.ts):
  // the lead applies that wiring; until then replay diverges at the first pool.changed of a source.
  it('replays an MCP log without divergence: the recorded source offers the same names', async () => {
    const log = createMemoryLog({ now: () => 1 })
    const kernel = mcpKernel([], { log, toolSources: [source], permissions: { allow: ['mcp__faulty', 'mcp__other'] } })
    await run(kernel, [['e', 'mcp__faulty__echo', { text: 'hi' }]])
    await run(kernel, [['s', 'mcp__other__search', { q: 'x' }]])
    const replayed = await replay(log.read(), { tools: source.tools() })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  // Needs the same replay.ts wiring; with it, `toolkernel replay` of an MCP log needs no servers.
  it('toolkernel replay of an MCP log with no --tools: stand-ins, the recorded source, no divergence', async () => {
    const log = createMemoryLog({ now: () => 1 })
    const kernel = mcpKernel([], {
      log,
      toolSources: [source],
      deferral: { mode: 'always' },
      permissions: { allow: ['mcp__faulty'] },
    })
    await run(kernel, [['s', 'ToolSearch', { query: 'echo text' }]])
    await run(kernel, [['e', 'mcp__faulty__echo', { text: 'hi' }]])
    const path = join(mkdtempSync(join(tmpdir(), 'tk-mcp-log-')), 'mcp.jsonl')
    writeFileSync(
      path,
      log
        .read()
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    )
    const out: string[] = []
    expect(await main(['replay', path, '--quiet'], (line) => out.push(line))).toBe(0)
    expect(out.join('\n')).toContain('Determinism check: ok')
  })
})
