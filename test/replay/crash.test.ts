/** A real process running a turn is killed with SIGKILL; its JSONL log is recovered and replayed. */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createJsonlLog, createKernel, parseJsonl, projectMessages, replay } from '../../src/index.js'
import { pollUntil } from '../processes.js'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-crash-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const tools = ['Quick', 'Hang', 'Later'].map((name) =>
  buildTool({
    name,
    description: () => name,
    inputSchema: z.object({}),
    isConcurrencySafe: () => name !== 'Later',
    call: async () => '',
  }),
)

async function waitFor(check: () => boolean): Promise<void> {
  if (!(await pollUntil(check))) throw new Error('condition not reached')
}

describe('crash recovery', () => {
  it('recovers the JSONL log of a process killed with SIGKILL mid-call', async () => {
    const logPath = join(dir, 'session.jsonl')
    const child = spawn(process.execPath, [new URL('../fixtures/crash/child.mjs', import.meta.url).pathname, logPath], {
      stdio: 'ignore',
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await waitFor(() => existsSync(logPath) && readFileSync(logPath, 'utf8').includes('"tool.progress"'))
    child.kill('SIGKILL')
    await exited

    const before = parseJsonl(readFileSync(logPath, 'utf8'))
    expect(before.corrupt).toEqual([])
    expect(before.events.some((e) => e.type === 'turn.completed')).toBe(false)

    const kernel = createKernel({ tools }).resume(createJsonlLog(logPath, { now: () => 0 }))
    const after = parseJsonl(readFileSync(logPath, 'utf8')).events
    const [message] = projectMessages(after)
    expect(message?.content.map((b) => [b.tool_use_id, String(b.content)])).toEqual([
      ['q1', 'quick result'],
      [
        'h1',
        expect.stringMatching(
          /^Hang was interrupted while running: the session stopped unexpectedly .*Output before it stopped:\nworking…\n$/s,
        ),
      ],
      ['l1', expect.stringMatching(/^Later was cancelled before it ran: the session stopped unexpectedly/)],
    ])
    const result = await replay(after, { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
    // The resumed kernel goes on with the session.
    expect(
      (await kernel.runTurn({ role: 'assistant', content: [{ type: 'tool_use', id: 'n1', name: 'Quick', input: {} }] }))
        .message.content,
    ).toHaveLength(1)
  })
})
