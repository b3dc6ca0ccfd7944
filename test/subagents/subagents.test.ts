/**
 * Subagents (docs/subagents.md): a parent turn's Agent call runs a child session whose model is
 * the loopback model API through the real Anthropic SDK. The child's three calls — one denied by
 * the parent's deny rule, one parked for a person, one past its deadline — land in the parent's
 * log under the Agent call; the parent's message is the one a run without nesting gives, and the
 * log replays.
 */
import type Anthropic from '@anthropic-ai/sdk'
import { MessageStream } from '@anthropic-ai/sdk/lib/MessageStream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createAgentTool,
  createMemoryLog,
  recover,
  createKernel,
  projectMessages,
  replay,
  type AgentModel,
  type Kernel,
  type KernelEvent,
  type Tool,
} from '../../src/index.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { createTelemetryExporter, projectTelemetry } from '../../src/otel/index.js'
import { tracing } from '../otel/otel-helpers.js'
import { holdTool, loopbackAgentModel } from './subagent-helpers.js'
import { projectTimelineModel } from '../../src/projections/timeline-model.projection.js'
import { projectStats } from '../../src/projections/stats.projection.js'
import { fakeClock } from '../../src/testing/index.js'

let api: ModelApi
beforeEach(async () => {
  api = await startModelApi()
})
afterEach(async () => {
  await api.close()
})

type Message = Parameters<Kernel['runTurn']>[0]

const agentModel = (streaming = false): AgentModel => loopbackAgentModel(api.url, streaming)

