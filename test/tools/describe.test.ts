/**
 * Descriptions that read the pool's context and may be async (decision 153): resolved when the
 * pool is assembled, sent by `apiTools()` in every format, recorded when they change, replayed.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import {
  API_FORMATS,
  buildTool,
  changeContext,
  projectTimeline,
  replay,
  toAPIFormat,
  type DescribeContext,
  type KernelEvent,
} from '../../src/index.js'
import { DESCRIBE_TIMEOUT_MS } from '../../src/tools/describe.js'
import { assistant, Echo, testKernel } from '../helpers.js'

/** A tool whose texts are async and read the context; it keeps every context it was asked with. */
const contextual = (name = 'Query', shouldDefer = false) => {
  const seen: DescribeContext[] = []
  const tool = buildTool({
    name,
    shouldDefer,
    description: async () => 'Runs a query.',
    async prompt(context) {
      seen.push(context)
      await new Promise((resolve) => setImmediate(resolve))
      const fields = Object.keys((context.inputSchema.properties ?? {}) as object).join(',')
      return `Runs a query (${context.mode}; with ${context.tools.join(',')}; fields ${fields}).`
    },
    inputSchema: z.strictObject({ sql: z.string() }),
    async call() {
      return 'rows'
    },
  })
  return { tool, seen }
}

const described = (events: readonly KernelEvent[]) =>
  events.filter((e): e is Extract<KernelEvent, { type: 'tools.described' }> => e.type === 'tools.described')

