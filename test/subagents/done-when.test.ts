/**
 * Issue 31's Done-when, on one log: a parent turn whose Agent call runs a child turn of three
 * calls — one denied by an inherited deny rule, one pending approval answered later, one aborted
 * while it runs — gives the parent message a run without nesting gives, a timeline and an OTel
 * trace with the child's calls under the parent's, and replays without divergence. The abort is
 * the person's: they answer the approval, then press stop while the third call still runs (the
 * parent turn's signal, which reaches the child through the Agent call). The child's model is the
 * loopback model API through the real Anthropic SDK.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createAgentTool,
  createKernel,
  projectMessages,
  replay,
  type AgentModel,
  type Kernel,
  type KernelEvent,
  type Tool,
} from '../../src/index.js'
import { createTelemetryExporter, projectTelemetry } from '../../src/otel/index.js'
import { projectTimelineModel } from '../../src/projections/timeline-model.projection.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { tracing } from '../otel/otel-helpers.js'
import { loopbackAgentModel } from './subagent-helpers.js'

let api: ModelApi
beforeEach(async () => {
  api = await startModelApi()
})
afterEach(async () => {
  await api.close()
})

type Message = Parameters<Kernel['runTurn']>[0]

const agentModel = (): AgentModel => loopbackAgentModel(api.url)

/** Remove (the parent denies it), Deploy (asks a person), Slow (runs until it is stopped). */
function childTools(): { tools: Tool[]; slowStarted: Promise<void> } {
  let started = (): void => undefined
  const slowStarted = new Promise<void>((resolve) => (started = resolve))
  const schema = z.object({ what: z.string() })
  const tools = [
    buildTool({
      name: 'Remove',
      description: () => 'Removes a thing.',
      inputSchema: schema,
      call: async ({ what }) => `removed ${what}`,
    }),
    buildTool({
      name: 'Deploy',
      description: () => 'Deploys.',
      inputSchema: schema,
      checkPermissions: () => ({ behavior: 'ask', message: 'deploys need a person' }),
      call: async ({ what }) => `deployed ${what}`,
    }),
    buildTool({
      name: 'Slow',
      description: () => 'Waits until it is stopped.',
      inputSchema: schema,
      interruptBehavior: () => 'cancel',
      call: (_input, { signal }) => {
        started()
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped'))))
      },
    }),
  ]
  return { tools, slowStarted }
}

const agentCall = (id: string): Message =>
  ({
    role: 'assistant',
    stop_reason: 'tool_use',
    content: [{ type: 'tool_use', id, name: 'Agent', input: { description: 'Deploy it', prompt: 'Deploy staging.' } }],
  }) as Message

const STOP = 'the user pressed stop'

/** Resolves once the log has an event `found` picks. */
function logged(kernel: Kernel, found: (event: KernelEvent) => boolean): Promise<void> {
  if (kernel.log.read().some(found)) return Promise.resolve()
  return new Promise((resolve) => {
    const sub = kernel.log.events$.subscribe((event) => {
      if (!found(event)) return
      sub.unsubscribe()
      resolve()
    })
  })
}

/** The nested run: the three child calls, the approval answered, then stop while Slow runs. */
async function nestedRun() {
  api.script({
    calls: [
      { name: 'Remove', input: { what: 'cache' } },
      { name: 'Deploy', input: { what: 'staging' } },
      { name: 'Slow', input: { what: 'wait' } },
    ],
  })
  const { tools, slowStarted } = childTools()
  const kernel = createKernel({
    tools: [...tools, createAgentTool({ model: agentModel() })],
    permissions: { deny: ['Remove'] },
  })
  const stop = new AbortController()
  const first = await kernel.runTurn(agentCall('a1'), { signal: stop.signal })
  const pending = first.pending.map((p) => [p.tool, p.parentToolUseId])
  const deploy = first.pending[0]?.toolUseId ?? ''
  const done = kernel.answer(deploy, { behavior: 'allow' })
  // Deploy ran with the person's answer; Slow is running (it has no deadline) when they press stop.
  await logged(kernel, (e) => e.type === 'tool.result' && e.toolUseId === deploy)
  await slowStarted
  stop.abort(STOP)
  const result = await done
  await logged(kernel, (e) => e.parentToolUseId === 'a1' && e.type === 'turn.completed')
  return { kernel, pending, result }
}

