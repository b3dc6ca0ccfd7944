/**
 * `node bench/startup.mjs` (after `npm run build`, or TOOLKERNEL_DIST=<dir>): start-up cost, each
 * figure a fresh process, the variants interleaved over rounds, reported above bare `node -e 0`
 * measured in the same rounds. Rows: `import('toolkernel')`, `toolkernel stats` on a small log, and
 * each dependency the library imports, alone — so a regression can be traced to a module.
 *
 * BENCH_ROUNDS (default 15), BENCH_LOG (default the abort fixture log).
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, target } from './measure.mjs'

const dist = process.env.TOOLKERNEL_DIST ?? fileURLToPath(new URL('../dist', import.meta.url))
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const log = process.env.BENCH_LOG ?? fileURLToPath(new URL('../test/fixtures/logs/abort.jsonl', import.meta.url))
const root = fileURLToPath(new URL('..', import.meta.url))

const esm = (code) => ['--input-type=module', '-e', code]
const variants = {
  'bare node': ['-e', '0'],
  "import('toolkernel')": esm(`await import(${JSON.stringify(join(dist, 'index.js'))})`),
  'toolkernel stats <small log>': [join(dist, 'cli/main.js'), 'stats', log],
}
for (const dep of ['zod', 'rxjs', 'xstate', 'immer', 'ignore', 'tinyglobby', 'web-tree-sitter', 'execa'])
  variants[`import('${dep}') alone`] = esm(`await import('${dep}')`)

const samples = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
const names = Object.keys(variants)
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < names.length; j++) {
    const name = names[(j + r) % names.length]
    const start = performance.now()
    // From the repository root, so bare specifiers resolve to its node_modules.
    const run = spawnSync(process.execPath, variants[name], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
    const ms = performance.now() - start
    if (run.status !== 0) throw new Error(`${name} failed: ${run.stderr}`)
    samples[name].push(ms)
  }
}

const bare = median(samples['bare node'])
console.log(
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${os.loadavg()[0].toFixed(2)};` +
    ` median of ${ROUNDS} interleaved rounds, a fresh process each`,
)
console.log('| what | ms | ms above bare node |')
console.log('|---|---|---|')
for (const name of names) {
  const ms = median(samples[name])
  console.log(`| ${name} | ${ms.toFixed(0)} | ${name === 'bare node' ? '—' : (ms - bare).toFixed(0)} |`)
}
const above = (name) => median(samples[name]) - bare
target("import('toolkernel') above bare node", above("import('toolkernel')"), { atMost: 60, unit: ' ms', digits: 0 })
target('toolkernel stats <small log> above bare node', above('toolkernel stats <small log>'), {
  atMost: 100,
  unit: ' ms',
  digits: 0,
})
// Every tool an app gives toolkernel is built on a zod schema, so an app has paid for zod already.
console.log(
  `import('toolkernel') above import('zod'): ${(above("import('toolkernel')") - above("import('zod') alone")).toFixed(0)} ms`,
)
