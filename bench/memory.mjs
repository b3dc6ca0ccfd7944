/**
 * `node --expose-gc bench/memory.mjs` (after `npm run build`, or TOOLKERNEL_DIST=<dir>): the heap a
 * kernel keeps per finished call. 10⁵ no-op calls (turns of K = 10) through one kernel; after
 * every tenth of them a full GC and `heapUsed`; the slope of heap over calls (least squares) is what
 * each finished call leaves behind, and the checkpoints show whether it stays flat.
 *
 * Three logs: one that keeps nothing of finished turns (it stamps and publishes each event and
 * holds only the turn in progress), so the figure is the kernel's own retention; the default
 * in-memory log, whose slope is the log's growth — what a long session on the default log costs;
 * and the default log with `retainTurns`, which must be as flat as the first.
 *
 * BENCH_CALLS (default 100 000), BENCH_RETAIN_TURNS (default 100), BENCH_WINDOW_TURNS (default 1000: the
 * last line, the heap the window holds per retained turn).
 */
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Subject } from 'rxjs'
import { z } from 'zod'
import { target } from './measure.mjs'

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
const dist = process.env.TOOLKERNEL_DIST ?? new URL('../dist', import.meta.url).pathname
const { buildTool, createKernel, createMemoryLog } = await import(pathToFileURL(join(dist, 'index.js')).href)

const CALLS = Number(process.env.BENCH_CALLS ?? 100_000)
const K = 10
const CHECKPOINTS = 10

const RETAIN = Number(process.env.BENCH_RETAIN_TURNS ?? 100)

/**
 * An event log that keeps nothing of finished turns: it stamps and publishes each event and holds
 * only the turn in progress, which the turn reads back for its result (by seq: `read()` is the
 * retained suffix, whose first seq need not be 0).
 */
function forgetfulLog() {
  const subject = new Subject()
  let seq = 0
  let events = []
  return {
    append(input) {
      const event = { v: 1, seq: seq++, at: Date.now(), ...input }
      if (event.type === 'turn.started') events = []
      events.push(event)
      subject.next(event)
      return event
    },
    read: () => events,
    events$: subject.asObservable(),
    close: () => subject.complete(),
  }
}

const Noop = buildTool({
  name: 'Noop',
  description: () => 'Does nothing.',
  inputSchema: z.strictObject({}),
  isConcurrencySafe: () => true,
  call: async () => 'ok',
})
const message = {
  role: 'assistant',
  content: Array.from({ length: K }, (_, i) => ({ type: 'tool_use', id: `toolu_${i}`, name: 'Noop', input: {} })),
}

function heap() {
  globalThis.gc()
  globalThis.gc()
  return process.memoryUsage().heapUsed
}

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length
  const mx = points.reduce((s, p) => s + p.x, 0) / n
  const my = points.reduce((s, p) => s + p.y, 0) / n
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0)
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0)
  return num / den
}

async function measure(name, log) {
  const kernel = createKernel({ tools: [Noop], log })
  for (let i = 0; i < 100; i++) await kernel.runTurn(message) // warm-up: JIT, first parses, lazy state
  const points = [{ x: 0, y: heap() }]
  const per = CALLS / CHECKPOINTS
  for (let c = 1; c <= CHECKPOINTS; c++) {
    for (let i = 0; i < per; i += K) {
      const { message: result } = await kernel.runTurn(message)
      if (result.content.length !== K) throw new Error(`${name}: ${result.content.length} results of ${K}`)
    }
    points.push({ x: c * per, y: heap() })
  }
  const perCall = slope(points)
  const steps = points.slice(1).map((p, i) => ((p.y - (points[i]?.y ?? 0)) / per).toFixed(0))
  return { name, perCall, steps, total: points.at(-1).y - points[0].y }
}

const rows = [
  await measure('log that keeps nothing', forgetfulLog()),
  await measure('default memory log', createMemoryLog()),
  await measure(`default memory log, retainTurns ${RETAIN}`, createMemoryLog(undefined, { retainTurns: RETAIN })),
]
console.log(`${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${CALLS} calls, K = ${K}`)
console.log('| log | retained B per finished call (slope) | heap growth, whole run | B per call, each tenth |')
console.log('|---|---|---|---|')
for (const r of rows)
  console.log(`| ${r.name} | ${r.perCall.toFixed(0)} | ${(r.total / 1e6).toFixed(1)} MB | ${r.steps.join(' ')} |`)
// Flat: the worst tenth of the run, not only the slope over all of it, stays under the bound.
const kernelOnly = rows[0]
target(
  'heap the kernel keeps per finished call (log that keeps nothing), worst tenth',
  Math.max(kernelOnly.perCall, ...kernelOnly.steps.map(Number)),
  { atMost: 300, unit: ' B', digits: 0 },
)
target(`heap per finished call, default memory log with retainTurns ${RETAIN}`, rows[2].perCall, {
  atMost: 300,
  unit: ' B',
  digits: 0,
})

/**
 * What the window itself holds: the heap of a kernel whose log keeps WINDOW turns, filled twice
 * over, less that of one that keeps a single turn; per retained turn and per event it keeps.
 */
async function windowCost(turns) {
  const held = async (retainTurns) => {
    const log = createMemoryLog(undefined, { retainTurns })
    const kernel = createKernel({ tools: [Noop], log })
    for (let i = 0; i < 2 * turns; i++) await kernel.runTurn(message)
    return { heap: heap(), events: log.read().length, kernel }
  }
  const one = await held(1)
  const full = await held(turns)
  const bytes = full.heap - one.heap
  const events = full.events - one.events
  return { perTurn: bytes / (turns - 1), eventsPerTurn: events / (turns - 1), perEvent: bytes / events }
}
const WINDOW = Number(process.env.BENCH_WINDOW_TURNS ?? 1000)
const w = await windowCost(WINDOW)
console.log(
  `window (retainTurns ${WINDOW}, K = ${K}): ${w.perTurn.toFixed(0)} B per retained turn, ` +
    `${w.eventsPerTurn.toFixed(1)} events per turn, ${w.perEvent.toFixed(0)} B per event`,
)
