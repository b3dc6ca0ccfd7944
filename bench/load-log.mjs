/**
 * `node bench/load-log.mjs` (after `npm run build`): how fast a stored JSONL log loads. Builds a
 * log of about 100k events from the kernel itself (turns of no-op tool calls written through
 * createJsonlLog), then measures MB/s of the two loaders — reopening the JSONL store and the
 * CLI's loadLog — against a floor measured in the same run: read the file, split it into lines and
 * JSON.parse each one, with no validation. Rounds interleave so noise hits every variant alike.
 *
 * BENCH_DIST=<dir> measures another build (e.g. one compiled from an older tree), BENCH_EVENTS
 * the log size, BENCH_ROUNDS the number of rounds; BENCH_KEEP=1 keeps the generated log.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { median, target } from './measure.mjs'

const DIST = resolve(process.env.BENCH_DIST ?? new URL('../dist', import.meta.url).pathname)
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const load = (path) => import(pathToFileURL(join(DIST, path)).href)
const { buildTool, createKernel, createJsonlLog } = await load('index.js')
const { loadLog } = await load('internal.js')

const Noop = buildTool({
  name: 'Noop',
  description: () => 'Does nothing and says so.',
  inputSchema: z.object({ note: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ note }) => `done: ${note}`,
})

/** Writes turns of five no-op calls until the log holds `events` events. */
async function buildLog(path, events) {
  const clock = { now: () => Date.now() }
  const log = createJsonlLog(path, clock)
  const kernel = createKernel({ tools: [Noop], ports: { clock }, log, cwd: tmpdir() })
  for (let turn = 0; log.read().length < events; turn++) {
    const content = Array.from({ length: 5 }, (_, i) => ({
      type: 'tool_use',
      id: `toolu_${turn}_${i}`,
      name: 'Noop',
      input: { note: `turn ${turn} call ${i}: läuft — ✓ ${'x'.repeat(40)}` },
    }))
    await kernel.runTurn({ role: 'assistant', content })
  }
  const count = log.read().length
  log.close()
  return count
}

/** The floor: no validation at all. */
function parseOnly(path) {
  let n = 0
  for (const line of readFileSync(path, 'utf8').split('\n')) if (line !== '') n += JSON.parse(line) ? 1 : 0
  return n
}

const variants = {
  'JSON.parse only (floor)': (path) => parseOnly(path),
  'createJsonlLog reopen': (path) => {
    const log = createJsonlLog(path, { now: () => 0 })
    const n = log.read().length
    log.close()
    return n
  },
  'CLI loadLog': (path) => loadLog(path, { skipCorrupt: false, err: () => {} }).length,
}

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-bench-load-'))
try {
  const path = join(dir, 'session.jsonl')
  const count = await buildLog(path, EVENTS)
  const mb = statSync(path).size / 1e6
  console.log(`log: ${count} events, ${mb.toFixed(1)} MB (${DIST})`)
  const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
  for (const run of Object.values(variants)) run(path) // warm-up: JIT and zod's first parse
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(variants)) {
      const start = performance.now()
      const n = run(path)
      const seconds = (performance.now() - start) / 1000
      if (n !== count) throw new Error(`${name} read ${n} events, expected ${count}`)
      samples[name].push(mb / seconds)
    }
  }
  const floor = median(samples['JSON.parse only (floor)'])
  for (const [name, values] of Object.entries(samples)) {
    const rate = median(values)
    console.log(`${name.padEnd(26)} ${rate.toFixed(0).padStart(5)} MB/s  (${(rate / floor).toFixed(2)} × floor)`)
  }
  const loaded = median(samples['CLI loadLog'])
  target('loading a 100k-event JSONL log (parse + validate, CLI loadLog)', loaded, {
    atLeast: 150,
    unit: ' MB/s',
    digits: 0,
  })
} finally {
  if (process.env.BENCH_KEEP === undefined) rmSync(dir, { recursive: true, force: true })
  else console.log(`kept ${dir}`)
}
