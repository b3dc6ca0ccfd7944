/**
 * `npm run bench:scale` (builds, installs bench/scale's comparison, then `node bench/scale.mjs`):
 * toolkernel at the scale of a server of agents (issue 33, part 1), every figure a ratio or a
 * curve taken in this one run.
 *
 * 1. Sessions in one process (a child `node --expose-gc` per size, for clean heaps): 1,000 and
 *    10,000 kernels, each running turns of 1–10 calls of a 5 ms tool. Heap per idle session
 *    (after a turn) and per active session (every call of a turn in flight), and p50/p99 of the
 *    time from a turn's tool_use blocks arriving to each tool starting — against the same load on
 *    a bare `Promise.all` of the tool calls (the floor).
 * 2. PostgreSQL (a throwaway server, fsync on: durable commits): aggregate events/s and calls/s of
 *    kernels with leases (every append fenced by its epoch) running turns of 4 no-op calls, with
 *    1, 10, 100 sessions in one process and spread over 4 processes; 100 sessions with group
 *    commit off (each append its own round trip, as before); and LangGraph's PostgreSQL
 *    checkpointer writing one checkpoint per tool step, in the same sessions × processes.
 * 3. Resume time against log length: bench/resume.mjs, run at the end (BENCH_SCALE_RESUME=0: not).
 *
 * Prints Markdown; `--out FILE` writes it there too (the resume table to FILE-resume.md); the plot
 * goes to docs/scale-calls.svg.
 * BENCH_SCALE_SECONDS (default 6) is each PostgreSQL row's window; BENCH_SCALE_SESSIONS (default
 * "1000,10000") the in-process sizes.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { z } from 'zod'
import pg from 'pg'
import { buildTool, createKernel, createMemoryEventStore } from '../dist/index.js'
import { createPostgresEventStore } from '../dist/postgres/index.js'
import { target } from './measure.mjs'
import { startPostgres } from '../scripts/postgres-server.mjs'

const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 6)
const SIZES = (process.env.BENCH_SCALE_SESSIONS ?? '1000,10000').split(',').map(Number)
const PG_SESSIONS = [1, 10, 100]
const PROCESSES = 4
const K_PG = 4
const HERE = new URL('.', import.meta.url).pathname
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]
const use = (id, name, input) => ({ type: 'tool_use', id, name, input })

// ─── 1. Sessions in one process ─────────────────────────────────────────────────────────────────

async function sessionsChild(n) {
  const heap = () => {
    globalThis.gc()
    globalThis.gc()
    return process.memoryUsage().heapUsed
  }
  /** When each session's blocks arrived (ms), and each tool's start after it. */
  const arrival = new Float64Array(n)
  let latencies = []
  let gate
  let started = 0
  const onStart = (s) => {
    latencies.push(performance.now() - arrival[s])
    started++
  }
  const Sleep = buildTool({
    name: 'Sleep',
    description: () => 'Sleeps 5 ms.',
    inputSchema: z.strictObject({ s: z.number() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async ({ s }) => {
      onStart(s)
      if (gate !== undefined) await gate.promise
      else await sleep(5)
      return 'ok'
    },
  })
  const k = (s, round) => 1 + ((s + round) % 10)
  const message = (s, round) => ({
    role: 'assistant',
    stop_reason: 'tool_use',
    content: Array.from({ length: k(s, round) }, (_, i) => use(`t${round}_${i}`, 'Sleep', { s })),
  })
  const callsIn = (round) => Array.from({ length: n }, (_, s) => k(s, round)).reduce((a, b) => a + b, 0)

  const base = heap()
  const kernels = Array.from({ length: n }, () => createKernel({ tools: [Sleep] }))
  await Promise.all(kernels.map((kernel) => kernel.ready()))
  const fresh = heap()
  await Promise.all(kernels.map((kernel, s) => kernel.runTurn(message(s, 0))))
  const idle = heap()

  // Every session mid-turn: each call of the turn started and waiting.
  let release
  gate = { promise: new Promise((resolve) => (release = resolve)) }
  started = 0
  const total = callsIn(1)
  const turns = Promise.all(kernels.map((kernel, s) => kernel.runTurn(message(s, 1))))
  while (started < total) await sleep(1)
  const active = heap()
  release()
  await turns
  gate = undefined

  // Latency: all sessions run ROUNDS turns at once; then the floor, the same calls on Promise.all.
  const ROUNDS = 3
  latencies = []
  let t0 = performance.now()
  await Promise.all(
    kernels.map(async (kernel, s) => {
      for (let r = 2; r < 2 + ROUNDS; r++) {
        arrival[s] = performance.now()
        await kernel.runTurn(message(s, r))
      }
    }),
  )
  const kernelMs = performance.now() - t0
  const kernelLat = latencies.sort((a, b) => a - b)
  latencies = []
  t0 = performance.now()
  await Promise.all(
    Array.from({ length: n }, async (_, s) => {
      for (let r = 2; r < 2 + ROUNDS; r++) {
        arrival[s] = performance.now()
        await Promise.all(message(s, r).content.map((block) => Sleep.call(block.input)))
      }
    }),
  )
  const floorMs = performance.now() - t0
  const floorLat = latencies.sort((a, b) => a - b)
  const calls = kernelLat.length
  for (const kernel of kernels) await kernel.close()
  console.log(
    JSON.stringify({
      n,
      freshKiB: (fresh - base) / n / 1024,
      idleKiB: (idle - base) / n / 1024,
      activeKiB: (active - base) / n / 1024,
      activeCalls: total,
      calls,
      p50: percentile(kernelLat, 0.5),
      p99: percentile(kernelLat, 0.99),
      floorP50: percentile(floorLat, 0.5),
      floorP99: percentile(floorLat, 0.99),
      kernelCallsPerS: (calls / kernelMs) * 1000,
      floorCallsPerS: (floorLat.length / floorMs) * 1000,
    }),
  )
}

// ─── 2. PostgreSQL ──────────────────────────────────────────────────────────────────────────────

/** Waits for the parent's "go" on stdin, so every process of a row starts its window together. */
function go() {
  console.log(JSON.stringify({ ready: true }))
  return new Promise((resolve) => createInterface({ input: process.stdin }).once('line', resolve))
}

/**
 * Kernels with leases on the PostgreSQL store (group commit 'on' or 'off'), or on the in-memory
 * store ('memory': the same kernels with no database, this process's CPU ceiling), running turns
 * of K_PG no-op calls for SECONDS after a second of warm-up.
 */
async function toolkernelChild(url, sessions, prefix, mode) {
  const store =
    mode === 'memory'
      ? createMemoryEventStore()
      : createPostgresEventStore({ connection: url, groupCommit: mode === 'on' })
  const Noop = buildTool({
    name: 'Noop',
    description: () => 'Does nothing.',
    inputSchema: z.strictObject({}),
    isConcurrencySafe: () => true,
    call: async () => 'ok',
  })
  const names = Array.from({ length: sessions }, (_, i) => `${prefix}-${i}`)
  const kernels = names.map((session) => createKernel({ tools: [Noop], store, session, lease: { ttlMs: 60_000 } }))
  await Promise.all(kernels.map((kernel) => kernel.ready()))
  let turn = 0
  let calls = 0
  const run = (until) =>
    Promise.all(
      kernels.map(async (kernel) => {
        while (performance.now() < until) {
          const t = turn++
          const content = Array.from({ length: K_PG }, (_, i) => use(`t${t}_${i}`, 'Noop', {}))
          await kernel.runTurn({ role: 'assistant', stop_reason: 'tool_use', content })
          calls += K_PG
        }
      }),
    )
  await run(performance.now() + 1000)
  calls = 0
  const before = await Promise.all(names.map((name) => store.version(name)))
  await go()
  const start = performance.now()
  await run(start + SECONDS * 1000)
  const ms = performance.now() - start
  const after = await Promise.all(names.map((name) => store.version(name)))
  for (const kernel of kernels) await kernel.close()
  await store.close()
  const events = after.reduce((sum, v, i) => sum + v - before[i], 0)
  console.log(JSON.stringify({ calls, events, ms }))
}

/**
 * The store alone, as LangGraph's row is the checkpointer alone: each session (a lease, every
 * append fenced by its epoch) appends the events the kernel writes for one call — a real turn of
 * one no-op call, taken from an in-memory kernel — once per tool step.
 */
async function storeChild(url, sessions, prefix) {
  const store = createPostgresEventStore({ connection: url })
  const Noop = buildTool({
    name: 'Noop',
    description: () => 'Does nothing.',
    inputSchema: z.strictObject({}),
    isConcurrencySafe: () => true,
    call: async () => 'ok',
  })
  const sample = createKernel({ tools: [Noop] })
  await sample.runTurn({ role: 'assistant', stop_reason: 'tool_use', content: [use('t0', 'Noop', {})] })
  const step = sample.log.read()
  await sample.close()
  const names = Array.from({ length: sessions }, (_, i) => `${prefix}-${i}`)
  const leases = await Promise.all(names.map((name) => store.acquire(name, prefix, 60_000)))
  const versions = names.map(() => 0)
  let calls = 0
  const run = (until) =>
    Promise.all(
      names.map(async (name, s) => {
        const lease = leases[s]
        if (!lease.ok) throw new Error(lease.message)
        while (performance.now() < until) {
          const events = step.map((event, i) => ({ ...event, seq: versions[s] + i }))
          const result = await store.append(name, events, { expectedVersion: versions[s], epoch: lease.lease.epoch })
          if (!result.ok) throw new Error(result.message)
          versions[s] = result.version
          calls++
        }
      }),
    )
  await run(performance.now() + 1000)
  calls = 0
  const before = [...versions]
  await go()
  const start = performance.now()
  await run(start + SECONDS * 1000)
  const ms = performance.now() - start
  await store.close()
  const events = versions.reduce((sum, v, i) => sum + v - before[i], 0)
  console.log(JSON.stringify({ calls, events, ms }))
}

/**
 * LangGraph's PostgreSQL checkpointer as a tool loop would use it: one checkpoint per tool step,
 * the thread's messages channel growing by the step's tool message (a thread is restarted every
 * 40 steps, so the blob stays the size of a short conversation). Same pool size as the store's.
 */
async function langgraphChild(url, sessions, prefix) {
  const { PostgresSaver } = await import(
    join(HERE, 'scale/node_modules/@langchain/langgraph-checkpoint-postgres/dist/index.js')
  )
  const { emptyCheckpoint, uuid6 } = await import(
    join(HERE, 'scale/node_modules/@langchain/langgraph-checkpoint/dist/index.js')
  )
  const { default: pgModule } = await import(join(HERE, 'scale/node_modules/pg/lib/index.js'))
  const pool = new pgModule.Pool({ connectionString: url, max: 10 })
  const saver = new PostgresSaver(pool)
  await saver.setup()
  let calls = 0
  let round = 0
  const run = (deadline) =>
    Promise.all(
      Array.from({ length: sessions }, async (_, s) => {
        let thread = 0
        let step = 0
        let messages = []
        let parent
        while (performance.now() < deadline) {
          if (step === 40) [thread, step, messages, parent] = [thread + 1, 0, [], undefined]
          messages = [...messages, { role: 'tool', tool_call_id: `call_${step}`, content: 'ok' }]
          const checkpoint = {
            ...emptyCheckpoint(),
            id: uuid6(-3),
            channel_values: { messages },
            channel_versions: { messages: step + 1 },
          }
          const config = {
            configurable: { thread_id: `${prefix}-${s}-${thread}`, checkpoint_ns: '', checkpoint_id: parent },
          }
          await saver.put(config, checkpoint, { source: 'loop', step, parents: {} }, { messages: step + 1 })
          parent = checkpoint.id
          step++
          calls++
        }
      }),
    )
  await run(performance.now() + 1000)
  calls = 0
  round++
  await go()
  const start = performance.now()
  await run(start + SECONDS * 1000)
  const ms = performance.now() - start
  await pool.end()
  console.log(JSON.stringify({ calls, events: calls, ms }))
}

/** Runs `processes` children of one kind over `sessions` sessions in all; their summed rates. */
async function pgRow(kind, url, sessions, processes, extra = []) {
  const split = Array.from(
    { length: processes },
    (_, p) => Math.floor(sessions / processes) + (p < sessions % processes ? 1 : 0),
  )
  const prefix = `${kind}-${sessions}-${processes}-${Date.now()}`
  const children = split
    .filter((count) => count > 0)
    .map((count, p) =>
      spawn(
        process.execPath,
        [new URL(import.meta.url).pathname, `--${kind}`, url, String(count), `${prefix}-p${p}`, ...extra],
        {
          stdio: ['pipe', 'pipe', 'inherit'],
        },
      ),
    )
  const lines = children.map((child) => {
    const queue = []
    const waiters = []
    createInterface({ input: child.stdout }).on('line', (line) => {
      const value = JSON.parse(line)
      const waiter = waiters.shift()
      if (waiter) waiter(value)
      else queue.push(value)
    })
    return () => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((resolve) => waiters.push(resolve)))
  })
  await Promise.all(lines.map((next) => next()))
  for (const child of children) child.stdin.write('go\n')
  const results = await Promise.all(lines.map((next) => next()))
  for (const child of children) child.stdin.end()
  const ms = Math.max(...results.map((r) => r.ms))
  const calls = results.reduce((sum, r) => sum + r.calls, 0)
  const events = results.reduce((sum, r) => sum + r.events, 0)
  return {
    kind,
    prefix,
    sessions,
    processes: children.length,
    callsPerS: (calls / ms) * 1000,
    eventsPerS: (events / ms) * 1000,
  }
}

