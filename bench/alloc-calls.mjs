/**
 * `DIST=<dist> node bench/alloc-calls.mjs`: bytes allocated per no-op call (K = 10), collected
 * objects included (V8's sampling heap profiler with includeObjectsCollectedBy{Major,Minor}GC), by
 * file and by function, and the natives (Set, Map, sort…) by caller. Allocation does not depend on
 * the machine's load, so a pass that cuts garbage can show it where CPU time is too noisy
 * (docs/benchmarks.md, Issue 33). TOP (default 40) functions listed.
 */
import { Session } from 'node:inspector/promises'
import { z } from 'zod'
import { resolve } from 'node:path'
const { buildTool, createKernel, createMemoryLog } = await import(resolve(process.env.DIST ?? new URL('../dist', import.meta.url).pathname, 'index.js'))
const Noop = buildTool({ name: 'Noop', description: () => 'Does nothing.', inputSchema: z.strictObject({}), isConcurrencySafe: () => true, call: async () => 'ok' })
let counter = 0
const ids = { next: (p) => `${p}_${++counter}` }
const message = { role: 'assistant', content: Array.from({ length: 10 }, (_, i) => ({ type: 'tool_use', id: `t${i}`, name: 'Noop', input: {} })) }
const kernel = createKernel({ tools: [Noop], ports: { ids }, log: createMemoryLog({ now: () => 0 }, { retainTurns: 1 }) })
const calls = async (n) => { for (let i = 0; i < n; i += 10) await kernel.runTurn(message) }
await calls(3000)
const s = new Session(); s.connect()
await s.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
const N = 5000
await calls(N)
const { profile } = await s.post('HeapProfiler.stopSampling')
const self = new Map(); let total = 0
const parentOf = new Map()
const walk = (n, parent) => { const f = n.callFrame; const key = `${f.functionName || '(anon)'} ${f.url.replace(/.*\//, '')}:${f.lineNumber}`; const t = n.selfSize; total += t; self.set(key, (self.get(key) ?? 0) + t); if (['Set', 'Map', 'sort', 'flatMap', 'push', 'assign', '(anon)'].includes(f.functionName) || f.url === '') { const pk = `${f.functionName}<-${parent}`; parentOf.set(pk, (parentOf.get(pk) ?? 0) + t) } ; for (const c of n.children) walk(c, `${f.functionName} ${f.url.replace(/.*\//, '')}:${f.lineNumber}`) }
walk(profile.head, '')
console.log(`total ${(total / N / 1024).toFixed(1)} KB per call`)
const byFile = new Map(); for (const [k, v] of self) { const f = k.split(' ')[1].split(':')[0].replace(/-[A-Za-z0-9_]+\.js/, ''); byFile.set(f, (byFile.get(f) ?? 0) + v) }
for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`${(v / N).toFixed(0).padStart(7)} B  ${k}`)
console.log('---')
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) console.log(`${(v / N).toFixed(0).padStart(7)} B  ${k}`)

console.log('--- natives by caller');for (const [k, v] of [...parentOf].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${(v / N).toFixed(0).padStart(7)} B  ${k}`)
