/**
 * `node bench/ab-calls.mjs before=<dist> after=<dist> …`: the kernel's no-op call through several
 * builds in one process, interleaved rounds, CPU time (process.cpuUsage) as well as wall time, each
 * against a minimal XState actor measured in the same rounds — for a pass that must show its
 * before ÷ after on a shared machine (docs/benchmarks.md, Issue 33). Keep a copy of dist/ before a
 * change (cp -r dist /some/where) and pass both. XState is shared by the builds (it is external),
 * so with more than two builds its call sites see every build's actions: compare two at a time.
 *
 * K (calls per turn, a comma list; default 10), N (calls per sample; 10 000), ROUNDS (7).
 */
import { z } from 'zod'
import { createActor, setup } from 'xstate'
import { resolve } from 'node:path'
import os from 'node:os'
const K = (process.env.K ?? '10').split(',').map(Number)
const N = Number(process.env.N ?? 10000)
const ROUNDS = Number(process.env.ROUNDS ?? 7)
const noop = async () => 'ok'
const variants = {}
const minimal = setup({}).createMachine({ initial: 'a', states: { a: { always: 'b' }, b: { type: 'final' } } })
variants.actor = async (n) => { for (let i = 0; i < n; i++) await new Promise((r) => { const a = createActor(minimal); a.subscribe({ complete: r }); a.start() }) }
for (const arg of process.argv.slice(2)) {
  const [name, dir] = arg.split('=')
  const { buildTool, createKernel, createMemoryLog } = await import(resolve(dir, 'index.js'))
  const Noop = buildTool({ name: 'Noop', description: () => 'Does nothing.', inputSchema: z.strictObject({}), isConcurrencySafe: () => true, call: noop })
  let counter = 0
  const ids = { next: (p) => `${p}_${++counter}` }
  for (const k of K) {
    const message = { role: 'assistant', content: Array.from({ length: k }, (_, i) => ({ type: 'tool_use', id: `t${i}`, name: 'Noop', input: {} })) }
    variants[`${name} K=${k}`] = async (n) => {
      const kernel = createKernel({ tools: [Noop], ports: { ids }, log: createMemoryLog({ now: () => Date.now() }) })
      for (let i = 0; i < n; i += k) await kernel.runTurn(message)
    }
  }
}
const cpu = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
const wall = Object.fromEntries(Object.keys(variants).map((k) => [k, []]))
for (const run of Object.values(variants)) await run(2000)
const names = Object.keys(variants)
for (let r = 0; r < ROUNDS; r++) {
  for (let j = 0; j < names.length; j++) {
    const name = names[(j + r) % names.length]
    const c0 = process.cpuUsage(); const t0 = performance.now()
    await variants[name](N)
    const c = process.cpuUsage(c0)
    cpu[name].push((c.user + c.system) / N); wall[name].push((performance.now() - t0) * 1000 / N)
  }
}
const med = (v) => [...v].sort((a, b) => a - b)[v.length >> 1]
const a = med(cpu.actor), aw = med(wall.actor)
console.log(`load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; N=${N}, ${ROUNDS} rounds`)
console.log('| variant | CPU µs/call | ÷ actor (CPU) | wall µs/call | ÷ actor (wall) |\n|---|---|---|---|---|')
for (const n of names) console.log(`| ${n} | ${med(cpu[n]).toFixed(2)} | ${(med(cpu[n]) / a).toFixed(2)} | ${med(wall[n]).toFixed(2)} | ${(med(wall[n]) / aw).toFixed(2)} |`)
