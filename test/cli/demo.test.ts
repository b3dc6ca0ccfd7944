/** The real bin, as `npm run demo` runs it (npm test builds dist first). */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { parseJsonl, projectMessages } from '../../src/index.js'

const run = promisify(execFile)
const bin = new URL('../../dist/cli/main.js', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'toolkernel-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('toolkernel demo', () => {
  it('runs the coding scenario and writes a log that re-projects to what it printed', async () => {
    const log = join(dir, 'demo.jsonl')
    const { stdout } = await run('node', [bin, 'demo', '--log', log])
    expect(stdout).toContain('batch 0: toolu_01_grep, toolu_02_glob')
    expect(stdout).toContain('No such tool: \\"Serch\\"')
    expect(stdout).toContain('check passed: greet works')
    // Bash streams output this large to the result store itself, and shows its head and tail.
    expect(stdout).toMatch(
      /\[… \d+ bytes omitted; the full output \(228894 bytes\) is in \S+stream-toolu_09_seq-[0-9a-f]{12}\.txt — read parts of it with Read/,
    )
    const parsed = parseJsonl(readFileSync(log, 'utf8'))
    expect(parsed.corrupt).toEqual([])
    const messages = projectMessages(parsed.events)
    expect(messages).toHaveLength(5)
    expect(stdout).toContain(
      '[canUseTool] Bash toolu_09_seq asks: the command may change things (seq is not on the read-only list): seq 1 40000 — allowed once',
    )
    expect(stdout).toContain('A PreToolUse hook blocked this Bash call: network access is not allowed in this project')
    expect(stdout).toContain('Permission to use Bash was denied: the rule Bash(rm:*) denies it.')
    expect(stdout).toMatch(/permission allow by rule: the rule Bash\(node check\.js\) allows it/)
    expect(stdout).toContain(JSON.stringify(messages[2], null, 2))
    // The MCP section (server-everything, deferred, found through ToolSearch, called), after the pool section.
    expect(stdout.indexOf('── MCP: server-everything over stdio')).toBeGreaterThan(stdout.indexOf('=== Tool pool'))
    expect(stdout).toMatch(/mcp__everything__get-sum \{ a: 19, b: 23 \} → .*42/)
    expect(stdout).toContain(`Timeline: toolkernel timeline ${log} --html timeline.html, then open it in a browser`)
    expect(stdout).toContain(
      `Trace: toolkernel export ${log} --chrome-trace trace.json (or --otlp http://127.0.0.1:4318)`,
    )
  })

  it('--stream finishes safe calls before the stream ends, and interrupts a turn', async () => {
    const log = join(dir, 'stream.jsonl')
    const { stdout } = await run('node', [bin, 'demo', '--stream', '--log', log])
    expect(stdout).toContain(`Timeline: toolkernel timeline ${log} --html timeline.html, then open it in a browser`)
    expect(stdout).not.toContain('── MCP:')
    const lines = stdout.split('\n')
    const ended = lines.findIndex((l) => l.includes('the stream ended'))
    const firstDone = lines.findIndex((l) => l.includes('toolu_s1_glob finished (success)'))
    expect(firstDone).toBeGreaterThan(-1)
    expect(firstDone).toBeLessThan(ended)
    expect(stdout).toContain('Bash was interrupted while running: the user pressed Esc.')
    expect(stdout).toContain('Write was cancelled before it ran: the user pressed Esc.')
  })

  it('is an executable bin, as npx runs it', async () => {
    expect(statSync(bin).mode & 0o111).not.toBe(0)
    expect((await run(bin, ['help'])).stdout).toMatch(/^usage: toolkernel <command>/)
  })

  it('rejects unknown commands and options with a clear message', async () => {
    await expect(run('node', [bin, 'frobnicate'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown command "frobnicate"'),
    })
    await expect(run('node', [bin, 'demo', '--nope'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        "toolkernel demo: unknown option '--nope' (toolkernel demo --help lists its options)",
      ),
    })
  })
})
