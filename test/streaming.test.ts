import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  parseSSE,
  projectMessages,
  toOpenAIToolMessages,
  type KernelEvent,
  type TurnUpdate,
} from '../src/index.js'
import { gate, testKernel } from './helpers.js'

const fixture = (name: string) => parseSSE(readFileSync(new URL(`./fixtures/streams/${name}`, import.meta.url), 'utf8'))
const seqOf = (events: readonly KernelEvent[], type: KernelEvent['type'], id?: string) =>
  events.find((e) => e.type === type && (id === undefined || ('toolUseId' in e && e.toolUseId === id)))?.seq ?? -1

/** Tools shaped like the ones in the recorded streams. Each answers what it was asked. */
function streamTools(log: string[] = []) {
  const tool = (name: string, schema: z.ZodObject, safe: boolean) =>
    buildTool({
      name,
      description: () => name,
      inputSchema: schema,
      isConcurrencySafe: () => safe,
      async call(input: Record<string, unknown>) {
        log.push(`${name} start`)
        await new Promise((r) => setTimeout(r, 5))
        log.push(`${name} end`)
        return `${name} ${JSON.stringify(input)}`
      },
    })
  return [
    tool(
      'Read',
      z.object({ file_path: z.string(), offset: z.number().optional(), limit: z.number().optional() }),
      true,
    ),
    tool(
      'Grep',
      z.object({
        pattern: z.string(),
        path: z.string().optional(),
        output_mode: z.string().optional(),
        glob: z.string().optional(),
      }),
      true,
    ),
    tool('Glob', z.object({ pattern: z.string(), path: z.string().optional() }), true),
    tool(
      'Bash',
      z.object({ command: z.string(), description: z.string().optional(), timeout: z.number().optional() }),
      false,
    ),
    tool('Write', z.object({ file_path: z.string(), content: z.string() }), false),
  ]
}

