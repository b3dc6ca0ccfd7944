/**
 * A source's name map and withheld tools in `pool.changed`, and the sources rebuilt from a log
 * (what replay offers in place of the servers): a kernel over them makes the same changes.
 */
import { describe, expect, it } from 'vitest'
import { createMemoryLog, type KernelEvent, type Tool } from '../../../src/index.js'
import type { ToolSource, ToolSourceDiagnostic } from '../../../src/tools/tool-source.types.js'
import { recordedSources } from '../../../src/tools/pool/recorded-source.js'
import { assistant, Echo, testKernel } from '../../helpers.js'
import { syntheticTool } from './synthetic.js'

function mapSource(id: string) {
  let tools: Tool[] = []
  let withheld: ToolSourceDiagnostic[] = []
  const listeners = new Set<() => void>()
  const source: ToolSource = {
    id,
    tools: () => tools,
    status: () => ({ state: 'ready' }),
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    names: () => tools.map((tool) => ({ name: tool.name, server: 'srv', tool: `raw ${tool.name}` })),
    diagnostics: () => withheld,
  }
  const set = (next: Tool[], nextWithheld: ToolSourceDiagnostic[]) => {
    tools = next
    withheld = nextWithheld
    for (const listener of listeners) listener()
  }
  return { source, set }
}

const changes = (events: readonly KernelEvent[]) =>
  events.filter((e): e is Extract<KernelEvent, { type: 'pool.changed' }> => e.type === 'pool.changed')

describe('pool.changed from a source with a name map', () => {
  it('records names for the added tools and the withheld list when it changes; the recorded sources redo it', async () => {
    const [a, b, c] = [syntheticTool(1), syntheticTool(2), syntheticTool(3)]
    const { source, set } = mapSource('mcp')
    const bad = { kind: 'tool_withheld', server: 'srv', tool: 'bad', reason: 'its schema has a top-level $ref' }
    set([a, b], [bad, { kind: 'server_down', server: 'gone', reason: 'exited' }])
    const log = createMemoryLog({ now: () => 1 })
    const kernel = testKernel([Echo], { log, toolSources: [source] })
    const first = await kernel.runTurn(assistant(['e', 'Echo', { text: '1' }]))
    expect(changes(first.events)).toEqual([
      expect.objectContaining({
        source: 'mcp',
        added: [a.name, b.name],
        names: [
          { name: a.name, server: 'srv', tool: `raw ${a.name}` },
          { name: b.name, server: 'srv', tool: `raw ${b.name}` },
        ],
        withheld: [{ server: 'srv', tool: 'bad', reason: bad.reason }],
      }),
    ])
    set([a, c], [bad])
    const second = await kernel.runTurn(assistant(['f', 'Echo', { text: '2' }]))
    const [change] = changes(second.events)
    expect(change).toMatchObject({ added: [c.name], removed: [b.name], names: [{ name: c.name }] })
    expect(change).not.toHaveProperty('withheld')
    set([a, c], [])
    const third = await kernel.runTurn(assistant(['g', 'Echo', { text: '3' }]))
    expect(changes(third.events)).toEqual([expect.objectContaining({ added: [], removed: [], withheld: [] })])

    // A kernel over the recorded sources, advanced turn by turn, logs the same changes.
    const recorded = recordedSources(log.read(), [Echo, a, b, c])
    expect([...recorded.sourced]).toEqual([a.name, b.name, c.name])
    const again = testKernel([Echo], { toolSources: recorded.sources })
    for (const [turn, id] of [
      [first, 'e'],
      [second, 'f'],
      [third, 'g'],
    ] as const) {
      recorded.advance(turn.events)
      const { events } = await again.runTurn(assistant([id, 'Echo', { text: id }]))
      const strip = (e: KernelEvent) => ({ ...e, seq: 0, at: 0, turnId: '' })
      expect(changes(events).map(strip)).toEqual(changes(turn.events).map(strip))
    }
  })
})
