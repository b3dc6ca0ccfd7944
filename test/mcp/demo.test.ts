/** The MCP section of the demo: connect to server-everything, tools deferred, ToolSearch, a call. */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runMcpDemo } from '../../src/cli/demo-mcp.js'
import { createDirectoryResultStore } from '../../src/index.js'

describe('runMcpDemo', () => {
  it('lists the tools as deferred, finds get-sum through ToolSearch and calls it', async () => {
    const lines: string[] = []
    const cwd = mkdtempSync(join(tmpdir(), 'tk-mcp-demo-'))
    await runMcpDemo({
      out: (line) => lines.push(line),
      cwd,
      results: createDirectoryResultStore(join(cwd, 'results')),
    })
    const text = lines.join('\n')
    expect(text).toMatch(/connected: everything \(ready, \d+ tools/)
    expect(text).toMatch(/deferred \(name only\): .*mcp__everything__get-sum/)
    expect(text).toContain('ToolSearch "add two numbers" → ')
    expect(text).toMatch(/ToolSearch .*mcp__everything__get-sum/)
    expect(text).toMatch(/get-sum \{ a: 19, b: 23 \} → .*42/)
  })
})
