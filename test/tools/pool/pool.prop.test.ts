/**
 * Property tests of the pool: random registries (up to 1,000 tools), rule sets, modes and
 * search/select/call sequences. Runs are few and small: the machine is shared.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMemoryLog, replay, type KernelEvent, type Tool } from '../../../src/index.js'
import { assemblePool, poolSnapshot } from '../../../src/tools/pool/assemble-pool.js'
import { poolApiTools } from '../../../src/tools/pool/pool-api-tools.js'
import { loadedFromLog, referencedFromLog } from '../../../src/tools/pool/pool-log.js'
import { searchTools } from '../../../src/tools/pool/search.js'
import { API_FORMATS } from '../../../src/tools/to-api-format.js'
import { assistant, testKernel } from '../../helpers.js'
import { syntheticTool, type SyntheticOptions } from './synthetic.js'

const MODES = ['default', 'plan', 'acceptEdits']
const WORDS = [
  'create',
  'issue',
  'slack',
  'github',
  'delete',
  'invoice',
  '+stripe',
  'message',
  'list',
  'mcp__jira',
  'zebra',
]

const toolOptions = fc.record({
  defer: fc.boolean(),
  alwaysLoad: fc.oneof(fc.constant(undefined), fc.boolean()),
  enabled: fc.oneof(fc.constant(undefined), fc.boolean()),
  modes: fc.oneof(fc.constant(undefined), fc.subarray(MODES, { minLength: 1 })),
})

const registry = (max: number, min = 1) =>
  fc
    .array(toolOptions, { minLength: min, maxLength: max })
    .map((all) => all.map((options, i) => syntheticTool(i, { ...clean(options), ...(i === 0 ? { defer: true } : {}) })))

function clean(options: {
  defer: boolean
  alwaysLoad?: boolean | undefined
  enabled?: boolean | undefined
  modes?: string[] | undefined
}): SyntheticOptions {
  const out: SyntheticOptions = { defer: options.defer }
  if (options.alwaysLoad !== undefined) out.alwaysLoad = options.alwaysLoad
  if (options.enabled !== undefined) out.enabled = options.enabled
  if (options.modes !== undefined) out.modes = options.modes
  return out
}

const names = (tools: readonly Tool[]) => tools.map((t) => t.name)

describe('the pure pool', () => {
  it('filters first, partitions the rest, and never lets a denied tool into a search or a request', () => {
    fc.assert(
      fc.property(
        registry(1000),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.constantFrom(...MODES),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.array(fc.subarray(WORDS, { minLength: 1, maxLength: 3 }), { maxLength: 5 }),
        (tools, deny, mode, loads, queries) => {
          const denied = new Set(deny.map((i) => tools[i % tools.length]?.name))
          const loaded = loads.map((i) => tools[i % tools.length]?.name as string)
          const input = {
            tools,
            denied: (t: Tool) => denied.has(t.name),
            mode,
            loaded,
            deferral: { mode: 'always' as const },
          }
          const pool = assemblePool(input)
          const offered = new Set(names(pool.offered))
          for (const name of denied) expect(offered.has(name as string)).toBe(false)
          expect([...names(pool.visible), ...names(pool.deferred), ...names(pool.loaded)].sort()).toEqual(
            [...offered].sort(),
          )
          for (const format of API_FORMATS) {
            const text = JSON.stringify(poolApiTools(pool, format, undefined))
            for (const name of denied) expect(text.includes(`"${name}"`)).toBe(false)
          }
          const searchable = new Set(names(pool.searchable))
          for (const words of queries) {
            const query = words.join(' ')
            const answer = searchTools(pool.searchable, query, 20)
            expect(answer.matches.every((m) => searchable.has(m))).toBe(true)
            expect(searchTools([...pool.searchable].reverse(), query, 20)).toEqual(answer)
          }
          expect(poolSnapshot(assemblePool(input))).toEqual(poolSnapshot(pool))
        },
      ),
      { numRuns: 40 },
    )
  })
})

type Action =
  | { kind: 'search'; words: string[] }
  | { kind: 'select'; picks: number[] }
  | { kind: 'call'; pick: number; valid: boolean }

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('search' as const), words: fc.subarray(WORDS, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('select' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('call' as const), pick: fc.nat(), valid: fc.boolean() }),
)

function useOf(a: Action, tools: readonly Tool[], id: string): [string, string, unknown] {
  const pick = (i: number) => tools[i % tools.length]?.name as string
  if (a.kind === 'search') return [id, 'ToolSearch', { query: a.words.join(' '), max_results: 3 }]
  if (a.kind === 'select') return [id, 'ToolSearch', { query: `select:${a.picks.map(pick).join(',')}` }]
  return [id, pick(a.pick), a.valid ? { id: 'x' } : { wrong: 1 }]
}

/** Walks a log: every started call was visible or loaded at that point (ToolSearch counts as offered). */
function checkExecutedWereOffered(events: readonly KernelEvent[]): void {
  let offered = new Set<string>(['ToolSearch'])
  const names = new Map<string, string>()
  for (const e of events) {
    if (e.type === 'pool.assembled') offered = new Set(['ToolSearch', ...e.visible, ...e.loaded])
    if (e.type === 'tool.loaded') offered.add(e.name)
    if (e.type === 'tool.requested') names.set(`${e.turnId}/${e.toolUseId}`, e.name)
    if (e.type === 'tool.started') expect(offered.has(names.get(`${e.turnId}/${e.toolUseId}`) as string)).toBe(true)
  }
}

