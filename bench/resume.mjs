/**
 * `npm run bench:resume` (issue 33): how long a kernel takes to resume a session against the
 * length of its log, JSONL and PostgreSQL, reading from the last snapshot and reading the whole
 * log — the same log, written once per size with a snapshot every 50 turns. Resume is what an app
 * does before its next turn: open the log (the JSONL file / the store's stream, lease taken),
 * recover, fold the session (grants, mode, cwd, loaded tools, parked calls), list the pending calls.
 *
 * Sizes: BENCH_RESUME_SIZES (default 1000,10000,100000; add 1000000 when the machine has the
 * time). PostgreSQL: a throwaway server (scripts/postgres-server.mjs: initdb on PATH or Debian's 15),
 * or PG_URL; skipped when neither is there. Prints Markdown; `--out FILE` writes it, `--svg FILE`
 * draws the curves (hand-written SVG, no dependency), `--json FILE` keeps the rows
 * (`node bench/resume-plot.mjs rows.json out.svg` draws them again).
 */
import { copyFileSync, createReadStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { z } from 'zod'
import { buildTool, createJsonlEventStore, createJsonlLog, createKernel } from '../dist/index.js'
import { createPostgresEventStore } from '../dist/postgres/index.js'
import { median } from './measure.mjs'
import { plot } from './resume-plot.mjs'
import { startPostgres } from '../scripts/postgres-server.mjs'

const SIZES = (process.env.BENCH_RESUME_SIZES ?? '1000,10000,100000').split(',').map(Number)
const ROUNDS = Number(process.env.BENCH_RESUME_ROUNDS ?? 5)
const SNAPSHOT_EVERY = 50
const CALLS = 5
const args = process.argv.slice(2)
const argOf = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const dir = mkdtempSync(join(os.tmpdir(), 'toolkernel-bench-resume-'))

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  call: async ({ text }) => text,
})
const Ask = buildTool({
  name: 'Ask',
  description: () => 'Asks first.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => false,
  checkPermissions: () => ({ behavior: 'ask', message: 'asks a person' }),
  call: async ({ text }) => `asked ${text}`,
})
const tools = [Echo, Ask]
const message = (ids, name) => ({
  role: 'assistant',
  stop_reason: 'tool_use',
  content: ids.map((id) => ({ type: 'tool_use', id, name, input: { text: id } })),
})

/**
 * A session of about `size` events in a JSONL file: a call parked for a person (it stays
 * pending), a call answered with a grant, then turns of five calls. The writing kernel keeps one
 * turn in memory (`retainTurns`), so a million events fit.
 */
async function writeSession(path, size) {
  const log = createJsonlLog(path, undefined, { retainTurns: 1 })
  const kernel = createKernel({ tools, log, snapshotEvery: SNAPSHOT_EVERY })
  await kernel.runTurn(message(['parked'], 'Ask'))
  await kernel.runTurn(message(['granted'], 'Ask'))
  await kernel.answer('granted', { behavior: 'allow', grant: { scope: 'tool' } })
  const count = () => (log.read().at(-1)?.seq ?? -1) + 1
  for (let t = 0; count() < size; t++)
    await kernel.runTurn(
      message(
        Array.from({ length: CALLS }, (_, i) => `t${t}_${i}`),
        'Echo',
      ),
    )
  await kernel.close()
  log.close()
  return count()
}

/** Resumes the session in the JSONL file; the time from opening the file to the pending calls listed. */
async function resumeJsonl(path, fromSnapshot) {
  const start = performance.now()
  const log = createJsonlLog(path, undefined, { fromSnapshot })
  const kernel = createKernel({ tools, snapshotEvery: 0 }).resume(log)
  await kernel.ready()
  const pending = kernel.pendingApprovals()
  const ms = performance.now() - start
  if (pending.length !== 1) throw new Error(`expected the one parked call, got ${pending.length}`)
  await kernel.close()
  log.close()
  return { ms, held: log.read().length }
}

/** The store as one without `lastSnapshot`: the session is read whole. */
function wholeStore(store) {
  const methods = ['append', 'read', 'version', 'readAll', 'subscribe', 'acquire', 'renew', 'release', 'close']
  return Object.fromEntries(methods.map((m) => [m, store[m].bind(store)]))
}

async function loadIntoStore(store, stream, path) {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity })
  let batch = []
  let version = 0
  const flush = async () => {
    const result = await store.append(stream, batch, { expectedVersion: version })
    if (!result.ok) throw new Error(result.message)
    version = result.version
    batch = []
  }
  for await (const line of lines) {
    if (line === '') continue
    batch.push(JSON.parse(line))
    if (batch.length === 5000) await flush()
  }
  if (batch.length > 0) await flush()
  return version
}

