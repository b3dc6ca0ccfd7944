/**
 * `node bench/bash.mjs` (after `npm run build`, or TOOLKERNEL_DIST=<dir>): `Bash true` through the
 * kernel against a raw `spawn('bash', ['-c', 'true'])` awaited to its 'close', in one process,
 * interleaved rounds. Between them, the process runner alone (the adapter the Bash tool calls), so
 * the gap splits into the spawner's share and the kernel's.
 *
 * Besides wall time, CPU time per command: this process's (process.cpuUsage) and its children's
 * (cutime + cstime from /proc/self/stat, 10 ms ticks, plus the spawner processes' own and their children's), which load on a shared machine distorts far
 * less than wall time. A fourth variant runs the kernel with a process runner that answers at once:
 * the kernel's own share of a Bash call, without any process. A fifth runs a raw spawn and then that
 * kernel call: what it costs above the raw spawn and the instant kernel on their own is what the
 * kernel's path pays for running right after a fork of this process (caches and TLB are cold, and
 * every page it writes first takes a copy-on-write fault), not anything the runner does.
 *
 * The default runner starts commands through its spawner process (docs/decisions/processes.md,
 * 164); two more rows run the runner and the kernel with `spawner: 'inline'`, forking here as before.
 *
 * BENCH_N (commands per sample, default 200), BENCH_ROUNDS (default 7).
 */
import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { instantRunner, median, target } from './measure.mjs'

const dist = process.env.TOOLKERNEL_DIST ?? new URL('../dist', import.meta.url).pathname
const load = (path) => import(pathToFileURL(join(dist, path)).href)
const { Bash, createKernel, createMemoryLog } = await load('index.js')
const { createProcessRunner } = await load('index.js')

const N = Number(process.env.BENCH_N ?? 200)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const cwd = os.tmpdir()

/** The floor: what node itself costs to start bash and see it end (all three stdio piped). */
function raw() {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { cwd })
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))))
  })
}

// The default runner starts commands through its spawner process; 'inline' forks them here
// (docs/decisions/processes.md, 164).
const runner = createProcessRunner()
const inlineRunner = createProcessRunner({ spawner: 'inline' })
const controller = new AbortController()
const adapterOf = (which) => async () => {
  const result = await which.run('true', { cwd, timeoutMs: 10_000, signal: controller.signal })
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}`)
}

/** The kernel's share alone: a runner that answers at once, as `true` would. */
const instant = instantRunner
let instantKernel
async function kernelOnly() {
  const { message: answer } = await instantKernel.runTurn(message)
  if (answer.content[0].is_error === true) throw new Error('instant Bash failed')
}

const message = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'true' } }],
}
let kernel
let inlineKernel
const helperStarts = []
const kernelCallOf = (which) => async () => {
  const { message: answer } = await which().runTurn(message)
  const block = answer.content[0]
  if (block.is_error === true) throw new Error(`Bash failed: ${JSON.stringify(block.content)}`)
}

const variants = {
  'spawn bash -c true': raw,
  'process runner': adapterOf(runner),
  'kernel Bash true': kernelCallOf(() => kernel),
  'process runner, inline spawn': adapterOf(inlineRunner),
  'kernel Bash true, inline spawn': kernelCallOf(() => inlineKernel),
  'kernel, runner answers at once': kernelOnly,
  'spawn, then kernel with runner answering at once': async () => {
    await raw()
    await kernelOnly()
  },
}
const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, { wall: [], self: [], children: [] }]))
/** Children's CPU time so far in µs (cutime + cstime, fields 16 and 17 of /proc/self/stat). */
const statFields = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
/**
 * Plus the live spawner processes' own time and their children's (the commands they forked), which
 * this process's cutime does not see until they exit (docs/decisions/processes.md, 164).
 */
const childCpu = () => {
  const fields = statFields('self')
  let ticks = Number(fields[13]) + Number(fields[14])
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const f = statFields(entry)
      if (
        Number(f[1]) !== process.pid ||
        !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('toolkernel-spawner')
      )
        continue
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
    } catch {
      // gone meanwhile
    }
  }
  return ticks * 10_000
}
const sample = async (run, into) => {
  const cpu = process.cpuUsage()
  const children = childCpu()
  const start = performance.now()
  for (let i = 0; i < N; i++) await run()
  into.wall.push(((performance.now() - start) * 1000) / N)
  const used = process.cpuUsage(cpu)
  into.self.push((used.user + used.system) / N)
  into.children.push((childCpu() - children) / N)
}
const fresh = async () => {
  await kernel?.close()
  const log = () => createMemoryLog({ now: () => Date.now() })
  kernel = createKernel({ tools: [Bash], cwd, log: log() })
  inlineKernel = createKernel({ tools: [Bash], cwd, log: log(), ports: { processes: inlineRunner } })
  // A new kernel starts its spawner process on its first command: once here, not in a sample
  // (the start is counted apart below).
  const start = performance.now()
  await kernelCallOf(() => kernel)()
  helperStarts.push(performance.now() - start)
  instantKernel = createKernel({ tools: [Bash], cwd, log: log(), ports: { processes: instant } })
}
await fresh()
for (const run of Object.values(variants)) for (let i = 0; i < 20; i++) await run() // warm-up
const names = Object.keys(variants)
for (let r = 0; r < ROUNDS; r++) {
  await fresh()
  for (let j = 0; j < names.length; j++) {
    const name = names[(j + r) % names.length]
    await sample(variants[name], samples[name])
  }
}

const base = median(samples['spawn bash -c true'].wall)
console.log(
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${os.loadavg()[0].toFixed(2)};` +
    ` N = ${N} per sample, median of ${ROUNDS} interleaved rounds`,
)
console.log('| variant | wall µs per command | ÷ raw spawn | CPU µs here | CPU µs in children |')
console.log('|---|---|---|---|---|')
for (const [name, { wall, self, children }] of Object.entries(samples)) {
  const us = median(wall)
  const cells = [us.toFixed(0), (us / base).toFixed(3), median(self).toFixed(0), median(children).toFixed(0)]
  console.log(`| ${name} | ${cells.join(' | ')} |`)
}
console.log(
  `kernel Bash true ÷ raw spawn, inline spawn (as before decision 164): ${(median(samples['kernel Bash true, inline spawn'].wall) / base).toFixed(3)}`,
)
console.log(
  `first Bash call of a fresh kernel (includes starting its spawner process): ${median(helperStarts).toFixed(1)} ms`,
)
// The helper is unreferenced when idle: the bench ends without this; closing is what an app does.
await kernel.close()
await runner.close()
target('Bash true through the kernel ÷ raw spawn (wall)', median(samples['kernel Bash true'].wall) / base, {
  atMost: 1.05,
  digits: 3,
})
