/**
 * A session handed from one process to another: process A runs a session in a JSONL store and is
 * killed (SIGKILL) while a slow tool runs; this process (B) opens the session, and
 * `kernel.handOver()` gives what the app sends next — the cut-off turn's recovered tool_result
 * message, in each provider's format — before the conversation goes on. (The same on PostgreSQL:
 * test/store/postgres-resume.test.ts.)
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createJsonlEventStore, createKernel } from '../../src/index.js'
// @ts-expect-error -- a plain ESM fixture shared with the child process
import { sessionTools, turns } from './fixtures/session-script.mjs'

type Tools = Parameters<typeof createKernel>[0]['tools']
type Message = Parameters<ReturnType<typeof createKernel>['runTurn']>[0]
const script = { tools: sessionTools as (deps: unknown, onSlow: () => void) => Tools, turns: turns as Message[] }
const built = existsSync(new URL('../../dist/index.js', import.meta.url))
if (!built) console.warn('JSONL hand-over: skipped — dist/ is not built: run `npm run build` first')

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-hand-over-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.skipIf(!built)('JSONL: a session moves to another process', () => {
  it('A is killed mid-call; B hands over the recovered message, then goes on', async () => {
    const child = spawn(
      process.execPath,
      [new URL('./fixtures/jsonl-session.mjs', import.meta.url).pathname, dir, 'moving'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    )
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await new Promise<void>((resolve) =>
      createInterface({ input: child.stdout }).on('line', (line) => line === 'slow started' && resolve()),
    )
    child.kill('SIGKILL')
    await exited

    const b = createKernel({
      tools: script.tools({ buildTool, z }, () => undefined),
      store: createJsonlEventStore(dir),
      session: 'moving',
      lease: { owner: 'process-b', waitMs: 20_000 },
    })
    await b.ready()
    const last = b.handOver()
    expect(last).toMatchObject({ recovered: true, over: true, pending: [] })
    const [block] = last?.message.content ?? []
    expect(block?.tool_use_id).toBe('s1')
    expect(String(block?.content)).toMatch(/^Slow was interrupted while running: the session stopped/)
    expect(b.handOver({ format: 'openai-chat' })?.message).toEqual([
      { role: 'tool', tool_call_id: 's1', content: String(block?.content) },
    ])
    expect(b.handOver({ format: 'openai-responses' })?.message).toEqual([
      { type: 'function_call_output', call_id: 's1', output: String(block?.content) },
    ])
    // The app sends it, the model answers, the session goes on in B.
    const { message } = await b.runTurn(script.turns[2] as Message)
    expect(message.content.map((b) => b.content)).toEqual(['three'])
    expect(b.handOver()?.message).toEqual(message)
    expect(() => b.handOver({ format: 'gemini' } as never)).toThrow(/format must be one of/)
    expect(() => b.handOver({ provider: 'openai' } as never)).toThrow(/unknown option "provider"/)
    await b.close()
  }, 120_000)
})