/** Events per commit of a row's streams: each commit is one transaction id. */
async function eventsPerCommit(url, prefix) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query(
      `SELECT count(*)::float8 / greatest(count(DISTINCT transaction_id), 1) AS per
         FROM toolkernel_events WHERE stream LIKE $1`,
      [`${prefix}-%`],
    )
    return rows[0].per
  } finally {
    await client.end()
  }
}

/** A throwaway server with durable commits (fsync on), as bench/store.mjs starts it. */
const postgresServer = () => startPostgres({ name: 'bench-scale-pg', settings: { max_connections: 300 } })

// ─── The plot ───────────────────────────────────────────────────────────────────────────────────

/** calls/s against sessions (log x, log y), one line per series; hand-made SVG, no dependency. */
function plot(series) {
  const W = 640
  const H = 400
  const L = 70
  const R = 200
  const T = 30
  const B = 50
  const points = series.flatMap((s) => s.points)
  const xs = points.map((p) => p[0])
  const ys = points.map((p) => p[1])
  const [x0, x1] = [Math.log10(Math.min(...xs)), Math.log10(Math.max(...xs))]
  const [y0, y1] = [Math.floor(Math.log10(Math.min(...ys))), Math.ceil(Math.log10(Math.max(...ys)))]
  const px = (x) => L + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * (W - L - R)
  const py = (y) => H - B - ((Math.log10(y) - y0) / (y1 - y0 || 1)) * (H - T - B)
  const colors = ['#1f77b4', '#2ca02c', '#d62728', '#9467bd', '#ff7f0e']
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${L}" y="18" font-size="14">calls/s on PostgreSQL against sessions (issue 33)</text>`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
    `<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">sessions (log)</text>`,
    `<text x="16" y="${(T + H - B) / 2}" transform="rotate(-90 16 ${(T + H - B) / 2})" text-anchor="middle">calls/s (log)</text>`,
  ]
  for (const x of [...new Set(xs)].sort((a, b) => a - b))
    out.push(`<text x="${px(x)}" y="${H - B + 16}" text-anchor="middle">${x}</text>`)
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e)
    out.push(`<line x1="${L}" y1="${y}" x2="${W - R}" y2="${y}" stroke="#ddd"/>`)
    out.push(`<text x="${L - 6}" y="${y + 4}" text-anchor="end">${10 ** e}</text>`)
  }
  series.forEach((s, i) => {
    const color = colors[i % colors.length]
    const path = s.points.map((p) => `${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ')
    out.push(`<polyline points="${path}" fill="none" stroke="${color}" stroke-width="2"/>`)
    for (const p of s.points)
      out.push(`<circle cx="${px(p[0]).toFixed(1)}" cy="${py(p[1]).toFixed(1)}" r="3" fill="${color}"/>`)
    out.push(
      `<line x1="${W - R + 12}" y1="${T + 10 + i * 20}" x2="${W - R + 32}" y2="${T + 10 + i * 20}" stroke="${color}" stroke-width="2"/>`,
    )
    out.push(`<text x="${W - R + 38}" y="${T + 14 + i * 20}">${s.name}</text>`)
  })
  out.push('</svg>', '')
  return out.join('\n')
}

// ─── Main ───────────────────────────────────────────────────────────────────────────────────────

async function main() {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
  const machine = `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`
  const md = [
    `## Issue 33: scale (\`npm run bench:scale\`, ${new Date().toISOString()})`,
    '',
    `Machine: ${machine}; load average at the start: ${load}.`,
    '',
    '### Sessions in one process',
    '',
    'Turns of 1–10 calls of a 5 ms tool in every session at once (3 turns each); latency is from a',
    "turn's tool_use blocks arriving (`runTurn`) to each tool starting. Floor: the same calls on a bare",
    '`Promise.all`. Heap after `gc()`, per session: fresh (created and ready), idle (after a turn),',
    'active (every call of its turn started and waiting).',
    '',
    '| sessions | heap/session fresh | idle | active | p50 start | p99 start | floor p50 | floor p99 | p99 × floor | calls/s | floor calls/s |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  for (const n of SIZES) {
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=8192', new URL(import.meta.url).pathname, '--sessions', String(n)],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 1 << 24,
      },
    )
    if (child.status !== 0) {
      md.push(`| ${n} | failed (exit ${child.status}) |`)
      continue
    }
    const r = JSON.parse(child.stdout.trim().split('\n').pop())
    const ms = (v) => `${v.toFixed(2)} ms`
    const kib = (v) => `${v.toFixed(1)} KiB`
    md.push(
      `| ${n} | ${kib(r.freshKiB)} | ${kib(r.idleKiB)} | ${kib(r.activeKiB)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.floorP50)} | ${ms(r.floorP99)} | ${(r.p99 / r.floorP99).toFixed(2)} | ${Math.round(r.kernelCallsPerS)} | ${Math.round(r.floorCallsPerS)} |`,
    )
    console.error(`sessions ${n}: done`)
  }

  const server = await postgresServer()
  if (server === undefined) {
    md.push('', 'PostgreSQL: not measured (no initdb on PATH nor in /usr/lib/postgresql/15/bin, and no PG_URL).')
  } else {
    try {
      const rows = []
      for (const sessions of PG_SESSIONS) {
        rows.push(await pgRow('toolkernel', server.url, sessions, 1, ['on']))
        console.error(`postgres ${sessions} × 1: done`)
      }
      rows.push(await pgRow('toolkernel', server.url, 100, 1, ['off']))
      rows[rows.length - 1].kind = 'toolkernel, group commit off'
      for (const sessions of [1, 100]) {
        rows.push(await pgRow('toolkernel', server.url, sessions, 1, ['memory']))
        rows[rows.length - 1].kind = 'toolkernel on the memory store (no database: the CPU ceiling)'
      }
      for (const sessions of [PROCESSES, 10, 100]) {
        rows.push(await pgRow('toolkernel', server.url, sessions, PROCESSES, ['on']))
        console.error(`postgres ${sessions} × ${PROCESSES}: done`)
      }
      for (const sessions of PG_SESSIONS) {
        rows.push(await pgRow('store', server.url, sessions, 1))
        rows[rows.length - 1].kind = 'toolkernel store alone'
      }
      let langgraph = 'measured'
      if (existsSync(join(HERE, 'scale/node_modules/@langchain/langgraph-checkpoint-postgres'))) {
        for (const sessions of PG_SESSIONS) rows.push(await pgRow('langgraph', server.url, sessions, 1))
        for (const sessions of [PROCESSES, 100]) rows.push(await pgRow('langgraph', server.url, sessions, PROCESSES))
      } else langgraph = 'not installed (npm --prefix bench/scale install)'
      for (const row of rows)
        if (row.kind.startsWith('toolkernel') && !row.kind.includes('memory store'))
          row.perCommit = await eventsPerCommit(server.url, row.prefix)
      const one = rows.find((r) => r.kind === 'toolkernel' && r.sessions === 1 && r.processes === 1)
      const hundred = rows.find((r) => r.kind === 'toolkernel' && r.sessions === 100 && r.processes === 1)
      md.push(
        '',
        '### PostgreSQL: sessions × processes',
        '',
        `A throwaway server on this machine, fsync on. toolkernel: kernels with a lease each (every append carries its epoch), turns of ${K_PG} no-op calls, for ${SECONDS} s; events/s counts the events stored. Store alone: the same leases, one append per tool step of the events a real one-call turn writes (no kernel running). LangGraph (${langgraph}): \`PostgresSaver.put\` once per tool step, the thread's messages growing (a new thread every 40 steps), no graph running — compare it with the store alone. ×1 session is against the same kind's row with one session in one process.`,
        '',
        '| store | sessions | processes | calls/s | events/s | events per commit | × 1 session |',
        '|---|---:|---:|---:|---:|---:|---:|',
        ...rows.map((r) => {
          const kind = r.kind.includes('group commit off') ? 'toolkernel' : r.kind
          const base = rows.find((b) => b.kind === kind && b.sessions === 1 && b.processes === 1)
          const per = r.perCommit === undefined ? '' : r.perCommit.toFixed(1)
          return `| ${r.kind} | ${r.sessions} | ${r.processes} | ${Math.round(r.callsPerS)} | ${Math.round(r.eventsPerS)} | ${per} | ${(r.callsPerS / base.callsPerS).toFixed(1)} |`
        }),
        '',
      )
      const ceiling = rows.find((r) => r.kind.includes('memory') && r.sessions === 100)
      md.push(
        `100 sessions in one process on PostgreSQL reach ${((hundred.callsPerS / ceiling.callsPerS) * 100).toFixed(0)} % of the same kernels on the memory store (this process's CPU ceiling on this machine now); the target, 20 × one session, would be ${((20 * one.callsPerS) / ceiling.callsPerS).toFixed(1)} × that ceiling.`,
        '',
      )
      const lg100 = rows.find((r) => r.kind === 'langgraph' && r.sessions === 100 && r.processes === 1)
      const alone100 = rows.find((r) => r.kind === 'toolkernel store alone' && r.sessions === 100)
      if (lg100)
        md.push(
          `At 100 sessions in one process: toolkernel's store alone / LangGraph's checkpointer alone, calls/s: ${(alone100.callsPerS / lg100.callsPerS).toFixed(2)}×; the whole kernel / the checkpointer alone: ${(hundred.callsPerS / lg100.callsPerS).toFixed(2)}×.`,
          '',
        )
      const series = (name, pick) => ({ name, points: rows.filter(pick).map((r) => [r.sessions, r.callsPerS]) })
      const lines = [
        series('toolkernel, 1 process', (r) => r.kind === 'toolkernel' && r.processes === 1),
        series(`toolkernel, ${PROCESSES} processes`, (r) => r.kind === 'toolkernel' && r.processes === PROCESSES),
        series('toolkernel store alone', (r) => r.kind === 'toolkernel store alone'),
        series('LangGraph, 1 process', (r) => r.kind === 'langgraph' && r.processes === 1),
        series(`LangGraph, ${PROCESSES} processes`, (r) => r.kind === 'langgraph' && r.processes === PROCESSES),
      ].filter((s) => s.points.length > 0)
      writeFileSync(new URL('../docs/scale-calls.svg', import.meta.url), plot(lines))
      md.push('![calls/s against sessions](scale-calls.svg)', '')
      target('calls/s with 100 sessions / 1 session (PostgreSQL, one process)', hundred.callsPerS / one.callsPerS, {
        atLeast: 20,
        unit: '×',
        digits: 1,
      })
    } finally {
      server.stop()
    }
  }
  md.push(
    `Load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}.`,
    '',
  )
  console.log(md.join('\n'))
  const out = process.argv.indexOf('--out')
  if (out !== -1) writeFileSync(process.argv[out + 1], md.join('\n'))
  // Resume time against log length, issue 33's third row, in the same run (BENCH_SCALE_RESUME=0
  // leaves it out; `npm run bench:resume` runs it alone): its own table, written beside --out.
  if (process.env.BENCH_SCALE_RESUME !== '0') {
    console.log('\n### Resume time against log length (bench/resume.mjs)\n')
    const resumeOut = out === -1 ? [] : ['--out', process.argv[out + 1].replace(/(\.md)?$/, '-resume.md')]
    const resume = spawnSync(process.execPath, [new URL('resume.mjs', import.meta.url).pathname, ...resumeOut], {
      stdio: 'inherit',
    })
    if (resume.status !== 0) process.exitCode = 1
  }
}

const [mode, ...args] = process.argv.slice(2)
if (mode === '--sessions') await sessionsChild(Number(args[0]))
else if (mode === '--toolkernel') await toolkernelChild(args[0], Number(args[1]), args[2], args[3])
else if (mode === '--store') await storeChild(args[0], Number(args[1]), args[2])
else if (mode === '--langgraph') await langgraphChild(args[0], Number(args[1]), args[2])
else await main()