/** The child's tools: what ran is noted in `ran`. */
function childTools(ran: string[]): Tool[] {
  const note = (name: string) => async (input: { what: string }) => {
    ran.push(`${name} ${input.what}`)
    return `${name} did ${input.what}`
  }
  const schema = z.object({ what: z.string() })
  return [
    buildTool({ name: 'Remove', description: () => 'Removes a thing.', inputSchema: schema, call: note('Remove') }),
    buildTool({
      name: 'Deploy',
      description: () => 'Deploys.',
      inputSchema: schema,
      call: note('Deploy'),
      checkPermissions: () => ({ behavior: 'ask', message: 'deploys need a person' }),
    }),
    buildTool({
      name: 'Slow',
      description: () => 'Waits until it is stopped.',
      inputSchema: schema,
      interruptBehavior: () => 'cancel',
      timeoutMs: 25,
      call: (_input, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
    }),
  ]
}

const agentCall = (id: string): Message =>
  ({
    role: 'assistant',
    stop_reason: 'tool_use',
    content: [{ type: 'tool_use', id, name: 'Agent', input: { description: 'Deploy it', prompt: 'Deploy staging.' } }],
  }) as Message

const CHILD_CALLS = [
  { name: 'Remove', input: { what: 'cache' } },
  { name: 'Deploy', input: { what: 'staging' } },
  { name: 'Slow', input: { what: 'wait' } },
]

function kernelWith(ran: string[], extra: Partial<Parameters<typeof createKernel>[0]> = {}): Kernel {
  return createKernel({
    tools: [...childTools(ran), createAgentTool({ model: agentModel() })],
    permissions: { deny: ['Remove'] },
    ...extra,
  })
}

describe('a parent turn whose Agent call runs a child session', () => {
  it('denied, parked and timed-out child calls: the parent waits, then gets the report', async () => {
    api.script({ calls: CHILD_CALLS }, { text: 'Deployed staging; the cache could not be removed.' })
    const ran: string[] = []
    const kernel = kernelWith(ran)
    const first = await kernel.runTurn(agentCall('a1'))
    // The child's Deploy waits for a person: the parent's turn is parked on it.
    expect(first.pending.map((p) => [p.tool, p.parentToolUseId])).toEqual([['Deploy', 'a1']])
    expect(kernel.pendingApprovals().map((p) => p.toolUseId)).toEqual([first.pending[0]?.toolUseId])
    expect(ran).toEqual([])
    const done = await kernel.answer(first.pending[0]?.toolUseId ?? '', { behavior: 'allow' })
    expect(done.pending).toEqual([])
    expect(ran).toEqual(['Deploy staging'])
    expect(done.message).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a1', content: 'Deployed staging; the cache could not be removed.' },
      ],
    })
    expect(api.rejected()).toEqual([])
    // The child's model saw its three results, in tool_use order, and only the child's tools.
    const second = api.requests[1]?.body as { messages: Anthropic.MessageParam[]; tools: Array<{ name: string }> }
    expect(second.tools.map((t) => t.name)).toEqual(['Deploy', 'Slow'])
    const results = (second.messages.at(-1)?.content as Anthropic.ToolResultBlockParam[]).map((b) => [
      b.is_error === true,
      String(b.content),
    ])
    expect(results).toEqual([
      [true, expect.stringContaining('Permission to use Remove') as unknown as string],
      [false, 'Deploy did staging'],
      [true, expect.stringMatching(/time|deadline/) as unknown as string],
    ])
    // The session's conversation holds only the parent's message.
    const log = kernel.log.read()
    expect(projectMessages(log)).toEqual([done.message])
    const child = log.filter((e) => e.parentToolUseId === 'a1')
    expect(new Set(child.map((e) => e.turnId)).size).toBe(1)
    expect(child[0]).toMatchObject({ type: 'turn.started', child: { tools: ['Remove', 'Deploy', 'Slow'] } })
    expect(child.filter((e) => e.type === 'tool.result')).toHaveLength(3)
    await kernel.close()
  })

  it("a model port that streams (the SDK's messages.stream) gives the same report and child turn", async () => {
    api.script({ calls: CHILD_CALLS.slice(0, 1) }, { text: 'The cache could not be removed.' })
    const kernel = createKernel({
      tools: [...childTools([]), createAgentTool({ model: agentModel(true) })],
      permissions: { deny: ['Remove'] },
    })
    const { message } = await kernel.runTurn(agentCall('a1'))
    expect(message.content).toEqual([
      { type: 'tool_result', tool_use_id: 'a1', content: 'The cache could not be removed.' },
    ])
    expect(api.requests.map((r) => (r.body as { stream?: boolean }).stream)).toEqual([true, true])
    const child = kernel.log.read().filter((e) => e.parentToolUseId === 'a1' && e.type === 'tool.result')
    expect(child).toHaveLength(1)
    // A plain iterable of events, with no finalMessage(), is refused in words.
    const bare = createKernel({
      tools: [
        ...childTools([]),
        createAgentTool({ model: (async () => (async function* () {})()) as unknown as AgentModel }),
      ],
    })
    const refused = await bare.runTurn(agentCall('a2'))
    expect(JSON.stringify(refused.message.content)).toContain('finalMessage')
  })

  it("a streamed child message starts its safe calls before the stream ends (the SDK's MessageStream)", async () => {
    const { Look, ran } = lookTool()
    let startedBeforeEnd: boolean | undefined
    /** The child model's first answer: one tool_use; the stream holds its end until Look ran (or 200 ticks). */
    const first = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(jsonLines([messageStart('msg_1'), ...toolUseEvents('toolu_1', { at: 'the sky' })]))
        await ticksUntil(ran)
        startedBeforeEnd = ran()
        controller.enqueue(jsonLines(messageEnd('tool_use')))
        controller.close()
      },
    })
    const last = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          jsonLines([
            messageStart('msg_2'),
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'It is blue.' } },
            { type: 'content_block_stop', index: 0 },
            ...messageEnd('end_turn'),
          ]),
        )
        controller.close()
      },
    })
    const answers = [first, last]
    const model: AgentModel = () => MessageStream.fromReadableStream(answers.shift() as ReadableStream)
    const kernel = createKernel({ tools: [Look, createAgentTool({ model })] })
    const { message: result } = await kernel.runTurn(agentCall('a1'))
    expect(result.content).toEqual([{ type: 'tool_result', tool_use_id: 'a1', content: 'It is blue.' }])
    expect(startedBeforeEnd).toBe(true)
    // In the log: the child's call was dispatched before its turn ended; a message without a call opened no turn.
    const log = kernel.log.read()
    const child = log.filter((e) => e.parentToolUseId === 'a1')
    expect(new Set(child.map((e) => e.turnId)).size).toBe(1)
    expect(child[0]).toMatchObject({ type: 'turn.started', mode: 'stream' })
    const at = (type: string) => child.findIndex((e) => e.type === type)
    expect(at('tool.dispatched')).toBeLessThan(at('turn.ended'))
    const replayed = await replay(log, { tools: kernel.tools })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('a child stream that breaks after a call started: the call keeps its result, the Agent call fails in words', async () => {
    const { Look, ran } = lookTool()
    const broken = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(jsonLines([messageStart('msg_1'), ...toolUseEvents('toolu_1', { at: 'x' })]))
        // Once Look has run (or 200 ticks passed): an error now drops nothing already read.
        await ticksUntil(ran)
        controller.error(new Error('connection reset'))
      },
    })
    const model: AgentModel = () => MessageStream.fromReadableStream(broken)
    const kernel = createKernel({ tools: [Look, createAgentTool({ model })] })
    const { message } = await kernel.runTurn(agentCall('a1'))
    expect(message.content).toEqual([
      { type: 'tool_result', tool_use_id: 'a1', is_error: true, content: expect.stringContaining('connection reset') },
    ])
    const child = kernel.log.read().filter((e) => e.parentToolUseId === 'a1')
    expect(child.filter((e) => e.type === 'tool.result')).toHaveLength(1)
    expect(child.at(-1)).toMatchObject({ type: 'turn.completed', results: 1 })
  })

  it("the parent's message equals the one a run without nesting gives", async () => {
    const report = 'Deployed staging; the cache could not be removed.'
    api.script({ calls: CHILD_CALLS }, { text: report })
    const nested = kernelWith([])
    const first = await nested.runTurn(agentCall('a1'))
    const done = await nested.answer(first.pending[0]?.toolUseId ?? '', { behavior: 'allow' })
    const plain = createKernel({
      tools: [
        buildTool({
          name: 'Agent',
          description: () => 'Stands in for the subagent.',
          inputSchema: z.object({ description: z.string(), prompt: z.string() }),
          call: async () => report,
        }),
      ],
    })
    const flat = await plain.runTurn(agentCall('a1'))
    expect(done.message).toEqual(flat.message)
  })

  it('replays without divergence, child turns and all', async () => {
    api.script({ calls: CHILD_CALLS }, { text: 'done' })
    const kernel = kernelWith([])
    const first = await kernel.runTurn(agentCall('a1'))
    await kernel.answer(first.pending[0]?.toolUseId ?? '', { behavior: 'allow' })
    const result = await replay(kernel.log.read(), { tools: kernel.tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
    expect(result.turns).toBe(2)
  })

  it("the OTel trace hangs the child's calls under the parent's Agent call", async () => {
    api.script({ calls: CHILD_CALLS }, { text: 'done' })
    const kernel = kernelWith([])
    const first = await kernel.runTurn(agentCall('a1'))
    await kernel.answer(first.pending[0]?.toolUseId ?? '', { behavior: 'allow' })
    const { exporter, tracer } = tracing()
    const telemetry = createTelemetryExporter({ tracer, session: 's1' })
    telemetry.export(projectTelemetry(kernel.log.read()))
    telemetry.end()
    const spans = exporter.getFinishedSpans()
    const agent = spans.find((s) => s.name === 'execute_tool Agent')
    const bySpanId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
    const childCalls = spans.filter((s) =>
      ['execute_tool Remove', 'execute_tool Deploy', 'execute_tool Slow'].includes(s.name),
    )
    expect(childCalls).toHaveLength(3)
    for (const span of childCalls) {
      expect(span.spanContext().traceId).toBe(agent?.spanContext().traceId)
      // call → the child's turn → the Agent call
      const childTurn = bySpanId.get(span.parentSpanContext?.spanId ?? '')
      expect(childTurn?.name).toBe('toolkernel.turn')
      expect(childTurn?.parentSpanContext?.spanId).toBe(agent?.spanContext().spanId)
    }
  })

  it('the timeline and the stats put the child calls under the Agent call', async () => {
    api.script({ calls: CHILD_CALLS }, { text: 'done' })
    const kernel = kernelWith([])
    const first = await kernel.runTurn(agentCall('a1'))
    await kernel.answer(first.pending[0]?.toolUseId ?? '', { behavior: 'allow' })
    const model = projectTimelineModel(kernel.log.read())
    expect(model.turns.map((t) => [t.parent, t.depth])).toEqual([
      [null, 0],
      ['a1', 1],
    ])
    expect(model.calls.map((c) => [c.tool, c.depth])).toEqual([
      ['Agent', 0],
      ['Remove', 1],
      ['Deploy', 1],
      ['Slow', 1],
    ])
    const stats = projectStats(kernel.log.read())
    expect({ ...stats.childCalls }).toEqual({ a1: 3 })
    expect(stats.timings.filter((t) => t.parentToolUseId === 'a1').map((t) => t.tool)).toEqual([
      'Remove',
      'Deploy',
      'Slow',
    ])
  })

  it('recovery closes a child session the process left waiting, and its parent call', async () => {
    api.script({ calls: CHILD_CALLS })
    const kernel = kernelWith([])
    const first = await kernel.runTurn(agentCall('a1'))
    expect(first.pending).toHaveLength(1)
    // The process ends here. Another kernel opens the log: nothing is left waiting.
    const log = createMemoryLog({ now: () => 0 })
    for (const event of kernel.log.read()) log.append(event)
    const resumed = kernelWith([]).resume(log)
    expect(resumed.pendingApprovals()).toEqual([])
    const events = resumed.log.read()
    const unanswered = events
      .filter((e) => e.type === 'tool.requested')
      .filter((r) => !events.some((e) => e.type === 'tool.result' && e.toolUseId === r.toolUseId))
    expect(unanswered).toEqual([])
    expect(projectMessages(events)).toEqual([
      { role: 'user', content: [expect.objectContaining({ tool_use_id: 'a1', is_error: true })] },
    ])
    expect(recover(events)).toEqual([])
    await expect(resumed.answer(first.pending[0]?.toolUseId ?? '', { behavior: 'allow' })).rejects.toThrow(
      /not waiting|no call|already has its result|has its result/i,
    )
  })

  it("the Agent call's deadline reaches the child's running call", async () => {
    const { hold, started } = holdTool()
    api.script({ calls: [{ name: 'Hold', input: {} }] })
    // A fake clock: the deadline passes when the test says, once the child's call is running.
    const clock = fakeClock()
    const kernel = createKernel({
      tools: [hold, createAgentTool({ model: agentModel(), timeoutMs: 60_000 })],
      ports: { clock },
    })
    const turn = kernel.runTurn(agentCall('a1'))
    await started
    clock.advance(60_000)
    const result = await turn
    expect(result.message.content[0]).toMatchObject({ tool_use_id: 'a1', is_error: true })
    expect(result.events.some((e) => e.type === 'tool.timed_out' && e.toolUseId === 'a1')).toBe(true)
    await waitForChildEnd(kernel)
    const childResults = kernel.log.read().filter((e) => e.parentToolUseId === 'a1' && e.type === 'tool.result')
    expect(childResults).toEqual([expect.objectContaining({ outcome: 'cancelled' })])
  })

  it("an abort of the parent's turn reaches the child's running call", async () => {
    const { hold, started } = holdTool()
    api.script({ calls: [{ name: 'Hold', input: {} }] })
    const kernel = createKernel({ tools: [hold, createAgentTool({ model: agentModel() })] })
    const controller = new AbortController()
    const turn = kernel.runTurn(agentCall('a1'), { signal: controller.signal })
    await started
    controller.abort('the user pressed stop')
    const result = await turn
    expect(result.message.content[0]).toMatchObject({ tool_use_id: 'a1', is_error: true })
    await waitForChildEnd(kernel)
    const log = kernel.log.read()
    const childResults = log.filter((e) => e.parentToolUseId === 'a1' && e.type === 'tool.result')
    expect(childResults).toEqual([expect.objectContaining({ outcome: 'cancelled' })])
  })
})