/** Resumes the session from the store `open()` returns (timed from the call), closing it after with `done`. */
async function resumeStore(open, session, done = async () => {}) {
  const start = performance.now()
  const store = open()
  const kernel = createKernel({ tools, store, session, snapshotEvery: 0 })
  await kernel.ready()
  const pending = kernel.pendingApprovals()
  const ms = performance.now() - start
  if (pending.length !== 1) throw new Error(`expected the one parked call, got ${pending.length}`)
  const held = kernel.log.read().length
  await kernel.close()
  await done(store)
  return { ms, held }
}

// Loading a million events is not what is measured: no fsync (reads are the same either way).
const postgresServer = () => startPostgres({ name: 'bench-resume-pg', settings: { fsync: 'off' } })

const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms).toString())
const rows = []
const pg = await postgresServer()
const store = pg === undefined ? undefined : createPostgresEventStore({ connection: pg.url })
try {
  for (const size of SIZES) {
    const path = join(dir, `session-${size}.jsonl`)
    let t = performance.now()
    const events = await writeSession(path, size)
    const wrote = performance.now() - t
    // The JSONL event store: a directory with the session's file, opened (and closed) each time.
    const storeDir = join(dir, `store-${size}`)
    mkdirSync(storeDir)
    copyFileSync(path, join(storeDir, `s${size}.jsonl`))
    const jsonlStore = (whole) => () => (whole ? wholeStore : (s) => s)(createJsonlEventStore(storeDir))
    const closeStore = (store) => store.close()
    const variants = {
      'jsonl, whole log': () => resumeJsonl(path, false),
      'jsonl, from snapshot': () => resumeJsonl(path, true),
      'jsonl store, whole log': () => resumeStore(jsonlStore(true), `s${size}`, closeStore),
      'jsonl store, from snapshot': () => resumeStore(jsonlStore(false), `s${size}`, closeStore),
    }
    let loaded
    if (store !== undefined) {
      t = performance.now()
      await loadIntoStore(store, `s${size}`, path)
      loaded = performance.now() - t
      const whole = wholeStore(store)
      variants['postgres, whole log'] = () => resumeStore(() => whole, `s${size}`)
      variants['postgres, from snapshot'] = () => resumeStore(() => store, `s${size}`)
    }
    const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
    const held = {}
    for (const run of Object.values(variants)) await run() // warm-up
    const rounds = size >= 1_000_000 ? Math.min(ROUNDS, 3) : ROUNDS
    for (let r = 0; r < rounds; r++)
      for (const [name, run] of Object.entries(variants)) {
        const got = await run()
        samples[name].push(got.ms)
        held[name] = got.held
      }
    for (const [name, values] of Object.entries(samples))
      rows.push({ size, events, variant: name, ms: median(values), held: held[name], rounds })
    const mb = (statSync(path).size / 1e6).toFixed(1)
    console.error(
      `${events} events (${mb} MB): written in ${fmt(wrote)} ms${loaded === undefined ? '' : `, loaded into PostgreSQL in ${fmt(loaded)} ms`}`,
    )
    for (const row of rows.filter((r) => r.size === size))
      console.error(`  ${row.variant}: ${fmt(row.ms)} ms (${row.held} events in memory)`)
    rmSync(path, { force: true })
    rmSync(storeDir, { recursive: true, force: true })
  }
} finally {
  await store?.close()
  pg?.stop()
  rmSync(dir, { recursive: true, force: true })
}

const variants = [...new Set(rows.map((r) => r.variant))]
const sizes = [...new Set(rows.map((r) => r.events))]
const table = [
  `| events in the log | ${variants.join(' | ')} |`,
  `|---:|${variants.map(() => '---:').join('|')}|`,
  ...sizes.map(
    (events) =>
      `| ${events.toLocaleString('en')} | ${variants
        .map((v) => {
          const row = rows.find((r) => r.events === events && r.variant === v)
          return row === undefined ? '—' : `${fmt(row.ms)} ms (${row.held.toLocaleString('en')} held)`
        })
        .join(' | ')} |`,
  ),
]
const ratioOf = (kind) => {
  const first = rows.find((r) => r.variant === kind && r.events === sizes[0])
  const last = rows.find((r) => r.variant === kind && r.events === sizes.at(-1))
  return first && last ? (last.ms / first.ms).toFixed(1) : '—'
}
const growth = variants.map((v) => `${v}: ×${ratioOf(v)}`).join('; ')
const text = [
  `Resume time (median of ${ROUNDS} rounds, ${Math.min(ROUNDS, 3)} at 10⁶; a snapshot every ${SNAPSHOT_EVERY} turns; "held": events the resumed kernel holds).`,
  '',
  ...table,
  '',
  `Growth from ${sizes[0]?.toLocaleString('en')} to ${sizes.at(-1)?.toLocaleString('en')} events: ${growth}.`,
  '',
].join('\n')
console.log(text)
const out = argOf('--out')
if (out !== undefined) writeFileSync(out, text)
const json = argOf('--json')
if (json !== undefined) writeFileSync(json, JSON.stringify(rows, null, 2))
const svg = argOf('--svg')
if (svg !== undefined) writeFileSync(svg, plot(rows))
