/**
 * The batch demo as `toolkernel demo` runs it, in-process: its pool log replays with
 * `toolkernel replay` and no --tools (the log's manifest says which tools were deferred, the
 * stand-ins are deferred the same way and sent as the model saw them, and ToolSearch is the
 * replaying kernel's own), and it ends with the MCP section and how to see the timeline and trace.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-pool-replay-'))
const log = join(dir, 'demo.jsonl')
let stdout = ''
beforeAll(async () => {
  const lines: string[] = []
  expect(await main(['demo', '--log', log], (line) => lines.push(line))).toBe(0)
  stdout = lines.join('\n')
}, 60_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the batch demo', () => {
  it('writes a pool log (200 tools, 190 deferred) that toolkernel replay re-executes without divergence', async () => {
    const out: string[] = []
    const code = await main(['replay', join(dir, 'pool.jsonl'), '--quiet'], (line) => out.push(line))
    expect(out.join('\n')).toContain('Determinism check: ok')
    expect(code).toBe(0)
    // The replaying kernel's own ToolSearch, never a stand-in for it.
    expect(out.join('\n')).not.toMatch(/ToolSearch[^\n]*stand-in/)
  })

  it('ends with the MCP section, then how to open the timeline and export the trace', () => {
    const mcp = stdout.indexOf('── MCP: server-everything over stdio')
    expect(mcp).toBeGreaterThan(stdout.indexOf('=== Tool pool'))
    expect(stdout).toMatch(/mcp__everything__get-sum \{ a: 19, b: 23 \} → .*42/)
    const timeline = stdout.indexOf(
      `Timeline: toolkernel timeline ${log} --html timeline.html, then open it in a browser`,
    )
    expect(timeline).toBeGreaterThan(mcp)
    expect(stdout).toContain(
      `Trace: toolkernel export ${log} --chrome-trace trace.json (or --otlp http://127.0.0.1:4318)`,
    )
  })
})
