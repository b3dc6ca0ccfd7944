/**
 * `npm run soak`: many random turns with faults against one kernel and one JSONL log, checking
 * that every tool_use is answered and that memory stays flat; then the hostile cases of the
 * bounded tools (huge Bash output, Read of a range of a huge file, a catastrophic regex in the
 * built-in Grep), each measured as peak RSS above the process's baseline. Not part of npm test.
 *
 *   SOAK_TURNS=10000 node --expose-gc bench/soak.mjs
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import os, { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import {
  buildTool,
  builtinTools,
  createJsonlLog,
  createKernel,
  createMemoryLog,
  recover,
  systemClock,
} from '../dist/index.js'
import { createFileSearch } from '../dist/internal.js'

const TURNS = Number(process.env.SOAK_TURNS ?? 10_000)
const dir = mkdtempSync(join(tmpdir(), 'toolkernel-soak-'))
const gc = globalThis.gc ?? (() => {})

let seed = 42
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes text.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ text }) => text,
})
const Flaky = buildTool({
  name: 'Flaky',
  description: () => 'Fails, throws, or answers after a while.',
  inputSchema: z.object({ mode: z.enum(['ok', 'throw', 'slow', 'huge']) }),
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  async call({ mode }, { signal }) {
    if (mode === 'throw') throw new Error('flaky failed')
    if (mode === 'huge') return 'x'.repeat(300_000)
    if (mode === 'slow')
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 2)
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
      })
    return 'done'
  },
})

function randomTurn(t) {
  const calls = 1 + Math.floor(random() * 6)
  const content = []
  for (let i = 0; i < calls; i++) {
    const r = random()
    const id = `t${t}_${i}`
    if (r < 0.4) content.push({ type: 'tool_use', id, name: 'Echo', input: { text: `hi ${i}` } })
    else if (r < 0.8)
      content.push({ type: 'tool_use', id, name: 'Flaky', input: { mode: ['ok', 'throw', 'slow', 'huge'][i % 4] } })
    else if (r < 0.9) content.push({ type: 'tool_use', id, name: 'Missing', input: {} })
    else content.push({ type: 'tool_use', id, name: 'Echo', input: { text: 42 } })
  }
  if (t % 50 === 0) content.push({ type: 'tool_use', id: `t${t}_bash`, name: 'Bash', input: { command: 'echo soak' } })
  return { role: 'assistant', content, stop_reason: random() < 0.05 ? 'max_tokens' : 'tool_use' }
}

function rssMb() {
  gc()
  return process.memoryUsage().rss / 1024 / 1024
}

async function soakTurns() {
  const logPath = join(dir, 'soak.jsonl')
  const kernel = createKernel({
    tools: [Echo, Flaky, ...builtinTools],
    cwd: dir,
    log: createJsonlLog(logPath, systemClock),
    permissions: { allow: ['Bash(echo:*)'] },
  })
  const samples = []
  let unanswered = 0
  let calls = 0
  const started = Date.now()
  for (let t = 0; t < TURNS; t++) {
    const message = randomTurn(t)
    const controller = new AbortController()
    if (random() < 0.1) setImmediate(() => controller.abort('soak abort'))
    const { message: result } = await kernel.runTurn(message, { signal: controller.signal })
    calls += message.content.length
    const answered = new Set(result.content.map((b) => b.tool_use_id))
    unanswered += message.content.filter((b) => !answered.has(b.id)).length
    if (t % Math.max(1, Math.floor(TURNS / 10)) === 0) samples.push({ turn: t, rssMb: rssMb() })
  }
  samples.push({ turn: TURNS, rssMb: rssMb() })
  kernel.log.close()
  const seconds = (Date.now() - started) / 1000
  const open = recover(createJsonlLog(logPath, systemClock).read()).length
  const events = createJsonlLog(logPath, systemClock).read().length
  return { turns: TURNS, calls, unanswered, recoverWouldAppend: open, seconds, samples, events }
}

/** Peak RSS above the baseline while `work` runs, sampled every 5 ms. */
async function peakAbove(work) {
  const base = rssMb()
  let peak = base
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss / 1024 / 1024)), 5)
  try {
    const detail = await work()
    peak = Math.max(peak, process.memoryUsage().rss / 1024 / 1024)
    return { peakAboveBaselineMb: Math.round(peak - base), detail }
  } finally {
    clearInterval(timer)
  }
}

/**
 * What the kernel itself keeps, the log's own events excluded: run turns on an in-memory log,
 * then drop the kernel but keep the events, and compare the heap with the events alone.
 */