describe('Anthropic stream intake (recorded fixtures)', () => {
  it('parallel reads: assembles split JSON (a \\u escape split mid-way included), starts safe calls before the stream ends', async () => {
    const kernel = testKernel(streamTools())
    const turn = kernel.startTurn()
    for (const event of fixture('anthropic-parallel-reads.sse')) turn.push(event)
    const { message, events } = await turn.result()
    expect(message.content.map((b) => b.tool_use_id)).toEqual([
      'toolu_01A09q90qw90lq917835lq9',
      'toolu_01B7hLzQ5kKv3Jp1Ms6wWc2R',
      'toolu_01C4nR8sTqYx2Vb6Ko9dPf3M',
    ])
    expect(message.content.every((b) => b.is_error !== true)).toBe(true)
    expect(JSON.stringify(message)).toContain('é')
    expect(seqOf(events, 'tool.dispatched', 'toolu_01A09q90qw90lq917835lq9')).toBeLessThan(seqOf(events, 'turn.ended'))
  })

  it('thinking, text, then Bash (unsafe) and Read: Bash waits for the end of the message, Read for Bash', async () => {
    const order: string[] = []
    const kernel = testKernel(streamTools(order))
    const turn = kernel.startTurn()
    for (const event of fixture('anthropic-thinking-bash-read.sse')) turn.push(event)
    const { message, events } = await turn.result()
    expect(message.content).toHaveLength(2)
    const [bash, read] = message.content.map((b) => b.tool_use_id) as [string, string]
    expect(seqOf(events, 'tool.dispatched', bash)).toBeGreaterThan(seqOf(events, 'turn.ended'))
    expect(order).toEqual(['Bash start', 'Bash end', 'Read start', 'Read end'])
    expect(read).toBeDefined()
  })

  it('max_tokens: the Write whose JSON was cut off gets an error saying so, and nothing runs', async () => {
    const order: string[] = []
    const turn = testKernel(streamTools(order)).startTurn()
    for (const event of fixture('anthropic-max-tokens-truncated.sse')) turn.push(event)
    const { message } = await turn.result()
    expect(order).toEqual([])
    expect(message.content).toHaveLength(1)
    expect(message.content[0]?.is_error).toBe(true)
    expect(message.content[0]?.content).toMatch(
      /^<tool_use_error>The input for Write is not valid JSON \(it was cut off after \d+ characters, before the JSON was complete\), so the call did not run/,
    )
  })

  it('overloaded mid-stream: the complete Glob runs early and keeps its result; the cut-off Read gets an error', async () => {
    const order: string[] = []
    const turn = testKernel(streamTools(order)).startTurn()
    for (const event of fixture('anthropic-overloaded-midstream.sse')) turn.push(event)
    const { message, events } = await turn.result()
    expect(order).toEqual(['Glob start', 'Glob end'])
    expect(message.content).toHaveLength(2)
    expect(message.content[0]?.is_error).toBeUndefined()
    expect(message.content[1]?.content).toMatch(
      /cut off before the JSON was complete — the stream failed: overloaded_error/,
    )
    expect(events.find((e) => e.type === 'turn.ended')).toMatchObject({ stopReason: 'error' })
  })

  it('rejects malformed events with a specific error, and events after the end', () => {
    const turn = testKernel(streamTools()).startTurn()
    expect(() => turn.push(42)).toThrow(/Anthropic stream event with a string "type", got number/)
    expect(() =>
      turn.push({ type: 'content_block_start', index: -1, content_block: { type: 'tool_use', id: 'x', name: 'Read' } }),
    ).toThrow(/malformed content_block_start event/)
    expect(() =>
      turn.push({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', name: 'Read' } }),
    ).toThrow(/needs an id and a name/)
    turn.push({ type: 'some_future_event' })
    turn.end()
    expect(() => turn.push({ type: 'ping' })).toThrow(/has (ended|finished)/)
  })
})

describe('OpenAI', () => {
  it('streamed tool_calls deltas run through the same intake, and answer as role: tool messages', async () => {
    const turn = testKernel(streamTools()).startTurn()
    for (const chunk of fixture('openai-parallel-tool-calls.sse')) turn.pushOpenAI(chunk)
    const { message, events } = await turn.result()
    expect(events.find((e) => e.type === 'turn.ended')).toMatchObject({ stopReason: 'tool_use' })
    // The first call is complete when the second begins: it starts before the stream ends.
    expect(seqOf(events, 'tool.dispatched', 'call_Xk2a9Qm1L3pZ8rT5vW7yB4nC')).toBeLessThan(seqOf(events, 'turn.ended'))
    expect(toOpenAIToolMessages(message)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_Xk2a9Qm1L3pZ8rT5vW7yB4nC',
        content: 'Read {"file_path":"/project/README.md"}',
      },
      {
        role: 'tool',
        tool_call_id: 'call_Jd6f0Hs4G8kE2uY1tR9oP3aQ',
        content: 'Grep {"pattern":"TODO","path":"/project/src","output_mode":"count"}',
      },
    ])
  })

  it('runTurn takes an OpenAI assistant message, malformed arguments included', async () => {
    const { message } = await testKernel(streamTools()).runTurn({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'Glob', arguments: '{"pattern":"**/*.ts"}' } },
        { id: 'c2', type: 'function', function: { name: 'Glob', arguments: '{"pattern": src}' } },
      ],
    })
    expect(message.content[0]?.content).toBe('Glob {"pattern":"**/*.ts"}')
    expect(message.content[1]?.content).toMatch(
      /^<tool_use_error>The input for Glob is not valid JSON \(Unexpected token/,
    )
  })

  it('turns images into a note, since tool messages carry text only', () => {
    expect(
      toOpenAIToolMessages({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'x',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } },
            ],
          },
        ],
      }),
    ).toEqual([
      {
        role: 'tool',
        tool_call_id: 'x',
        content: 'see\n[image (image/png) left out: OpenAI tool messages carry text only]',
      },
    ])
  })
})

