/**
 * Resume anywhere: process A runs a session on PostgreSQL and is killed with SIGKILL while a
 * slow tool runs; this process (B) opens the session from the store once A's lease has expired,
 * recovers the open call, and continues. The projected messages equal those of the same session
 * played in one process. Then the CLI replays the session from the store.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPostgresEventStore } from '../../src/adapters/postgres-event.store.js'
import { createMemoryEventStore } from '../../src/adapters/memory-event.store.js'
import { buildTool, createKernel, projectMessages } from '../../src/index.js'
import { loadSession } from '../../src/cli/load-log.js'
import { postgres } from '../programs.js'
import { startTestServer, type TestServer } from '../postgres-server.js'
// @ts-expect-error -- a plain ESM fixture shared with the child process
import { sessionTools, turns } from './fixtures/session-script.mjs'

type Tools = Parameters<typeof createKernel>[0]['tools']
type Message = Parameters<ReturnType<typeof createKernel>['runTurn']>[0]
const script = { tools: sessionTools as (deps: unknown, onSlow: () => void) => Tools, turns: turns as Message[] }

describe.skipIf(postgres === undefined)('postgres: a session moves between processes', () => {
  let server: TestServer
  let url: string
  beforeAll(async () => {
    server = await startTestServer(postgres as string)
    url = await server.createDatabase('resume')
  }, 60_000)
  afterAll(() => server?.stop())

  /** The same session in one process: A's kernel is abandoned mid-call, B's takes over after its lease. */
  async function oneProcess(): Promise<unknown> {
    let now = 0
    const store = createMemoryEventStore({ now: () => now })
    let slow!: () => void
    const started = new Promise<void>((resolve) => (slow = resolve))
    const a = createKernel({
      tools: script.tools({ buildTool, z }, slow),
      store,
      session: 'one',
      lease: { ttlMs: 1000 },
    })
    await a.runTurn(script.turns[0] as Message)
    void a.runTurn(script.turns[1] as Message)
    await started
    now += 5_000
    const b = createKernel({ tools: script.tools({ buildTool, z }, () => undefined), store, session: 'one' })
    await b.runTurn(script.turns[2] as Message)
    await b.close()
    return projectMessages((await store.read('one')).map((e) => e.event))
  }

  it('A is killed mid-call; B resumes from the store, recovers the call, continues; messages as in one process', async () => {
    const child = spawn(
      process.execPath,
      [new URL('./fixtures/pg-session.mjs', import.meta.url).pathname, url, 'moving'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await new Promise<void>((resolve) =>
      createInterface({ input: child.stdout }).on('line', (line) => line === 'slow started' && resolve()),
    )
    child.kill('SIGKILL')
    await exited

    const store = createPostgresEventStore({ connection: url })
    const b = createKernel({
      tools: script.tools({ buildTool, z }, () => undefined),
      store,
      session: 'moving',
      lease: { owner: 'process-b', waitMs: 20_000 },
    })
    await b.ready()
    // What the app sends next: the cut-off turn's message, with the result recovery gave.
    expect(String(b.handOver()?.message.content[0]?.content)).toMatch(/^Slow was interrupted while running/)
    expect(b.handOver()?.recovered).toBe(true)
    const { message } = await b.runTurn(script.turns[2] as Message)
    expect(message.content.map((block) => block.content)).toEqual(['three'])
    await b.close()
    const stored = (await store.read('moving')).map((e) => e.event)
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i))
    const messages = projectMessages(stored)
    expect(String(messages[1]?.content[0]?.content)).toMatch(/^Slow was interrupted while running: the session stopped/)
    expect(messages).toEqual(await oneProcess())

    const loaded = await loadSession(`${url}#moving`, { err: () => undefined })
    expect(loaded).toEqual(stored)
    await store.close()
  }, 120_000)

  it('the server restarts (-m immediate) between turns: the next turn is retried onto it, nothing lost or doubled', async () => {
    const store = createPostgresEventStore({ connection: url })
    const kernel = createKernel({ tools: script.tools({ buildTool, z }, () => undefined), store, session: 'restart' })
    await kernel.runTurn(script.turns[0] as Message)
    server.restartImmediate()
    const { message, logError } = await kernel.runTurn(script.turns[2] as Message)
    expect(logError).toBeUndefined()
    expect(message.content.map((block) => block.content)).toEqual(['three'])
    await kernel.close()
    expect((await store.read('restart')).map((e) => e.event)).toEqual(kernel.log.read())
    await store.close()
  }, 120_000)
})