describe('a kernel over random search/select/call sequences', () => {
  it('runs only offered or loaded tools, never reveals a denied one, and rebuilds the same pool from its log', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Up to 200 tools: past 100 deferrable ones the default threshold defers (replay runs with the default).
        fc.oneof(registry(12), registry(200, 150)),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(fc.array(action, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        async (tools, deny, turns, cutAt) => {
          const denied = [...new Set(deny.map((i) => tools[i % tools.length]?.name as string))]
          const log = createMemoryLog({ now: () => 1 })
          const options = { log, permissions: { deny: denied } }
          const kernel = testKernel(tools, options)
          let n = 0
          for (const turn of turns) await kernel.runTurn(assistant(...turn.map((a) => useOf(a, tools, `u${n++}`))))
          const events = [...log.read()]
          checkExecutedWereOffered(events)
          const deniedSet = new Set(denied)
          for (const e of events) {
            if (e.type === 'tool.loaded') expect(deniedSet.has(e.name)).toBe(false)
            if (
              e.type === 'tool.result' &&
              events.some((r) => r.type === 'tool.requested' && r.toolUseId === e.toolUseId && r.name === 'ToolSearch')
            )
              for (const name of denied) expect(JSON.stringify(e.block).includes(`"${name}"`)).toBe(false)
          }
          for (const format of API_FORMATS) {
            const text = JSON.stringify(kernel.apiTools({ format }))
            for (const name of denied) expect(text.includes(`"${name}"`)).toBe(false)
          }
          const snapshot = kernel.refreshTools()
          // Replay: the engine decides the same events, pool.assembled and tool.loaded included.
          const replayed = await replay(events, { tools, permissions: { deny: denied } })
          expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
          // Resume: a kernel over the stored log has the same pool.
          const resumed = testKernel(tools, { ...options, log: createMemoryLog({ now: () => 1 }) }).resume(
            createMemoryLog({ now: () => 1 }, events),
          )
          expect(resumed.refreshTools()).toEqual(snapshot)
          // Cut and recover: the resumed kernel's pool is the one the cut log says.
          const cut = events.slice(0, cutAt % (events.length + 1))
          const recovered = testKernel(tools, { ...options, log: createMemoryLog({ now: () => 1 }) }).resume(
            createMemoryLog({ now: () => 1 }, cut),
          )
          const expected = assemblePool({
            tools,
            denied: (t) => deniedSet.has(t.name),
            mode: 'default',
            loaded: loadedFromLog(cut),
            referenced: referencedFromLog(cut),
          })
          expect(recovered.refreshTools()).toEqual(poolSnapshot(expected))
        },
      ),
      { numRuns: 25 },
    )
  })
})