describe("issue 31's Done-when: denied, answered later and aborted child calls", () => {
  it('the parent message equals the run without nesting; the timeline, the trace and replay agree', async () => {
    const { kernel, pending, result } = await nestedRun()
    expect(pending).toEqual([['Deploy', 'a1']])
    const log = kernel.log.read()

    // The child's three calls, each as the scenario says.
    const child = log.filter((e) => e.parentToolUseId === 'a1')
    const outcome = (name: string) => {
      const requested = child.find((e) => e.type === 'tool.requested' && e.name === name)
      const id = requested?.type === 'tool.requested' ? requested.toolUseId : undefined
      return child.find((e) => e.type === 'tool.result' && e.toolUseId === id)
    }
    expect(outcome('Remove')).toMatchObject({ outcome: 'error' })
    expect(JSON.stringify(outcome('Remove'))).toContain('Permission to use Remove')
    expect(log.some((e) => e.type === 'permission.answered' && e.parentToolUseId === 'a1')).toBe(true)
    expect(outcome('Deploy')).toMatchObject({ outcome: 'success' })
    expect(outcome('Slow')).toMatchObject({ outcome: 'cancelled' })
    // Aborted, not timed out: no deadline was involved.
    expect(log.some((e) => e.type === 'tool.timed_out')).toBe(false)
    expect(child.some((e) => e.type === 'tool.cancelled' && e.reason.includes(STOP))).toBe(true)

    // The parent message is the one a run without nesting gives for the same stop.
    const stop = new AbortController()
    let running = (): void => undefined
    const runningNow = new Promise<void>((resolve) => (running = resolve))
    const plain = createKernel({
      tools: [
        buildTool({
          name: 'Agent',
          description: () => 'Stands in for the subagent.',
          inputSchema: z.object({ description: z.string(), prompt: z.string() }),
          interruptBehavior: () => 'cancel',
          call: (_input, { signal }) => {
            running()
            return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('x'))))
          },
        }),
      ],
    })
    const flat = plain.runTurn(agentCall('a1'), { signal: stop.signal })
    await runningNow
    stop.abort(STOP)
    expect(result.message).toEqual((await flat).message)
    expect(result.message.content[0]).toMatchObject({ tool_use_id: 'a1', is_error: true })
    expect(projectMessages(log)).toEqual([result.message])

    // The timeline puts the child's calls under the Agent call.
    const model = projectTimelineModel(log)
    expect(model.turns.map((t) => [t.parent, t.depth])).toEqual([
      [null, 0],
      ['a1', 1],
    ])
    expect(model.calls.map((c) => [c.tool, c.depth, c.outcome])).toEqual([
      ['Agent', 0, 'cancelled'],
      ['Remove', 1, 'error'],
      ['Deploy', 1, 'success'],
      ['Slow', 1, 'cancelled'],
    ])

    // The OTel trace hangs them under the Agent call's span, through the child turn's.
    const { exporter, tracer } = tracing()
    const telemetry = createTelemetryExporter({ tracer, session: 's1' })
    telemetry.export(projectTelemetry(log))
    telemetry.end()
    const spans = exporter.getFinishedSpans()
    const agent = spans.find((s) => s.name === 'execute_tool Agent')
    const bySpanId = new Map(spans.map((s) => [s.spanContext().spanId, s]))
    const childSpans = spans.filter((s) =>
      ['execute_tool Remove', 'execute_tool Deploy', 'execute_tool Slow'].includes(s.name),
    )
    expect(childSpans.map((s) => s.name).sort()).toEqual([
      'execute_tool Deploy',
      'execute_tool Remove',
      'execute_tool Slow',
    ])
    for (const span of childSpans) {
      expect(span.spanContext().traceId).toBe(agent?.spanContext().traceId)
      const childTurn = bySpanId.get(span.parentSpanContext?.spanId ?? '')
      expect(childTurn?.name).toBe('toolkernel.turn')
      expect(childTurn?.parentSpanContext?.spanId).toBe(agent?.spanContext().spanId)
    }

    // And the log replays without divergence, child turn and all.
    const replayed = await replay(log, { tools: kernel.tools })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
    await kernel.close()
  })
})
