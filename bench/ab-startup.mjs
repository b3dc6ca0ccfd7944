/**
 * `node bench/ab-startup.mjs before=<dist> after=<dist> …`: `import()` of each build's entry in a
 * fresh process, interleaved rounds, with bare node, zod alone and zod + xstate + immer; each child
 * reports its own CPU time and performance.now() when the import is done, so the figures leave out
 * process exit and are less load-bound than wall time from outside (bench/startup.mjs).
 *
 * ROUNDS (default 11). Run from the repository (bare specifiers resolve from its node_modules).
 */
import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import os from 'node:os'
const ROUNDS = Number(process.env.ROUNDS ?? 11)
const report = `const c=process.cpuUsage();console.log(JSON.stringify({cpu:(c.user+c.system)/1000,wall:performance.now()}))`
const v = { bare: report, zod: `await import('zod');${report}`, 'zod+xstate+immer': `await import('zod');await import('xstate');await import('immer');${report}` }
for (const arg of process.argv.slice(2)) { const [n, d] = arg.split('='); v[n] = `await import(${JSON.stringify(resolve(d, 'index.js'))});${report}` }
const names = Object.keys(v); const s = Object.fromEntries(names.map((n) => [n, { cpu: [], wall: [] }]))
for (let r = 0; r < ROUNDS; r++) for (let j = 0; j < names.length; j++) {
  const n = names[(j + r) % names.length]
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', v[n]], { cwd: new URL('..', import.meta.url), encoding: 'utf8' })
  if (out.status !== 0) throw new Error(out.stderr)
  const m = JSON.parse(out.stdout.trim().split('\n').pop()); s[n].cpu.push(m.cpu); s[n].wall.push(m.wall)
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
console.log(`load ${os.loadavg()[0].toFixed(2)}, ${ROUNDS} rounds (ms, in-process: CPU and performance.now() at the end)`)
console.log('| what | CPU ms | above zod (CPU) | wall ms | above zod (wall) |\n|---|---|---|---|---|')
for (const n of names) console.log(`| ${n} | ${med(s[n].cpu).toFixed(0)} | ${(med(s[n].cpu) - med(s.zod.cpu)).toFixed(0)} | ${med(s[n].wall).toFixed(0)} | ${(med(s[n].wall) - med(s.zod.wall)).toFixed(0)} |`)
