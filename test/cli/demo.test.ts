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
  it('runs the coding scenario, prints a summary per turn, and writes a log of every turn', async () => {
    const log = join(dir, 'demo.jsonl')
    const { stdout } = await run('node', [bin, 'demo', '--log', log])
    // A summary per turn (calls, batches, outcomes, time), a line per call; the full listing is --verbose.
    expect(stdout).toMatch(/=== Turn 1: .*\n4 calls in 3 batches, \d+ ms: 2 success, 2 error\n/)
    expect(stdout).toMatch(/ {2}toolu_01_grep +Grep +success +\d+ ms\n/)
    expect(stdout).toMatch(
      /toolu_03_search +Serch +error +\d+ ms {2}rejected at parse \(unknown_tool\): No such tool: "Serch"/,
    )
    expect(stdout).toMatch(/=== Turn 3: Fix the greeting\n1 call in 1 batch, \d+ ms: 1 success\n/)
    expect(stdout).toContain('Every event, batch and tool_result message of each turn: toolkernel demo --verbose')
    expect(stdout).not.toContain('"tool_use_id"')
    expect(stdout.length).toBeLessThan(10_000)
    const parsed = parseJsonl(readFileSync(log, 'utf8'))
    expect(parsed.corrupt).toEqual([])
    const messages = projectMessages(parsed.events)
    expect(messages).toHaveLength(5)
    expect(JSON.stringify(messages[1])).toContain('check passed: greet works')
    // Bash streams output this large to the result store itself, and shows its head and tail.
    expect(JSON.stringify(messages[3])).toMatch(
      /\[… \d+ bytes omitted; the full output \(228894 bytes\) is in \S+stream-toolu_09_seq-[0-9a-f]{12}\.txt — read parts of it with Read/,
    )
    expect(stdout).toContain(
      '[canUseTool] Bash toolu_09_seq asks: the command may change things (seq is not on the read-only list): seq 1 40000 — allowed once',
    )
    expect(stdout).toContain('rejected at preHook (hook_blocked): A PreToolUse hook blocked this Bash call: network')
    expect(stdout).toContain(
      'rejected at permission (permission_denied): Permission to use Bash was denied: the rule Bash(rm:*)',
    )
    // The MCP section (server-everything, deferred, found through ToolSearch, called), after the pool section.
    expect(stdout.indexOf('── MCP: server-everything over stdio')).toBeGreaterThan(stdout.indexOf('=== Tool pool'))
    expect(stdout).toMatch(/mcp__everything__get-sum \{ a: 19, b: 23 \} → .*42/)
    expect(stdout).toContain(`Timeline: toolkernel timeline ${log} --html timeline.html, then open it in a browser`)
    expect(stdout).toContain(
      `Trace: toolkernel export ${log} --chrome-trace trace.json (or --otlp http://127.0.0.1:4318)`,
    )
  })

  it('--verbose: each turn printed in full — batches, a row per event, the tool_result message — in place of its summary', async () => {
    const log = join(dir, 'verbose.jsonl')
    const { stdout } = await run('node', [bin, 'demo', '--verbose', '--log', log])
    const events = parseJsonl(readFileSync(log, 'utf8')).events
    const messages = projectMessages(events)
    expect(messages).toHaveLength(5)
    // The coding scenario: five turns, each with its batches, its events and its message.
    const turns = stdout.slice(0, stdout.indexOf('\nEvent log (JSONL)'))
    expect(turns.match(/^=== Turn \d: /gm)).toHaveLength(5)
    expect(turns.match(/^Batches \(consecutive concurrency-safe calls run together; others alone\):$/gm)).toHaveLength(
      5,
    )
    expect(turns.match(/^Timeline \(ms since the turn started\):$/gm)).toHaveLength(5)
    expect(turns).toMatch(/^ {2}batch \d+: toolu_01_grep, toolu_02_glob$/m)
    // Every event of the log is a row: the time, the call, the type.
    const rows = turns.split('\n').filter((line) => /^ {2}[ \d]*\d {2}\S* +[a-z]+\.[a-z_.]+ /.test(line))
    expect(rows).toHaveLength(events.length)
    for (const event of events.filter((e) => e.type === 'tool.result'))
      expect(turns).toMatch(new RegExp(`^ {2}[ \\d]*\\d {2}${event.toolUseId} +tool\\.result `, 'm'))
    for (const message of messages) expect(turns).toContain(JSON.stringify(message, null, 2))
    // No summary lines, and no hint to run --verbose; the rest of the demo as without it.
    expect(stdout).not.toMatch(/^\d+ calls? in \d+ batch(es)?, \d+ ms: /m)
    expect(stdout).not.toContain('toolkernel demo --verbose')
    expect(stdout).toContain('=== Tool pool')
    expect(stdout).toContain(`Timeline: toolkernel timeline ${log} --html timeline.html, then open it in a browser`)
  })

  it('--stream --verbose: safe calls finish before the stream ends, a turn is interrupted, each printed in full', async () => {
    const log = join(dir, 'stream.jsonl')
    const { stdout } = await run('node', [bin, 'demo', '--stream', '--verbose', '--log', log])
    expect(stdout).toContain(`Timeline: toolkernel timeline ${log} --html timeline.html, then open it in a browser`)
    expect(stdout).not.toContain('── MCP:')
    const lines = stdout.split('\n')
    const ended = lines.findIndex((l) => l.includes('the stream ended'))
    const firstDone = lines.findIndex((l) => l.includes('toolu_s1_glob finished (success)'))
    expect(firstDone).toBeGreaterThan(-1)
    expect(firstDone).toBeLessThan(ended)
    expect(stdout).toContain('Bash was interrupted while running: the user pressed Esc.')
    expect(stdout).toContain('Write was cancelled before it ran: the user pressed Esc.')
    // --verbose prints each turn's tool_result message as the log projects it.
    const messages = projectMessages(parseJsonl(readFileSync(log, 'utf8')).events)
    expect(messages).toHaveLength(2)
    for (const message of messages) expect(stdout).toContain(JSON.stringify(message, null, 2))
    expect(stdout).not.toContain('toolkernel demo --verbose')
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
