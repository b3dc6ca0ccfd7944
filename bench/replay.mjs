/**
 * `npm run bench:replay`: what re-executing a log costs against running
 * it. A kernel runs TURNS batch turns of CALLS concurrency-safe calls (Noop), timed; the log it
 * wrote is then replayed, timed, several rounds interleaved. Prints the median of each, per event,
 * and the ratio replay ÷ live measured in the same run. `--dist DIR` measures another build.
 */
import { z } from 'zod'
import { median, noopTool, noopTurn } from './measure.mjs'

const dist = process.argv.includes('--dist') ? process.argv[process.argv.indexOf('--dist') + 1] : '../dist'
const { buildTool, createKernel, replay } = await import(`${dist}/index.js`)
const TURNS = Number(process.env.BENCH_TURNS ?? 200)
const CALLS = Number(process.env.BENCH_CALLS ?? 4)
const ROUNDS = 7
const Noop = noopTool(buildTool, z)
const message = (t) => noopTurn(t, CALLS)

async function live() {
  const kernel = createKernel({ tools: [Noop] })
  await kernel.ready()
  const start = performance.now()
  for (let t = 0; t < TURNS; t++) await kernel.runTurn(message(t))
  const ms = performance.now() - start
  await kernel.close()
  return { ms, events: kernel.log.read() }
}

const { events } = await live()
const again = async () => {
  const start = performance.now()
  const result = await replay(events, { tools: [Noop] })
  if (!result.ok) throw new Error(result.divergence.message)
  return performance.now() - start
}
await again()
const liveMs = []
const replayMs = []
for (let r = 0; r < ROUNDS; r++) {
  liveMs.push((await live()).ms)
  replayMs.push(await again())
}
const perEvent = (ms) => ((ms * 1000) / events.length).toFixed(1)
console.log(`${events.length} events (${TURNS} turns of ${CALLS} calls), median of ${ROUNDS} rounds`)
console.log(`live: ${median(liveMs).toFixed(1)} ms (${perEvent(median(liveMs))} µs/event)`)
console.log(`replay: ${median(replayMs).toFixed(1)} ms (${perEvent(median(replayMs))} µs/event)`)
console.log(`replay ÷ live: ${(median(replayMs) / median(liveMs)).toFixed(2)}`)
