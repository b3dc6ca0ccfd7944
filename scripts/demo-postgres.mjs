#!/usr/bin/env node
/**
 * `npm run demo:postgres`: two processes hand a session over on PostgreSQL. It starts a
 * throwaway server (initdb on PATH, or Debian's /usr/lib/postgresql/15/bin; as root, as the
 * `postgres` user) on 127.0.0.1 in a temp directory, then:
 *
 *   1. worker A opens session `demo`, runs a turn, starts a slow tool, and is killed (SIGKILL);
 *   2. worker B opens the same session once A's lease expires, recovers the call A left open,
 *      and runs the next turn;
 *
 * and prints the session's messages as read back from the store. Everything is removed at the end.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { z } from 'zod'
import { buildTool, createKernel, projectMessages } from '../dist/index.js'
import { createPostgresEventStore } from '../dist/postgres/index.js'
import { startPostgres } from './postgres-server.mjs'

const use = (id, name, input) => ({ type: 'tool_use', id, name, input })
const turns = [
  [use('ls1', 'Echo', { text: 'listed 3 files' }), use('rd1', 'Echo', { text: 'read README.md' })],
  [use('build1', 'Build', {})],
  [use('ls2', 'Echo', { text: 'listed 3 files again, on another process' })],
]
const tools = (onBuild) => [
  buildTool({
    name: 'Echo',
    description: () => 'Echoes its text.',
    inputSchema: z.object({ text: z.string() }),
    isConcurrencySafe: () => true,
    call: async ({ text }) => text,
  }),
  buildTool({
    name: 'Build',
    description: () => 'A long build.',
    inputSchema: z.object({}),
    call: () => (onBuild(), new Promise(() => {})),
  }),
]
const message = (content) => ({ role: 'assistant', stop_reason: 'tool_use', content })

async function worker(url, name) {
  const store = createPostgresEventStore({ connection: url })
  const say = (line) => process.stdout.write(`  [${name} pid ${process.pid}] ${line}\n`)
  const kernel = createKernel({
    tools: tools(() => say('Build started… (this process is about to be killed)')),
    store,
    session: 'demo',
    lease: { owner: `worker-${name}`, ttlMs: 2000, waitMs: 30_000 },
  })
  await kernel.ready()
  const version = kernel.log.read().length
  say(`holds the lease on session "demo"; the stream is at version ${version}`)
  for (const turn of name === 'A' ? turns.slice(0, 2) : turns.slice(2)) {
    const { message: result } = await kernel.runTurn(message(turn))
    for (const block of result.content) say(`${block.tool_use_id}: ${String(block.content).slice(0, 90)}`)
  }
  await kernel.close()
  await store.close()
  say('released the lease')
}

async function startServer() {
  const server = await startPostgres({ name: 'demo-pg' })
  if (server !== undefined) return server
  console.error("demo:postgres needs PostgreSQL's server programs (initdb, pg_ctl): apt-get install postgresql-15")
  process.exit(1)
}

/** Runs a worker in its own process; resolves on a line matching `until` (then kills it) or on exit. */
function spawnWorker(url, name, until) {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--worker', url, name], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      console.log(line)
      if (until !== undefined && line.includes(until)) child.kill('SIGKILL')
    })
    child.once('exit', (code, signal) => resolve(signal ?? code))
  })
}

if (process.argv[2] === '--worker') {
  await worker(process.argv[3], process.argv[4])
} else {
  console.log('starting a throwaway PostgreSQL server on 127.0.0.1…')
  const server = await startServer()
  try {
    console.log(`\nworker A (a process of its own) runs session "demo" on ${server.url}:`)
    const a = await spawnWorker(server.url, 'A', 'Build started')
    console.log(`worker A ended by ${a}, its Build call still open.\n`)
    console.log("worker B (another process) takes the session over once A's lease (2 s) expires:")
    await spawnWorker(server.url, 'B')
    const store = createPostgresEventStore({ connection: server.url })
    const events = (await store.read('demo')).map((e) => e.event)
    await store.close()
    console.log(
      `\nthe session as the store holds it (${events.length} events; \`toolkernel replay ${server.url}#demo\` reads the same):`,
    )
    for (const [i, m] of projectMessages(events).entries())
      for (const block of m.content)
        console.log(`  turn ${i + 1} ${block.tool_use_id}: ${String(block.content).slice(0, 100)}`)
  } finally {
    server.stop()
  }
}