async function kernelRetention(turns) {
  const log = createMemoryLog()
  let kernel = createKernel({ tools: [Echo, Flaky], cwd: dir, log })
  for (let t = 0; t < turns; t++) await kernel.runTurn(randomTurn(t))
  gc()
  const withKernel = process.memoryUsage().heapUsed
  const events = log.read()
  kernel = undefined
  gc()
  const eventsOnly = process.memoryUsage().heapUsed
  const calls = events.filter((e) => e.type === 'tool.requested').length
  return {
    turns,
    calls,
    events: events.length,
    keptByKernelBytesPerCall: Math.round((withKernel - eventsOnly) / calls),
    heapWithKernelMb: Math.round(withKernel / 1048576),
    heapEventsOnlyMb: Math.round(eventsOnly / 1048576),
  }
}

async function hostile() {
  const kernel = createKernel({ tools: builtinTools, cwd: dir, permissions: { mode: 'bypassPermissions' } })
  const one = async (name, input) => {
    const { message } = await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'h', name, input }],
    })
    return String(message.content[0]?.content).slice(0, 160)
  }
  const big = join(dir, 'big.txt')
  const fd = openSync(big, 'w')
  const line = 'a line of text in a large file\n'.repeat(10_000)
  for (let i = 0; i < 700; i++) writeSync(fd, line) // ~217 MB
  closeSync(fd)
  const regexDir = join(dir, 'regex')
  mkdirSync(regexDir)
  writeFileSync(join(regexDir, 'catastrophic.txt'), `${'a'.repeat(40)}b\n`)
  const results = {
    bashHugeOutput: await peakAbove(() => one('Bash', { command: 'yes | head -c 500000000' })),
    readLimitOne: await peakAbove(() => one('Read', { file_path: big, offset: 3_000_000, limit: 1 })),
  }
  const builtinOnly = createKernel({
    tools: builtinTools,
    cwd: dir,
    ports: { search: createFileSearch({ ripgrep: false }) },
  })
  results.grepCatastrophic = await peakAbove(async () => {
    const { message } = await builtinOnly.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'g', name: 'Grep', input: { pattern: '(a+)+$', path: regexDir } }],
    })
    return String(message.content[0]?.content).slice(0, 160)
  })
  return results
}

function report(turns, growth, hostile, retention) {
  const mb = (n) => `${n.toFixed(1)} MB`
  const rows = turns.samples.map((s) => `| ${s.turn} | ${mb(s.rssMb)} |`).join('\n')
  const tools = Object.entries(hostile)
    .map(([name, r]) => `| ${name} | ${r.peakAboveBaselineMb} MB | ${r.detail.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`)
    .join('\n')
  return `# Soak

Generated by \`npm run soak\` (bench/soak.mjs) on ${new Date().toISOString().slice(0, 10)}:
${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, ${process.platform}.

${turns.turns} random turns (1–6 calls each: echoes, tools that throw, wait or return 300 KB,
unknown tools, invalid input, a Bash call every 50 turns, 10 % aborted, 5 % cut off by
max_tokens) against one kernel and one JSONL log, in ${turns.seconds.toFixed(0)} s.

- tool_use blocks: ${turns.calls}; without a result: **${turns.unanswered}**; events recovery would
  still append to the log: **${turns.recoverWouldAppend}**.
- RSS after GC from the first sample to the last: **${growth >= 0 ? '+' : ''}${growth} MB**. The
  stores keep every event in memory (\`read()\` returns the whole log), so this grows with the log:
  ${turns.events} events here.
- Kept by the kernel itself, the log's events excluded (${retention.turns} turns, ${retention.calls}
  calls on an in-memory log, the kernel dropped, the events kept): **${retention.keptByKernelBytesPerCall}
  bytes per call** (heap ${retention.heapWithKernelMb} MB with the kernel, ${retention.heapEventsOnlyMb} MB with its events
  alone; a figure near 0, either sign, is within the noise of two heap readings).

| turn | RSS after GC |
|---|---|
${rows}

Hostile inputs, peak RSS above the process's baseline while the call runs (target: under 100 MB):

| case | peak above baseline | result (start) |
|---|---|---|
${tools}
`
}

try {
  const turns = await soakTurns()
  const first = turns.samples[1]?.rssMb ?? turns.samples[0].rssMb
  const last = turns.samples.at(-1).rssMb
  const growth = Math.round((last - first) * 10) / 10
  console.log(JSON.stringify({ ...turns, rssGrowthMb: growth }, null, 2))
  const retention = await kernelRetention(Math.min(TURNS, 5_000))
  console.log(JSON.stringify(retention, null, 2))
  const tools = await hostile()
  console.log(JSON.stringify(tools, null, 2))
  writeFileSync(new URL('../docs/soak.md', import.meta.url), report(turns, growth, tools, retention))
  console.log('written to docs/soak.md')
  if (turns.unanswered > 0 || turns.recoverWouldAppend > 0) process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