describe('a child only narrows its parent', () => {
  const echo = (name: string, readOnly = false) =>
    buildTool({
      name,
      description: () => name,
      inputSchema: z.object({}),
      isReadOnly: () => readOnly,
      // The rules decide: without one that allows it, the call asks (and is denied: approvals 'deny').
      checkPermissions: () => ({ behavior: 'ask', message: `${name} asks` }),
      call: async () => `${name} ran`,
    })

  /** A parent tool that opens a child with `options` and runs one call of `name` in it. */
  function opener(options: Record<string, unknown>, name: string): Tool {
    return buildTool({
      name: 'Open',
      description: () => 'Opens a child.',
      inputSchema: z.object({}),
      call: async (_input, context) => {
        const child = context.runChild?.(options)
        if (child === undefined) throw new Error('no runChild')
        const turn = await child.runTurn({
          role: 'assistant',
          stop_reason: 'tool_use',
          content: [{ type: 'tool_use', id: 'c1', name, input: {} }],
        })
        return JSON.stringify(turn.message.content[0])
      },
    })
  }

  async function childResult(options: Record<string, unknown>, name: string, kernelOptions = {}): Promise<string> {
    const kernel = createKernel({
      tools: [echo('Look', true), echo('Change'), opener(options, name)],
      approvals: 'deny',
      ...kernelOptions,
    })
    const { message } = await kernel.runTurn({
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: 'p1', name: 'Open', input: {} }],
    } as Message)
    return String(message.content[0]?.content)
  }

  it('allow rules intersect: a child allow the parent lacks allows nothing', async () => {
    const parent = { permissions: { allow: ['Look'] } }
    expect(await childResult({ rules: { allow: ['Look', 'Change'] } }, 'Change', parent)).toContain('is_error":true')
    expect(await childResult({ rules: { allow: ['Look', 'Change'] } }, 'Look', parent)).toContain('Look ran')
    expect(await childResult({ rules: { allow: [] } }, 'Look', parent)).toContain('is_error":true')
  })

  it("the parent's deny rules stay, and a looser mode is not taken", async () => {
    expect(await childResult({}, 'Look', { permissions: { deny: ['Look'] } })).toContain('denies it')
    const strict = { permissions: { mode: 'plan' } }
    expect(await childResult({ rules: { mode: 'bypassPermissions' } }, 'Change', strict)).toContain('plan mode')
  })

  it('bad options are refused by name', async () => {
    expect(await childResult({ tools: ['Nope'] }, 'Look')).toContain('"Nope" is not a tool of the parent')
    expect(await childResult({ rules: { mode: 'yolo' } }, 'Look')).toContain('rules.mode must be one of')
    expect(await childResult({ rules: { deny: ['Nope(x)'] } }, 'Look')).toMatch(/Nope/)
    expect(await childResult({ budget: { maxTurns: 0 } }, 'Look')).toContain(
      'budget.maxTurns must be a positive integer',
    )
    expect(await childResult({ model: 'x' }, 'Look')).toContain('unknown option "model"')
  })

  it('a child leaves out the calling tool unless named: Open cannot open itself', async () => {
    expect(await childResult({}, 'Open')).toContain('is_error":true')
  })
})