describe('descriptions that read the context and may be async', () => {
  it('are resolved with the pool and sent in every format, once the kernel is ready', async () => {
    const { tool, seen } = contextual()
    const kernel = testKernel([Echo, tool], { cwd: '/tmp' })
    await kernel.ready()
    const text = 'Runs a query (default; with Echo,Query; fields sql).'
    expect(seen.at(-1)).toMatchObject({ tools: ['Echo', 'Query'], mode: 'default', cwd: '/tmp' })
    const texts = API_FORMATS.map((format) =>
      kernel
        .apiTools({ format })
        .map((t) => ('function' in t ? t.function.description : t.description))
        .at(1),
    )
    expect(texts).toEqual([text, text, text])
    // The tools parameter is assembled from the resolved texts: the tool is not asked again.
    expect(seen).toHaveLength(1)
    expect(kernel.tools.map((t) => t.name)).toEqual(['Echo', 'Query'])
  })

  it('apiTools() before they are resolved says to await kernel.ready(), naming the tool; a turn waits for them', async () => {
    const { tool } = contextual()
    const kernel = testKernel([Echo, tool])
    expect(() => kernel.apiTools()).toThrow(
      /kernel\.apiTools: the descriptions of Query are still being resolved .*await kernel\.ready\(\) first/,
    )
    const { events } = await kernel.runTurn(assistant(['a', 'Query', { sql: 'select 1' }]))
    const configured = events.find((e) => e.type === 'session.configured')
    expect(configured?.tools.find((t) => t.name === 'Query')?.definition?.description).toBe(
      'Runs a query (default; with Echo,Query; fields sql).',
    )
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' })
    // A turn the app starts itself cannot wait: it refuses while texts are on their way.
    kernel.setMode('plan')
    expect(() => kernel.startTurn()).toThrow(/a turn cannot start: the descriptions of Query are still being resolved/)
    expect(kernel.log.read().at(-1)).toMatchObject({ type: 'turn.completed' })
  })

  it('a text that follows the mode is asked again when the mode changes, and the change is recorded and replays', async () => {
    const { tool } = contextual()
    const kernel = testKernel([Echo, tool])
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    kernel.setMode('plan')
    await kernel.ready()
    const plan = 'Runs a query (plan; with Echo,Query; fields sql).'
    expect(kernel.apiTools().find((t) => t.name === 'Query')?.description).toBe(plan)
    const second = await kernel.runTurn(assistant(['b', 'Echo', { text: 'y' }]))
    expect(described(second.events)).toMatchObject([{ tools: [{ name: 'Query', description: plan }] }])
    // Unchanged since: nothing more is recorded.
    const third = await kernel.runTurn(assistant(['c', 'Echo', { text: 'z' }]))
    expect(described(third.events)).toEqual([])
    kernel.setMode('default')
    const fourth = await kernel.runTurn(assistant(['d', 'Echo', { text: 'w' }]))
    expect(described(fourth.events)).toMatchObject([{ tools: [{ name: 'Query', description: /\(default;/ }] }])
    expect(
      projectTimeline(fourth.events).some((row) => row.detail.includes('descriptions sent from now on: Query')),
    ).toBe(true)

    const again = await replay(kernel.log.read(), { tools: [Echo, contextual().tool] })
    expect(again.ok ? 'ok' : again.divergence.message).toBe('ok')
    expect(described(again.log).map((e) => e.tools[0]?.description)).toEqual([plan, expect.stringMatching(/default/)])
  })

  it('a text that reads the cwd follows a tool that moved it, from the next turn on', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'tk-describe-')))
    mkdirSync(join(root, 'sub'))
    const Cd = buildTool({
      name: 'Cd',
      description: () => 'Changes the working directory.',
      inputSchema: z.strictObject({ dir: z.string() }),
      call: async ({ dir }) => changeContext(`now in ${dir}`, { cwd: dir }),
    })
    const Here = buildTool({
      name: 'Here',
      description: ({ cwd }) => `Lists ${cwd}.`,
      inputSchema: z.strictObject({}),
      isReadOnly: () => true,
      call: async (_input, context) => context.cwd,
    })
    const kernel = testKernel([Cd, Here], { cwd: root })
    expect(kernel.apiTools().at(1)?.description).toBe(`Lists ${root}.`)
    await kernel.runTurn(assistant(['a', 'Cd', { dir: join(root, 'sub') }]))
    expect(kernel.apiTools().at(1)?.description).toBe(`Lists ${join(root, 'sub')}.`)
    const { events } = await kernel.runTurn(assistant(['b', 'Here', {}]))
    expect(described(events)).toMatchObject([{ tools: [{ name: 'Here', description: `Lists ${join(root, 'sub')}.` }] }])
    rmSync(root, { recursive: true, force: true })
  })

  it('a text the log recorded is what replay gives back, whatever the tool says now', async () => {
    const { tool } = contextual('Query', true)
    const kernel = testKernel([Echo, tool], { toolFormat: 'anthropic', deferral: { mode: 'always' } })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    kernel.setMode('plan')
    await kernel.runTurn(assistant(['b', 'Echo', { text: 'y' }]))
    expect(kernel.log.read().filter((e) => e.type === 'pool.assembled')).toHaveLength(2)
    const changed = buildTool({
      name: 'Query',
      shouldDefer: true,
      description: () => 'Something else.',
      prompt: ({ mode }) => `Something else in ${mode}.`,
      inputSchema: z.strictObject({ sql: z.string() }),
      call: async () => 'rows',
    })
    // The recorded text comes back from the log, so the pool hashes the same definitions.
    const result = await replay(kernel.log.read(), { tools: [Echo, changed] })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
  })

  it('a description that rejects fails closed with an error naming the tool', async () => {
    const broken = buildTool({
      name: 'Catalogue',
      description: () => 'Lists the catalogue.',
      prompt: async () => {
        throw new Error('the catalogue server is down')
      },
      inputSchema: z.strictObject({}),
      call: async () => 'ok',
    })
    const kernel = testKernel([Echo, broken])
    await expect(kernel.ready()).rejects.toThrow('tool "Catalogue": prompt() failed: the catalogue server is down')
    expect(() => kernel.apiTools()).toThrow(
      /kernel\.apiTools: tool "Catalogue": prompt\(\) failed: the catalogue server is down\. No tool is offered/,
    )
    await expect(kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))).rejects.toThrow(/tool "Catalogue"/)
    expect(kernel.log.read()).toEqual([])
  })

  it('a description that never settles fails closed after DESCRIBE_TIMEOUT_MS, naming the tool', async () => {
    vi.useFakeTimers()
    try {
      const stuck = buildTool({
        name: 'Catalogue',
        description: () => 'Lists the catalogue.',
        prompt: () => new Promise<string>(() => {}),
        inputSchema: z.strictObject({}),
        call: async () => 'ok',
      })
      const kernel = testKernel([Echo, stuck])
      const ready = kernel.ready()
      const settled = ready.then(
        () => 'resolved',
        (error: Error) => error.message,
      )
      await vi.advanceTimersByTimeAsync(DESCRIBE_TIMEOUT_MS - 1)
      expect(await Promise.race([settled, Promise.resolve('pending')])).toBe('pending')
      await vi.advanceTimersByTimeAsync(1)
      expect(await settled).toBe(
        `tool "Catalogue": prompt() did not answer within ${DESCRIBE_TIMEOUT_MS / 1000} s (an asynchronous description() or prompt() must settle)`,
      )
      expect(() => kernel.apiTools()).toThrow(/tool "Catalogue": prompt\(\) did not answer within/)
    } finally {
      vi.useRealTimers()
    }
  })

  it('a description that throws, or answers no string, fails the same way', async () => {
    const throwing = buildTool({
      name: 'Thrower',
      description: ({ mode }) => {
        throw new Error(`no text in ${mode}`)
      },
      inputSchema: z.strictObject({}),
      call: async () => 'ok',
    })
    const kernel = testKernel([throwing])
    expect(() => kernel.apiTools()).toThrow('tool "Thrower": description() failed: no text in default')
    await expect(kernel.ready()).rejects.toThrow('tool "Thrower": description() failed: no text in default')
    const numeric = buildTool({
      name: 'Numeric',
      description: async () => 42 as unknown as string,
      inputSchema: z.strictObject({}),
      call: async () => 'ok',
    })
    await expect(testKernel([numeric]).ready()).rejects.toThrow(
      'tool "Numeric": description() answered number, not a string',
    )
  })

  it('a deferred tool is searched and loaded by its resolved text', async () => {
    const { tool } = contextual('Warehouse', true)
    const kernel = testKernel([Echo, tool], { toolFormat: 'openai-chat', deferral: { mode: 'always' } })
    kernel.registerTools([]) // nothing new: the pool is the same
    await kernel.ready()
    const responses = kernel.apiTools({ format: 'openai-responses' })
    expect(responses.find((t) => 'name' in t && t.name === 'Warehouse')).toMatchObject({
      defer_loading: true,
      description: 'Runs a query (default; with Echo,Warehouse; fields sql).',
    })
    const { message } = await kernel.runTurn(assistant(['s', 'ToolSearch', { query: 'select:Warehouse' }]))
    expect(JSON.stringify(message.content)).toContain('Runs a query (default; with Echo,Warehouse; fields sql).')
    expect(kernel.apiTools({ format: 'openai-chat' }).map((t) => t.function.name)).toContain('Warehouse')
  })

  it('sync zero-argument tools are offered as before: no waiting, no view, nothing recorded', async () => {
    const kernel = testKernel([Echo])
    expect(kernel.apiTools()).toEqual([
      { name: 'Echo', description: Echo.description({} as DescribeContext), input_schema: expect.any(Object) },
    ])
    kernel.setMode('plan')
    kernel.setMode('default')
    const { events } = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expect(described(events)).toEqual([])
    expect(kernel.tools[0]).toBe(Echo)
  })

  it('toAPIFormat, outside a kernel, cannot send an async text and says so', () => {
    const { tool } = contextual()
    expect(() => toAPIFormat([tool])).toThrow(
      /tool "Query": prompt\(\) is asynchronous, so only a kernel can send it .*kernel\.apiTools\(\) after await kernel\.ready\(\)/,
    )
    const sync = buildTool({
      name: 'Local',
      description: ({ tools }) => `Works with ${tools.join(', ')}.`,
      inputSchema: z.strictObject({}),
      call: async () => 'ok',
    })
    expect(toAPIFormat([Echo, sync]).at(1)?.description).toBe('Works with Echo, Local.')
  })
})
