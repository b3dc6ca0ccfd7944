/**
 * `node bench/permissions.mjs` (after `npm run build`): what a Read deny rule costs a Bash call
 * (decision 90). With such a rule, every name the command gives is matched against the rule where
 * it resolves (a real path per name, per decision); without one, only the read-only verdict runs.
 * A kernel whose process runner answers at once, so only the kernel's share is timed: `cat` of 20
 * files in default mode, with no rule, one Read deny rule and five, as ratios against no rule.
 *
 * BENCH_N (calls per sample, default 2000), BENCH_ROUNDS (default 7).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { instantRunner, median } from './measure.mjs'

const dist = process.env.TOOLKERNEL_DIST ?? new URL('../dist', import.meta.url).pathname
const { Bash, createKernel, createMemoryLog } = await import(pathToFileURL(join(dist, 'index.js')).href)

const N = Number(process.env.BENCH_N ?? 2000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
const cwd = mkdtempSync(join(os.tmpdir(), 'toolkernel-bench-permissions-'))
const names = Array.from({ length: 20 }, (_, i) => `f${i}.txt`)
for (const name of [...names, '.env']) writeFileSync(join(cwd, name), 'x\n')

const message = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: `cat ${names.join(' ')}` } }],
}
const rules = {
  'no rule': [],
  'one Read deny rule': ['Read(./.env)'],
  'five Read deny rules': [
    'Read(./.env)',
    'Read(./secrets/**)',
    'Read(~/.ssh/**)',
    'Read(//etc/shadow)',
    'Read(*.pem)',
  ],
}
const kernelFor = (deny) =>
  createKernel({
    tools: [Bash],
    cwd,
    log: createMemoryLog({ now: () => Date.now() }),
    ports: { processes: instantRunner },
    permissions: { mode: 'default', deny },
  })
const variants = Object.fromEntries(
  Object.entries(rules).map(([name, deny]) => {
    let kernel = kernelFor(deny)
    const run = async (n) => {
      for (let i = 0; i < n; i++) {
        const { message: answer } = await kernel.runTurn(message)
        if (answer.content[0].is_error === true) throw new Error(`${name}: ${JSON.stringify(answer.content[0])}`)
      }
    }
    return [name, { run, fresh: () => (kernel = kernelFor(deny)) }]
  }),
)

const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
for (const { run } of Object.values(variants)) await run(200) // warm-up
const order = Object.keys(variants)
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < order.length; j++) {
    const name = order[(j + r) % order.length]
    variants[name].fresh()
    const start = performance.now()
    await variants[name].run(N)
    samples[name].push(((performance.now() - start) * 1000) / N)
  }
}
rmSync(cwd, { recursive: true, force: true })

const base = median(samples['no rule'])
console.log(
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${os.loadavg()[0].toFixed(2)};` +
    ` N = ${N} per sample, median of ${ROUNDS} interleaved rounds; Bash \`cat\` of ${names.length} files, default mode`,
)
console.log('| rules | µs per call | ÷ no rule |')
console.log('|---|---|---|')
for (const [name, values] of Object.entries(samples)) {
  const us = median(values)
  console.log(`| ${name} | ${us.toFixed(1)} | ${(us / base).toFixed(2)} |`)
}
