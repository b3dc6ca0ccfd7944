/** The pool inside a kernel: pool.assembled, ToolSearch loading, pool changes between turns, unloaded calls. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createMemoryLog, replay, type KernelEvent, type Tool } from '../../../src/index.js'
import type { ToolSource, ToolSourceStatus } from '../../../src/tools/tool-source.types.js'
import { loadedFromLog } from '../../../src/tools/pool/pool-log.js'
import { assistant, Echo, testKernel } from '../../helpers.js'
import { syntheticTool, syntheticTools } from './synthetic.js'

const ofType = <T extends KernelEvent['type']>(events: readonly KernelEvent[], type: T) =>
  events.filter((e): e is Extract<KernelEvent, { type: T }> => e.type === type)

const deferring = { deferral: { mode: 'always' as const } }

describe('the pool in a kernel', () => {
  it('a kernel without deferrable tools or sources records no pool events (old logs stay as they were)', async () => {
    const kernel = testKernel([Echo])
    const { events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(events.some((e) => e.type.startsWith('pool.') || e.type === 'tool.loaded')).toBe(false)
    expect(kernel.apiTools().map((t) => t.name)).toEqual(['Echo'])
  })

  it('below the threshold deferrable tools go in full; above it they are deferred and ToolSearch is offered', async () => {
    const small = testKernel([Echo, ...syntheticTools(3)])
    expect(small.apiTools().map((t) => t.name)).toEqual(['Echo', ...syntheticTools(3).map((t) => t.name)])
    const { events } = await small.runTurn(assistant())
    expect(ofType(events, 'pool.assembled')[0]).toMatchObject({
      visible: ['Echo', ...syntheticTools(3).map((t) => t.name)],
      deferred: [],
      threshold: { count: 3, maxCount: 100, maxTokens: 20_000, deferred: false },
    })
    const big = testKernel([Echo, ...syntheticTools(101)])
    const tools = big.apiTools()
    expect(tools[0]?.name).toBe('ToolSearch')
    expect(tools.filter((t) => t.defer_loading === true)).toHaveLength(101)
    expect(tools.find((t) => t.name === 'Echo')?.defer_loading).toBeUndefined()
    const assembled = ofType((await big.runTurn(assistant())).events, 'pool.assembled')[0]
    expect(assembled?.threshold).toMatchObject({ count: 101, deferred: true })
    expect(assembled?.hash).toMatch(/^[0-9a-f]{16}$/)
  })

  it('ToolSearch loads what it finds: tool_reference blocks for Anthropic, tool.loaded events, later requests carry them', async () => {
    const tools = syntheticTools(40)
    const kernel = testKernel([Echo, ...tools], deferring)
    const chat = () => kernel.apiTools({ format: 'openai-chat' }).map((t) => t.function.name)
    expect(chat()).toEqual(['ToolSearch', 'Echo'])
    const target = tools[9]?.name as string
    const { message, events } = await kernel.runTurn(assistant(['s1', 'ToolSearch', { query: `select:${target}` }]))
    expect(message.content[0]?.content).toEqual([{ type: 'tool_reference', tool_name: target }])
    expect(ofType(events, 'tool.loaded')).toMatchObject([{ name: target, how: 'select', loadedBy: 's1' }])
    expect(chat()).toEqual(['ToolSearch', 'Echo', target])
    const second = await kernel.runTurn(assistant(['s2', 'ToolSearch', { query: 'update github', max_results: 2 }]))
    const found = ofType(second.events, 'tool.loaded').map((e) => e.name)
    expect(found.length).toBeGreaterThan(0)
    expect(chat()).toEqual(['ToolSearch', 'Echo', target, ...found])
    const call = await kernel.runTurn(assistant(['c1', target, { id: '42' }]))
    expect(call.message.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'c1', content: `${target}(42)` })
    expect(loadedFromLog(kernel.log.read())).toEqual([target, ...found])
  })

  it('other formats get the definitions as text; OpenAI Responses gets defer_loading and a client tool_search', async () => {
    const tools = syntheticTools(5)
    const kernel = testKernel(tools, { ...deferring, toolFormat: 'openai-chat' })
    const { message } = await kernel.runTurn(assistant(['s', 'ToolSearch', { query: `select:${tools[1]?.name}` }]))
    const text = String(message.content[0]?.content)
    expect(text).toContain(`Loaded 1 tool(s): ${tools[1]?.name}`)
    expect(text).toContain(`<function>{"type":"function","function":{"name":"${tools[1]?.name}"`)
    const responses = testKernel(tools, { ...deferring, toolFormat: 'openai-responses' })
    const params = responses.apiTools({ format: 'openai-responses' })
    expect(params.at(-1)).toMatchObject({ type: 'tool_search', execution: 'client' })
    expect(params.filter((t) => t.type === 'function' && t.defer_loading === true)).toHaveLength(5)
    const found = await responses.runTurn(assistant(['r', 'ToolSearch', { query: `select:${tools[0]?.name}` }]))
    expect(JSON.parse(String(found.message.content[0]?.content))).toEqual([
      expect.objectContaining({ type: 'function', name: tools[0]?.name, strict: false }),
    ])
  })

  it('a denied tool is never offered, found or selected', async () => {
    const tools = syntheticTools(20)
    const denied = tools[3]?.name as string
    const kernel = testKernel(tools, { ...deferring, permissions: { deny: [denied] } })
    expect(kernel.apiTools().map((t) => t.name)).not.toContain(denied)
    const { message, events } = await kernel.runTurn(
      assistant(
        ['a', 'ToolSearch', { query: `select:${denied}` }],
        ['b', 'ToolSearch', { query: denied, max_results: 20 }],
      ),
    )
    expect(String(message.content[0]?.content)).toMatch(/^None of .* is a deferred tool that can be loaded/)
    expect(JSON.stringify(message.content[1])).not.toContain(denied)
    expect(ofType(events, 'tool.loaded').map((e) => e.name)).not.toContain(denied)
  })

  it('"no match" names the tool sources still connecting', async () => {
    const source = fakeSource('mcp:slow', [], { state: 'connecting' })
    const kernel = testKernel(syntheticTools(3), { ...deferring, toolSources: [source] })
    const { message } = await kernel.runTurn(assistant(['a', 'ToolSearch', { query: 'zebra' }]))
    expect(message.content[0]?.content).toMatch(/No tool matches "zebra".*Tool sources still connecting: mcp:slow/)
  })

  it('a source that connects later joins between turns, recorded as pool.changed', async () => {
    const source = fakeSource('mcp:late', [], { state: 'connecting' })
    const kernel = testKernel([Echo], { toolSources: [source] })
    await kernel.runTurn(assistant())
    const late = syntheticTool(7, { defer: false })
    source.set([late], { state: 'ready' })
    expect(kernel.apiTools().map((t) => t.name)).toEqual(['Echo', late.name])
    const { events } = await kernel.runTurn(assistant(['x', late.name, { id: '1' }]))
    expect(ofType(events, 'pool.changed')).toMatchObject([{ source: 'mcp:late', added: [late.name], removed: [] }])
    expect(events.find((e) => e.type === 'tool.result')).toMatchObject({ outcome: 'success' })
    source.set([], { state: 'failed', reason: 'gone' })
    const after = await kernel.runTurn(assistant())
    expect(ofType(after.events, 'pool.changed')).toMatchObject([
      { source: 'mcp:late', added: [], removed: [late.name] },
    ])
  })

  it('registerTools and removeTools apply between turns; a taken name throws at once', async () => {
    const kernel = testKernel([Echo])
    const extra = syntheticTool(1, { defer: false })
    kernel.registerTools([extra])
    expect(() => kernel.registerTools([extra])).toThrow(/already registered/)
    expect(() => kernel.removeTools(['Nope'])).toThrow(/not a tool the app registered/)
    const first = await kernel.runTurn(assistant(['a', extra.name, { id: 'z' }]))
    expect(ofType(first.events, 'pool.changed')).toMatchObject([{ source: 'app', added: [extra.name] }])
    expect(first.message.content[0]).toMatchObject({ content: `${extra.name}(z)` })
    kernel.removeTools([extra.name])
    expect(kernel.refreshTools().visible).toEqual(['Echo'])
    const second = await kernel.runTurn(assistant(['b', extra.name, { id: 'z' }]))
    expect(second.message.content[0]?.content).toMatch(/^<tool_use_error>No such tool/)
  })

  it('a tool offered only in some modes is left out in the others', () => {
    const planOnly = buildTool({ ...baseDef('ExitPlan'), modes: ['plan'] })
    expect(
      testKernel([Echo, planOnly])
        .apiTools()
        .map((t) => t.name),
    ).toEqual(['Echo'])
    const plan = testKernel([Echo, planOnly], { permissions: { mode: 'plan' } })
    expect(plan.apiTools().map((t) => t.name)).toEqual(['Echo', 'ExitPlan'])
  })
})

describe('an unloaded deferred tool called directly', () => {
  const tools = syntheticTools(10)
  const target = tools[2]?.name as string

  it('valid input: it runs, and is loaded (how: call)', async () => {
    const kernel = testKernel(tools, deferring)
    const { message, events } = await kernel.runTurn(assistant(['u', target, { id: '7' }]))
    expect(message.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'u', content: `${target}(7)` })
    expect(ofType(events, 'tool.loaded')).toMatchObject([{ name: target, how: 'call', loadedBy: 'u' }])
    expect(kernel.apiTools({ format: 'openai-chat' }).map((t) => t.function.name)).toContain(target)
  })

  it('invalid input: the error says to load it with select:, and it is loaded', async () => {
    const kernel = testKernel(tools, deferring)
    const { message, events } = await kernel.runTurn(assistant(['u', target, { identifier: 7 }]))
    expect(message.content[0]?.is_error).toBe(true)
    expect(String(message.content[0]?.content)).toContain(`call ToolSearch with query "select:${target}"`)
    expect(ofType(events, 'tool.loaded')).toMatchObject([{ name: target, how: 'call' }])
    const again = await kernel.runTurn(assistant(['v', target, { identifier: 7 }]))
    expect(String(again.message.content[0]?.content)).not.toContain('select:')
  })

  it('a JSON-Schema tool (validateInput, as every MCP tool) gets the select: hint too, on that call only', async () => {
    const Json = buildTool({
      name: 'mcp__srv__lookup',
      description: () => 'Looks an id up.',
      inputJSONSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      validateInput: (input) =>
        typeof (input as { id?: unknown }).id === 'string'
          ? { result: true }
          : { result: false, message: 'id: expected a string' },
      shouldDefer: true,
      call: async () => 'found',
    })
    const kernel = testKernel([...tools, Json], deferring)
    const { message } = await kernel.runTurn(assistant(['u', Json.name, { id: 7 }]))
    expect(message.content[0]?.is_error).toBe(true)
    expect(String(message.content[0]?.content)).toContain('id: expected a string')
    expect(String(message.content[0]?.content)).toContain(`call ToolSearch with query "select:${Json.name}"`)
    const again = await kernel.runTurn(assistant(['v', Json.name, { id: 7 }]))
    expect(String(again.message.content[0]?.content)).not.toContain('select:')
  })
})

describe('replay of a pool log', () => {
  it('re-executes without divergence: the same pool.assembled, the same ToolSearch answers and loads', async () => {
    const tools = [Echo, ...syntheticTools(120)]
    const log = createMemoryLog({ now: () => 1 })
    const kernel = testKernel(tools, { log })
    await kernel.runTurn(assistant(['a', 'ToolSearch', { query: 'send message slack' }]))
    const loaded = loadedFromLog(log.read())
    expect(loaded.length).toBeGreaterThan(0)
    await kernel.runTurn(assistant(['b', loaded[0] as string, { id: '1' }], ['c', 'Echo', { text: 'hi' }]))
    await kernel.runTurn(assistant(['d', (tools[50] as Tool).name, { id: '2' }]))
    const result = await replay(log.read(), { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })
})

function baseDef(name: string) {
  return {
    name,
    description: () => name,
    inputSchema: z.strictObject({}),
    async call() {
      return name
    },
  }
}

function fakeSource(id: string, tools: Tool[], status: ToolSourceStatus) {
  let current = { tools, status }
  const listeners = new Set<() => void>()
  const source: ToolSource & { set(tools: Tool[], status: ToolSourceStatus): void } = {
    id,
    tools: () => current.tools,
    status: () => current.status,
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    set(next, nextStatus) {
      current = { tools: next, status: nextStatus }
      for (const listener of listeners) listener()
    },
  }
  return source
}

describe('modes and the Anthropic loaded set', () => {
  it('a call to a tool the mode leaves out does not run', async () => {
    let ran = false
    const planOnly = buildTool({ ...baseDef('ExitPlan'), modes: ['plan'], call: async () => ((ran = true), 'x') })
    const { message } = await testKernel([Echo, planOnly]).runTurn(assistant(['p', 'ExitPlan', {}]))
    expect(ran).toBe(false)
    expect(message.content[0]).toMatchObject({ is_error: true })
    expect(String(message.content[0]?.content)).toContain('ExitPlan is not available in default mode')
  })

  it('Anthropic keeps tools loaded by reference deferred, and sends tools loaded by a call in full', async () => {
    const tools = syntheticTools(6)
    const kernel = testKernel(tools, deferring)
    const [a, b] = [tools[0]?.name as string, tools[1]?.name as string]
    await kernel.runTurn(assistant(['s', 'ToolSearch', { query: `select:${a}` }], ['c', b, { id: '1' }]))
    const sent = kernel.apiTools()
    expect(sent.find((t) => t.name === a)?.defer_loading).toBe(true)
    expect(sent.find((t) => t.name === b)?.defer_loading).toBeUndefined()
  })
})

describe('the app loads tools itself', () => {
  it('loadTools loads now, records tool.loaded (how: app) at the next turn, and refuses what is not deferred', async () => {
    const tools = syntheticTools(5)
    const kernel = testKernel([Echo, ...tools], deferring)
    expect(() => kernel.loadTools(['Echo'])).toThrow(/^loadTools: Echo is not a deferred tool of the pool/)
    kernel.loadTools([tools[4]?.name as string])
    const sent = kernel.apiTools()
    expect(sent.find((t) => t.name === tools[4]?.name)?.defer_loading).toBeUndefined()
    const { events } = await kernel.runTurn(assistant())
    expect(ofType(events, 'tool.loaded')).toMatchObject([{ name: tools[4]?.name, how: 'app' }])
    expect(ofType(events, 'pool.assembled')[0]?.loaded).toEqual([tools[4]?.name])
  })
})

describe('replay of pool logs', () => {
  // Replay builds its kernel with the deferral and format session.configured.pool records.
  it('a log recorded with non-default deferral and format re-executes', async () => {
    const tools = syntheticTools(6)
    const log = createMemoryLog({ now: () => 1 })
    const kernel = testKernel(tools, { log, deferral: { mode: 'always' }, toolFormat: 'openai-chat' })
    await kernel.runTurn(assistant(['a', 'ToolSearch', { query: `select:${tools[2]?.name}` }]))
    const result = await replay(log.read(), { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  // Replay applies the recorded pool.changed events of the app before each turn.
  it('a log with tools registered between turns re-executes', async () => {
    const extra = syntheticTool(3, { defer: false })
    const log = createMemoryLog({ now: () => 1 })
    const kernel = testKernel([Echo], { log })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    kernel.registerTools([extra])
    await kernel.runTurn(assistant(['b', extra.name, { id: '1' }]))
    const result = await replay(log.read(), { tools: [Echo, extra] })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })
})
