/**
 * A child session's deferred tools (docs/subagents.md §Deferred tools): the child splits its tools
 * as the kernel's pool does, searches and loads with a ToolSearch of its own, and nothing it loads
 * reaches the parent's pool — live, after a resume, or in replay.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createKernel,
  createMemoryLog,
  replay,
  resumeHistory,
  type ChildOptions,
  type ChildSession,
  type KernelEvent,
  type Tool,
} from '../../src/index.js'

const deferred = (name: string): Tool =>
  buildTool({
    name,
    description: () => `The ${name} tool.`,
    shouldDefer: true,
    inputSchema: z.object({}),
    call: async () => `${name} ran`,
  })

type Use = { id: string; name: string; input: Record<string, unknown> }
const message = (...uses: Use[]) => ({
  role: 'assistant' as const,
  stop_reason: 'tool_use',
  content: uses.map((use) => ({ type: 'tool_use' as const, ...use })),
})

/**
 * A kernel whose Spawn tool opens a child with `options` and runs `turns` in it; `seen` gets the
 * child's tools parameter (Anthropic, then OpenAI Chat) before and after, and each turn's results.
 */
function spawning(
  options: ChildOptions,
  turns: Use[][],
  log = createMemoryLog(),
  more: { snapshotEvery?: number } = {},
) {
  const seen: { before: unknown[]; after: unknown[]; chatAfter: unknown[]; results: unknown[] } = {
    before: [],
    after: [],
    chatAfter: [],
    results: [],
  }
  const Spawn = buildTool({
    name: 'Spawn',
    description: () => 'Runs a child.',
    inputSchema: z.object({}),
    async call(_input, context) {
      const child = (context.runChild as (o: ChildOptions) => ChildSession)(options)
      seen.before = child.apiTools()
      for (const uses of turns) seen.results.push((await child.runTurn(message(...uses))).message.content)
      seen.after = child.apiTools()
      seen.chatAfter = child.apiTools({ format: 'openai-chat' })
      return 'spawned'
    },
  })
  const tools = [deferred('Far'), deferred('Farther'), Spawn]
  const kernel = createKernel({ tools, log, deferral: { mode: 'always' }, ...more })
  return { kernel, log, seen, tools }
}

const names = (tools: unknown[]) =>
  tools.map((tool) => {
    const t = tool as { name?: string; function?: { name: string }; defer_loading?: boolean }
    return `${t.name ?? t.function?.name}${t.defer_loading === true ? ' (deferred)' : ''}`
  })