describe('streaming turns', () => {
  const block = (index: number, id: string, name: string, input: unknown) => [
    { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } },
    { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } },
    { type: 'content_block_stop', index },
  ]

  it('updates() yields start, progress and completion as they happen, and a safe call finishes before the stream ends', async () => {
    const Slow = buildTool({
      name: 'Slow',
      description: () => 's',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      async *call() {
        yield 'half'
        return 'done'
      },
    })
    const kernel = testKernel([Slow])
    const turn = kernel.startTurn()
    const seen: TurnUpdate['type'][] = []
    const reading = (async () => {
      for await (const update of turn.updates()) seen.push(update.type)
    })()
    for (const e of block(0, 'a', 'Slow', {})) turn.push(e)
    await new Promise((r) => setTimeout(r, 5))
    expect(seen).toEqual(['started', 'progress', 'completed'])
    turn.push({ type: 'message_delta', delta: { stop_reason: 'tool_use' } })
    turn.push({ type: 'message_stop' })
    await reading
    expect((await turn.result()).message.content[0]?.content).toBe('done')
  })

  it("earlyStart 'none' starts nothing before the end; 'all' starts unsafe calls early too", async () => {
    const Unsafe = buildTool({
      name: 'Unsafe',
      description: () => 'u',
      inputSchema: z.object({}),
      call: async () => 'u',
    })
    for (const [mode, early] of [
      ['none', false],
      ['all', true],
    ] as const) {
      const turn = testKernel([Unsafe]).startTurn({ earlyStart: mode })
      for (const e of block(0, 'a', 'Unsafe', {})) turn.push(e)
      await new Promise((r) => setTimeout(r, 1))
      turn.end('tool_use')
      const { events } = await turn.result()
      expect(seqOf(events, 'tool.dispatched', 'a') < seqOf(events, 'turn.ended')).toBe(early)
    }
  })

  it('a stop reason other than tool use voids calls not yet started; running ones finish', async () => {
    const release = gate()
    const Safe = buildTool({
      name: 'Safe',
      description: () => 's',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      call: async () => {
        await release.opened
        return 'kept'
      },
    })
    const Unsafe = buildTool({
      name: 'Unsafe',
      description: () => 'u',
      inputSchema: z.object({}),
      call: async () => 'ran',
    })
    const turn = testKernel([Safe, Unsafe]).startTurn()
    for (const e of [...block(0, 'a', 'Safe', {}), ...block(1, 'b', 'Unsafe', {})]) turn.push(e)
    turn.push({ type: 'message_delta', delta: { stop_reason: 'refusal' } })
    turn.push({ type: 'message_stop' })
    release.open()
    const { message } = await turn.result()
    expect(message.content.map((b) => b.content)).toEqual([
      'kept',
      'Unsafe was cancelled before it ran: the message ended with stop reason "refusal" instead of tool use, so calls not yet started were not run. It had no effect; call it again if it is still needed.',
    ])
  })

  it('runTurn with stop_reason max_tokens runs nothing', async () => {
    let ran = false
    const Safe = buildTool({
      name: 'Safe',
      description: () => 's',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      call: async () => String((ran = true)),
    })
    const { message } = await testKernel([Safe]).runTurn({
      role: 'assistant',
      stop_reason: 'max_tokens',
      content: [{ type: 'tool_use', id: 'a', name: 'Safe', input: {} }],
    })
    expect(ran).toBe(false)
    expect(message.content[0]?.content).toMatch(/stop reason "max_tokens" instead of tool use/)
  })

  it('sibling cascade: a failing Bash-like call stops its running siblings and voids queued ones; later batches run', async () => {
    const started = gate()
    const Shell = buildTool({
      name: 'Shell',
      description: () => 's',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      cascadesOnFailure: true,
      call: async () => {
        await started.opened
        throw new Error('exit status 127')
      },
    })
    const Wait = buildTool({
      name: 'Wait',
      description: () => 'w',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      async call(_i, ctx) {
        started.open()
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        return 'never'
      },
    })
    const After = buildTool({
      name: 'After',
      description: () => 'a',
      inputSchema: z.object({}),
      call: async () => 'after ran',
    })
    const kernel = testKernel([Shell, Wait, After], { maxConcurrency: 2 })
    const { message, events } = await kernel.runTurn({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'sh', name: 'Shell', input: {} },
        { type: 'tool_use', id: 'w1', name: 'Wait', input: {} },
        { type: 'tool_use', id: 'w2', name: 'Wait', input: {} },
        { type: 'tool_use', id: 'after', name: 'After', input: {} },
      ],
    })
    expect(message.content.map((b) => b.content)).toEqual([
      'Shell failed: exit status 127',
      expect.stringMatching(
        /^Wait was interrupted while running: a parallel call \(Shell sh\) failed, so its siblings were stopped\./,
      ),
      expect.stringMatching(/^Wait was cancelled before it ran: a parallel call \(Shell sh\) failed/),
      'after ran',
    ])
    expect(events.find((e) => e.type === 'tool.cascaded')).toMatchObject({ toolUseId: 'sh', siblings: ['w1', 'w2'] })
  })

  it('discard(): running calls stop, nothing is emitted for the turn, and the log says so', async () => {
    const started = gate()
    const Block = buildTool({
      name: 'Block',
      description: () => 'b',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      async call(_i, ctx) {
        started.open()
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        return 'stopped'
      },
    })
    const kernel = testKernel([Block])
    const turn = kernel.startTurn()
    const updates: string[] = []
    const reading = (async () => {
      for await (const u of turn.updates()) updates.push(`${u.type}:${u.toolUseId}`)
    })()
    for (const e of block(0, 'a', 'Block', {})) turn.push(e)
    await started.opened
    turn.discard()
    const result = await turn.result()
    await reading
    expect(result).toMatchObject({ discarded: true, message: { role: 'user', content: [] } })
    expect(updates).toEqual(['started:a'])
    expect(result.events.some((e) => e.type === 'turn.discarded')).toBe(true)
    expect(projectMessages(kernel.log.read())).toEqual([])
  })

  it('an abort mid-stream cancels the block still streaming, so it gets its result too', async () => {
    const controller = new AbortController()
    const turn = testKernel(streamTools()).startTurn({ signal: controller.signal })
    turn.push({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'half', name: 'Read', input: {} },
    })
    turn.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"file_' } })
    controller.abort()
    const { message } = await turn.result()
    expect(message.content.map((b) => b.tool_use_id)).toEqual(['half'])
    expect(message.content[0]?.is_error).toBe(true)
    expect(() => turn.push({ type: 'ping' })).toThrow(/has finished/)
  })
})
