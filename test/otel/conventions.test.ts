/**
 * The GenAI and MCP semantic conventions beyond execute_tool: `gen_ai.conversation.id` from the
 * session on every span, and an MCP tool's call carrying `mcp.method.name` (tools/call) and the
 * server and tool its name stands for, read from the pool's `pool.changed` names.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createKernel, createMemoryEventStore, type KernelEvent } from '../../src/index.js'
import { createTelemetryExporter, instrumentKernel, projectTelemetry } from '../../src/otel/index.js'
import { assistant, Echo, testKernel } from '../helpers.js'
import { byName, tracing } from './otel-helpers.js'

function exported(events: readonly KernelEvent[], session?: string) {
  const { exporter, tracer } = tracing()
  const telemetry = createTelemetryExporter({ tracer, ...(session === undefined ? {} : { session }) })
  telemetry.export(projectTelemetry(events))
  telemetry.end()
  return exporter.getFinishedSpans()
}

describe('gen_ai.conversation.id', () => {
  it('is the session on every span (the call and its turn), and absent without one', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }]))
    const spans = exported(kernel.log.read(), 'session-42')
    expect(spans.length).toBeGreaterThanOrEqual(2)
    for (const span of spans) expect(span.attributes['gen_ai.conversation.id']).toBe('session-42')
    for (const span of exported(kernel.log.read())) expect(span.attributes['gen_ai.conversation.id']).toBeUndefined()
  })

  // A kernel over a store knows its session: instrumenting it names the conversation without
  // the app saying so again; an explicit `session` still wins.
  it.each([
    ['the kernel session by default', {}, 'session-7'],
    ['the session option over it', { session: 'app-conversation' }, 'app-conversation'],
  ])('live, for a kernel over a store: %s', async (_case, options, expected) => {
    const kernel = createKernel({ tools: [Echo], store: createMemoryEventStore(), session: 'session-7' })
    await kernel.ready()
    const { exporter, tracer } = tracing()
    const telemetry = instrumentKernel(kernel, { tracer, ...options })
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }]))
    telemetry.stop()
    await kernel.close()
    const spans = exporter.getFinishedSpans()
    expect(byName(spans, 'execute_tool Echo')).toHaveLength(1)
    expect(spans.length).toBeGreaterThanOrEqual(2)
    for (const span of spans) expect(span.attributes['gen_ai.conversation.id']).toBe(expected)
  })

  it('live, for a kernel over a log of its own: none unless given', async () => {
    const kernel = testKernel([Echo])
    const { exporter, tracer } = tracing()
    const telemetry = instrumentKernel(kernel, { tracer })
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }]))
    telemetry.stop()
    const spans = exporter.getFinishedSpans()
    expect(spans.length).toBeGreaterThanOrEqual(2)
    for (const span of spans) expect(span.attributes['gen_ai.conversation.id']).toBeUndefined()
  })
})

describe('MCP tool spans', () => {
  const Sum = buildTool({
    name: 'mcp__everything__get-sum',
    description: () => 'Adds two numbers.',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    isConcurrencySafe: () => true,
    call: async ({ a, b }) => String(a + b),
  })

  it('carry mcp.method.name and the server and tool the name stands for; other tools do not', async () => {
    const kernel = testKernel([Sum, Echo])
    await kernel.runTurn(assistant(['m1', 'mcp__everything__get-sum', { a: 1, b: 2 }], ['e1', 'Echo', { text: 'a' }]))
    const events = kernel.log.read()
    const first = events[0] as KernelEvent
    // The pool took the MCP server's tools in before the turn (as an MCP tool source records it).
    const changed = {
      ...first,
      type: 'pool.changed',
      source: 'mcp:everything',
      added: ['mcp__everything__get-sum'],
      removed: [],
      names: [{ name: 'mcp__everything__get-sum', server: 'everything', tool: 'get-sum' }],
    } as unknown as KernelEvent
    const spans = exported([changed, ...events])
    const [sum] = byName(spans, 'execute_tool mcp__everything__get-sum')
    expect(sum?.attributes).toMatchObject({
      'gen_ai.tool.name': 'mcp__everything__get-sum',
      'mcp.method.name': 'tools/call',
      'toolkernel.mcp.server': 'everything',
      'toolkernel.mcp.tool': 'get-sum',
    })
    const [echo] = byName(spans, 'execute_tool Echo')
    expect(echo?.attributes['mcp.method.name']).toBeUndefined()
    // Without the pool's names, a name that merely looks like MCP's gets none.
    expect(byName(exported(events), 'execute_tool mcp__everything__get-sum')[0]?.attributes['mcp.method.name']).toBe(
      undefined,
    )
  })
})