/** A read-only, concurrency-safe tool that says whether it has run. */
function lookTool(): { Look: Tool; ran: () => boolean } {
  let ran = false
  const Look = buildTool({
    name: 'Look',
    description: () => 'Looks.',
    inputSchema: z.object({ at: z.string() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async ({ at }) => {
      ran = true
      return `saw ${at}`
    },
  })
  return { Look, ran: () => ran }
}

/** Anthropic stream events as the SDK's `MessageStream.fromReadableStream` reads them: one JSON per line. */
const jsonLines = (events: readonly object[]) =>
  new TextEncoder().encode(events.map((event) => `${JSON.stringify(event)}\n`).join(''))

const USAGE = { input_tokens: 1, output_tokens: 1 }

const messageStart = (id: string) => ({
  type: 'message_start',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: USAGE,
  },
})

/** One tool_use block of a Look call, as the API streams it. */
const toolUseEvents = (id: string, input: object) => [
  { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name: 'Look', input: {} } },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } },
  { type: 'content_block_stop', index: 0 },
]

const messageEnd = (stopReason: string) => [
  { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: USAGE },
  { type: 'message_stop' },
]

/** Waits until `done`, or 200 turns of the event loop (no clock): long enough for a call that starts early. */
async function ticksUntil(done: () => boolean): Promise<void> {
  for (let tick = 0; tick < 200 && !done(); tick++) await new Promise((resolve) => setImmediate(resolve))
}

/** The child turn's own events may land just after the parent's result (an abort): wait for them. */
async function waitForChildEnd(kernel: Kernel): Promise<void> {
  const over = (events: readonly KernelEvent[]) =>
    events.some((e) => e.parentToolUseId !== undefined && e.type === 'turn.completed')
  if (over(kernel.log.read())) return
  await new Promise<void>((resolve) => {
    const sub = kernel.log.events$.subscribe(() => {
      if (!over(kernel.log.read())) return
      sub.unsubscribe()
      resolve()
    })
  })
}
