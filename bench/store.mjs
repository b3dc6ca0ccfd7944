/**
 * `node bench/store.mjs` (after `npm run build`): what a store costs a turn, and raw appends per
 * second, for memory, JSONL (each fsync policy, and the per-event write it replaced) and
 * PostgreSQL (a throwaway server when initdb is on PATH, or `PG_URL`). One run, ratios against
 * the in-memory turn measured in the same run. Prints Markdown; `--out FILE` writes it there.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import {
  buildTool,
  createJsonlEventStore,
  createJsonlLog,
  createKernel,
  createMemoryEventStore,
  createMemoryLog,
} from '../dist/index.js'
import { StampingLog, toJsonLine } from '../dist/internal.js'
import { createPostgresEventStore } from '../dist/postgres/index.js'
import { median, noopTool, noopTurn } from './measure.mjs'
import { startPostgres } from '../scripts/postgres-server.mjs'

const TURNS = Number(process.env.BENCH_TURNS ?? 300)
const CALLS = 4
const dir = mkdtempSync(join(os.tmpdir(), 'toolkernel-bench-store-'))
const Noop = noopTool(buildTool, z)
const message = (t) => noopTurn(t, CALLS)

/** The JSONL log as it was: one writeSync per event. */
function perEventJsonl(path) {
  const fd = openSync(path, 'a')
  const log = new StampingLog({ now: () => Date.now() }, (event) => void writeSync(fd, toJsonLine(event)))
  const close = log.close.bind(log)
  log.close = () => (closeSync(fd), close())
  return log
}

let n = 0
const fresh = (name) => join(dir, `${name}-${++n}`)
const variants = {
  memory: () => ({ log: createMemoryLog() }),
  'jsonl per-event write (before)': () => ({ log: perEventJsonl(fresh('old.jsonl')) }),
  'jsonl fsync never': () => ({ log: createJsonlLog(fresh('never.jsonl'), undefined, { fsync: 'never' }) }),
  'jsonl fsync fences': () => ({ log: createJsonlLog(fresh('fences.jsonl'), undefined, { fsync: 'fences' }) }),
  'jsonl fsync every': () => ({ log: createJsonlLog(fresh('every.jsonl'), undefined, { fsync: 'every' }) }),
  'store: memory': () => ({ store: createMemoryEventStore(), session: `s${++n}` }),
  'store: jsonl dir, fsync fences': () => ({ store: createJsonlEventStore(fresh('dir')), session: `s${++n}` }),
}

/** Median turn latency in µs over `turns` turns, after a warm-up. */
async function turnLatency(options, turns) {
  const kernel = createKernel({ tools: [Noop], ...options })
  await kernel.ready()
  for (let t = 0; t < 50; t++) await kernel.runTurn(message(`w${t}`))
  const samples = []
  for (let t = 0; t < turns; t++) {
    const start = performance.now()
    await kernel.runTurn(message(t))
    samples.push((performance.now() - start) * 1000)
  }
  await kernel.close()
  kernel.log.close()
  return median(samples)
}

/** Sequential appends of `batch` events per second. */
async function appendsPerSecond(store, batch, count) {
  const stream = `bench-${++n}`
  const events = Array.from({ length: batch }, (_, i) => ({
    v: 1,
    seq: i,
    at: 0,
    type: 'turn.completed',
    turnId: 't',
    results: 0,
  }))
  const start = performance.now()
  for (let i = 0; i < count; i++) {
    const r = await store.append(stream, events, { expectedVersion: i * batch })
    if (!r.ok) throw new Error(r.message)
  }
  return Math.round(((count * batch) / (performance.now() - start)) * 1000)
}

// Durable commits (fsync on): the figure is what a real deployment pays, on this disk.
const postgresServer = () => startPostgres({ name: 'bench-pg' })

const rows = []
const pg = await postgresServer()
if (pg !== undefined)
  variants['store: postgres'] = () => ({ store: createPostgresEventStore({ connection: pg.url }), session: `s${++n}` })
try {
  const latency = {}
  // Interleaved rounds: the machine's noise hits every variant alike.
  for (let round = 0; round < 3; round++) {
    for (const [name, make] of Object.entries(variants)) {
      const options = make()
      ;(latency[name] ??= []).push(await turnLatency(options, TURNS))
      if (options.store !== undefined) await options.store.close()
    }
  }
  const base = median(latency.memory)
  for (const [name, samples] of Object.entries(latency)) rows.push([name, median(samples), median(samples) / base])
  const appends = []
  const stores = {
    memory: () => createMemoryEventStore(),
    'jsonl dir, fsync never': () => createJsonlEventStore(fresh('a'), { fsync: 'never' }),
    'jsonl dir, fsync every': () => createJsonlEventStore(fresh('b'), { fsync: 'every' }),
    ...(pg === undefined ? {} : { postgres: () => createPostgresEventStore({ connection: pg.url }) }),
  }
  for (const [name, make] of Object.entries(stores)) {
    const store = make()
    await appendsPerSecond(store, 1, 20)
    appends.push([name, await appendsPerSecond(store, 1, 500), await appendsPerSecond(store, 50, 100)])
    await store.close()
  }
  const md = [
    `## Stores (\`node bench/store.mjs\`, ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString()})`,
    '',
    `Turn latency: median of ${TURNS} turns of ${CALLS} parallel no-op calls, 3 interleaved rounds.`,
    '',
    '| log / store | turn µs | × memory |',
    '|---|---:|---:|',
    ...rows.map(([name, us, ratio]) => `| ${name} | ${us.toFixed(0)} | ${ratio.toFixed(2)} |`),
    '',
    'Raw appends (sequential, awaited): events per second.',
    '',
    '| store | 1 event / append | 50 events / append |',
    '|---|---:|---:|',
    ...appends.map(([name, one, fifty]) => `| ${name} | ${one} | ${fifty} |`),
    '',
  ].join('\n')
  const out = process.argv.indexOf('--out')
  if (out !== -1) writeFileSync(process.argv[out + 1], md)
  console.log(md)
} finally {
  pg?.stop()
  rmSync(dir, { recursive: true, force: true })
}