describe("a child session's deferred tools", () => {
  it('are deferred as the parent defers them, found and loaded by its own ToolSearch, and stay its own', async () => {
    const { kernel, log, seen, tools } = spawning({}, [
      [{ id: 'c1', name: 'ToolSearch', input: { query: 'select:Far' } }],
      [{ id: 'c2', name: 'Far', input: {} }],
    ])
    const parentBefore = names(kernel.apiTools({ format: 'openai-chat' }))
    await kernel.runTurn(message({ id: 'p1', name: 'Spawn', input: {} }))
    expect(names(seen.before)).toEqual(['ToolSearch', 'Far (deferred)', 'Farther (deferred)'])
    // Loaded by reference: Anthropic keeps it deferred (the reference expands it); OpenAI Chat sends it.
    expect(names(seen.after)).toEqual(['ToolSearch', 'Far (deferred)', 'Farther (deferred)'])
    expect(names(seen.chatAfter)).toEqual(['ToolSearch', 'Far'])
    expect(JSON.stringify(seen.results[0])).toContain('"tool_name":"Far"')
    expect(seen.results[1]).toEqual([{ type: 'tool_result', tool_use_id: 'c2', content: 'Far ran' }])
    const loads = log.read().filter((e): e is Extract<KernelEvent, { type: 'tool.loaded' }> => e.type === 'tool.loaded')
    expect(loads.map((e) => [e.name, e.how, e.parentToolUseId])).toEqual([['Far', 'select', 'p1']])
    // The parent's pool is as it was, live and over the same log in a new kernel.
    expect(names(kernel.apiTools({ format: 'openai-chat' }))).toEqual(parentBefore)
    const resumed = createKernel({ tools, log, deferral: { mode: 'always' } })
    expect(names(resumed.apiTools({ format: 'openai-chat' }))).toEqual(parentBefore)
    const replayed = await replay(log.read(), { tools })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it("a child's ToolSearch finds only the child's tools", async () => {
    const { kernel, seen } = spawning({ tools: ['ToolSearch', 'Farther'] }, [
      [{ id: 'c1', name: 'ToolSearch', input: { query: 'select:Far,Farther' } }],
    ])
    await kernel.runTurn(message({ id: 'p1', name: 'Spawn', input: {} }))
    const text = JSON.stringify(seen.results[0])
    expect(text).toContain('"tool_name":"Farther"')
    expect(text).not.toContain('"tool_name":"Far"')
  })

  it('a call to a deferred tool not loaded yet loads it for the child, as in a kernel', async () => {
    const { kernel, log, tools } = spawning({}, [[{ id: 'c1', name: 'Farther', input: {} }]])
    await kernel.runTurn(message({ id: 'p1', name: 'Spawn', input: {} }))
    const load = log.read().find((e) => e.type === 'tool.loaded')
    expect(load).toMatchObject({ name: 'Farther', how: 'call', parentToolUseId: 'p1' })
    const replayed = await replay(log.read(), { tools })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('a child without ToolSearch gets every tool in full: one it could not find would be one it could not call', async () => {
    const { kernel, seen } = spawning({ tools: ['Far', 'Farther'] }, [])
    await kernel.runTurn(message({ id: 'p1', name: 'Spawn', input: {} }))
    expect(names(seen.before)).toEqual(['Far', 'Farther'])
  })

  it("the parent's load of a tool a child loaded first is the one a log's retention window keeps", async () => {
    const log = createMemoryLog(undefined, { retainTurns: 1 })
    const { kernel, tools } = spawning({}, [[{ id: 'c1', name: 'ToolSearch', input: { query: 'select:Far' } }]], log)
    await kernel.runTurn(message({ id: 'p1', name: 'Spawn', input: {} }))
    await kernel.runTurn(message({ id: 'p2', name: 'ToolSearch', input: { query: 'select:Far' } }))
    for (let t = 0; t < 3; t++) await kernel.runTurn(message({ id: `x${t}`, name: 'Spawn', input: {} }))
    const loads = log.read().filter((e) => e.type === 'tool.loaded')
    expect(loads.map((e) => [e.name, e.parentToolUseId])).toEqual([['Far', undefined]])
    const resumed = createKernel({ tools, log, deferral: { mode: 'always' } })
    expect(names(resumed.apiTools({ format: 'openai-chat' }))).toContain('Far')
  })

  it("a snapshot carries the parent's load of a tool a child loaded first", async () => {
    const { kernel, log, tools } = spawning(
      {},
      [[{ id: 'c1', name: 'ToolSearch', input: { query: 'select:Far' } }]],
      createMemoryLog(),
      { snapshotEvery: 1 },
    )
    await kernel.runTurn(message({ id: 'p1', name: 'Spawn', input: {} }))
    await kernel.runTurn(message({ id: 'p2', name: 'ToolSearch', input: { query: 'select:Far' } }))
    for (let t = 0; t < 3; t++) await kernel.runTurn(message({ id: `x${t}`, name: 'Spawn', input: {} }))
    const history = resumeHistory(log.read())
    expect(history.length).toBeLessThan(log.read().length)
    const fromSnapshot = createKernel({ tools, deferral: { mode: 'always' } }).resume(
      createMemoryLog(undefined, [...history]),
    )
    const whole = createKernel({ tools, deferral: { mode: 'always' } }).resume(createMemoryLog(undefined, log.read()))
    expect(names(whole.apiTools({ format: 'openai-chat' }))).toContain('Far')
    expect(names(fromSnapshot.apiTools({ format: 'openai-chat' }))).toEqual(
      names(whole.apiTools({ format: 'openai-chat' })),
    )
  })
})
