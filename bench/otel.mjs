/**
 * Telemetry overhead: the cost of a kernel turn with `toolkernel/otel` attached, with no
 * OpenTelemetry provider registered and with one (SDK 2.x: tracer with a batch processor and a
 * discarding exporter, meter with a reader), as ratios against the same kernel uninstrumented,
 * measured in the same run (interleaved rounds). Runs the compiled build under plain Node.
 *
 *   npm run build && node bench/otel.mjs            (or TOOLKERNEL_DIST=/path/to/dist)
 */
import os from 'node:os'
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { z } from 'zod'
import { compare } from './measure.mjs'

const dist = process.env.TOOLKERNEL_DIST ?? new URL('../dist', import.meta.url).pathname
const { buildTool, createKernel, createMemoryLog } = await import(`${dist}/index.js`)
const { instrumentKernel, telemetryIdGenerator } = await import(`${dist}/otel/index.js`)

const N = Number(process.env.BENCH_N ?? 300)
const CALLS = 10
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11)
const discard = { export: (_items, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} }

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes its text.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ text }) => text,
})
const message = {
  role: 'assistant',
  stop_reason: 'tool_use',
  content: Array.from({ length: CALLS }, (_, i) => ({
    type: 'tool_use',
    id: `t${i}`,
    name: 'Echo',
    input: { text: 'x' },
  })),
}

/** A fresh kernel over a fresh memory log every 100 turns, so the log does not grow without bound. */
function variant(attach) {
  let kernel
  let detach = () => {}
  const fresh = () => {
    detach()
    kernel = createKernel({ tools: [Echo], log: createMemoryLog(), cwd: process.cwd() })
    detach = attach(kernel)
  }
  return async (n) => {
    for (let i = 0; i < n; i++) {
      if (i % 100 === 0) fresh()
      await kernel.runTurn(message)
    }
  }
}

const tracerProvider = new BasicTracerProvider({
  idGenerator: telemetryIdGenerator(),
  spanProcessors: [new BatchSpanProcessor(discard)],
})
const meterProvider = new MeterProvider({
  readers: [
    new PeriodicExportingMetricReader({
      exporter: { ...discard, selectAggregationTemporality: () => 1 },
      exportIntervalMillis: 60_000,
    }),
  ],
})
const tracer = tracerProvider.getTracer('toolkernel')
const meter = meterProvider.getMeter('toolkernel')

const result = await compare(
  {
    bare: variant(() => () => {}),
    // The same as bare again: how far apart two identical variants land is this run's noise.
    bareAgain: variant(() => () => {}),
    noProvider: variant((kernel) => {
      const t = instrumentKernel(kernel)
      return () => t.stop()
    }),
    provider: variant((kernel) => {
      const t = instrumentKernel(kernel, { tracer, meter })
      return () => t.stop()
    }),
  },
  { n: N, rounds: ROUNDS, warmup: 100 },
)
await tracerProvider.shutdown()
await meterProvider.shutdown()

const perCall = (us) => (us / CALLS).toFixed(1)
const lines = [
  `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}; ${N} turns of ${CALLS} parallel no-op calls per round, ${ROUNDS} interleaved rounds, medians.`,
  '',
  '| variant | µs per turn | µs per call | ratio to bare |',
  '|---|---|---|---|',
  ...Object.entries(result).map(
    ([name, us]) => `| ${name} | ${us.toFixed(0)} | ${perCall(us)} | ${(us / result.bare).toFixed(3)} |`,
  ),
]
console.log(lines.join('\n'))
