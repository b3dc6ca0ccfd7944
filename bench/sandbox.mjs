/**
 * `node bench/sandbox.mjs` (after `npm run build`, or TOOLKERNEL_DIST=<dir>): `Bash true` through a
 * kernel whose sandbox is `workspace-write` (bubblewrap, network off) against the same call through a
 * kernel without one, in one process, interleaved rounds (issue 30: target ≤ 1.5×). A third variant,
 * `bwrap … true` spawned raw against `bash -c true` spawned raw, shows what bubblewrap itself costs
 * per command, apart from the kernel.
 *
 * BENCH_N (commands per sample, default 100), BENCH_ROUNDS (default 7). Without bubblewrap it says so
 * and reports the row as not measured.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { median, target } from './measure.mjs'

const WHAT = 'Bash true in the sandbox (workspace-write) ÷ without'
const dist = process.env.TOOLKERNEL_DIST ?? new URL('../dist', import.meta.url).pathname
const { Bash, createKernel, createMemoryLog, createProcessRunner } = await import(
  pathToFileURL(join(dist, 'index.js')).href
)

if (spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', '--unshare-net', 'true']).status !== 0) {
  console.log('bubblewrap (bwrap) is not installed or cannot make namespaces here: not measured')
  console.log(`target: ${WHAT} | not measured (no bubblewrap) | ≤ 1.5 | not measured`)
  process.exit(0)
}

const N = Number(process.env.BENCH_N ?? 100)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const cwd = mkdtempSync(join(os.tmpdir(), 'toolkernel-bench-sandbox-'))

const message = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'true' } }],
}
const kernels = {}
// The kernels start commands through their spawner process (docs/decisions/processes.md, 164);
// the `inline` ones fork them in this process, as before it.
const inline = () => ({ processes: createProcessRunner({ spawner: 'inline' }) })
const allowDomains = { mode: 'workspace-write', network: { allowDomains: ['example.com'] } }
const fresh = async () => {
  await Promise.all(Object.values(kernels).map((kernel) => kernel.close()))
  const log = () => createMemoryLog({ now: () => Date.now() })
  kernels.plain = createKernel({ tools: [Bash], cwd, log: log() })
  kernels.sandboxed = createKernel({ tools: [Bash], cwd, log: log(), sandbox: { mode: 'workspace-write' } })
  kernels.plainInline = createKernel({ tools: [Bash], cwd, log: log(), ports: inline() })
  kernels.sandboxedInline = createKernel({
    tools: [Bash],
    cwd,
    log: log(),
    sandbox: { mode: 'workspace-write' },
    ports: inline(),
  })
  kernels.allowDomains = createKernel({ tools: [Bash], cwd, log: log(), sandbox: allowDomains })
  // Each kernel's first command starts its spawner process (and the proxy): not in a sample.
  for (const which of Object.keys(kernels)) await call(which)()
}
const call = (which) => async () => {
  const { message: answer } = await kernels[which].runTurn(message)
  const block = answer.content[0]
  if (block.is_error === true) throw new Error(`Bash failed: ${JSON.stringify(block.content)}`)
}
const raw = (file, args) => () =>
  new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd })
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exit ${code}`))))
  })
const BWRAP = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', cwd, cwd]
const variants = {
  'kernel Bash true': call('plain'),
  'kernel Bash true, sandboxed': call('sandboxed'),
  'kernel Bash true, inline spawn': call('plainInline'),
  'kernel Bash true, sandboxed, inline spawn': call('sandboxedInline'),
  'kernel Bash true, sandboxed, network allowDomains': call('allowDomains'),
  'spawn bash -c true': raw('bash', ['-c', 'true']),
  'spawn bwrap … bash -c true': raw('bwrap', [
    ...BWRAP,
    '--cap-drop',
    'ALL',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-net',
    '--die-with-parent',
    '--',
    'bash',
    '-c',
    'true',
  ]),
}
const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
await fresh()
for (const run of Object.values(variants)) for (let i = 0; i < 10; i++) await run() // warm-up
const names = Object.keys(variants)
for (let r = 0; r < ROUNDS; r++) {
  await fresh()
  for (let j = 0; j < names.length; j++) {
    const name = names[(j + r) % names.length]
    const start = performance.now()
    for (let i = 0; i < N; i++) await variants[name]()
    samples[name].push(((performance.now() - start) * 1000) / N)
  }
}
await Promise.all(Object.values(kernels).map((kernel) => kernel.close()))
rmSync(cwd, { recursive: true, force: true })

console.log(
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${os.loadavg()[0].toFixed(2)};` +
    ` N = ${N} per sample, median of ${ROUNDS} interleaved rounds`,
)
console.log('| variant | wall µs per command |')
console.log('|---|---|')
for (const [name, wall] of Object.entries(samples)) console.log(`| ${name} | ${median(wall).toFixed(0)} |`)
const m = (name) => median(samples[name])
console.log(`bwrap alone: ${(m('spawn bwrap … bash -c true') / m('spawn bash -c true')).toFixed(2)}× a raw bash spawn`)
console.log(
  `sandboxed ÷ without, both inline (as before decision 164): ${(m('kernel Bash true, sandboxed, inline spawn') / m('kernel Bash true, inline spawn')).toFixed(2)}`,
)
console.log(
  `network allowDomains ÷ network off, both sandboxed (the forwarder's node start): ${(m('kernel Bash true, sandboxed, network allowDomains') / m('kernel Bash true, sandboxed')).toFixed(2)}`,
)
target(WHAT, m('kernel Bash true, sandboxed') / m('kernel Bash true'), { atMost: 1.5 })
