/**
 * Golden traces: a real kernel run instrumented live with the SDK's in-memory exporters, one
 * scenario per way a call can end; and the same log re-projected gives the same spans.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { Bash, buildTool } from '../../src/index.js'
import { Echo } from '../helpers.js'
import { byName, liveTurn, reexport, shape } from './otel-helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-otel-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const Reader = buildTool({
  name: 'Reader',
  description: () => 'Reads a file of the scratch directory.',
  inputSchema: z.object({ name: z.string() }),
  isConcurrencySafe: () => true,
  call: async ({ name }) => await readFile(join(dir, name), 'utf8'),
})

const Typed = buildTool({
  name: 'Typed',
  description: () => 'Throws a TypeError.',
  inputSchema: z.object({}),
  call: async () => {
    throw new TypeError('cannot read properties of undefined')
  },
})

describe('execute_tool spans', () => {
  it('a successful call: one INTERNAL span with the GenAI attributes, its steps as events, under a root turn span', async () => {
    const { spans } = await liveTurn([Echo], [['e1', 'Echo', { text: 'hi' }]])
    const [call] = byName(spans, 'execute_tool Echo')
    const [turn] = byName(spans, 'toolkernel.turn')
    expect(call?.kind).toBe(SpanKind.INTERNAL)
    expect(call?.status.code).toBe(SpanStatusCode.UNSET)
    expect(call?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'Echo',
      'gen_ai.tool.call.id': 'e1',
      'gen_ai.tool.type': 'function',
      'toolkernel.call.outcome': 'success',
    })
    expect(call?.attributes['error.type']).toBeUndefined()
    expect(call?.attributes['gen_ai.tool.call.arguments']).toBeUndefined()
    expect(call?.events.map((e) => e.name)).toEqual([
      'tool.requested',
      'tool.queued',
      'tool.dispatched',
      'tool.parsed',
      'tool.validated',
      'tool.permitted',
      'tool.started',
      'tool.completed',
      'tool.mapped',
      'tool.result',
    ])
    expect(turn?.parentSpanContext).toBeUndefined()
    expect(call?.parentSpanContext?.spanId).toBe(turn?.spanContext().spanId)
    expect(call?.spanContext().traceId).toBe(turn?.spanContext().traceId)
  })

  it('arguments and result only on opt-in, cut to the limit', async () => {
    const { spans } = await liveTurn(
      [Echo],
      [['e1', 'Echo', { text: 'x'.repeat(50) }]],
      {},
      {
        telemetry: { captureContent: true, maxContentChars: 20, descriptions: new Map([['Echo', 'Echoes its text.']]) },
      },
    )
    const [call] = byName(spans, 'execute_tool Echo')
    expect(call?.attributes['gen_ai.tool.call.arguments']).toBe(`{"text":"xxxxxxxxxx…`)
    expect(call?.attributes['gen_ai.tool.call.result']).toBe(`${'x'.repeat(19)}…`)
    expect(call?.attributes['gen_ai.tool.description']).toBe('Echoes its text.')
  })

  it('invalid input: error status, error.type invalid_input, no run time', async () => {
    const { spans, metrics } = await liveTurn([Echo], [['e1', 'Echo', { text: 5 }]])
    const [call] = byName(spans, 'execute_tool Echo')
    expect(call?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'invalid_input' })
    expect(call?.attributes).toMatchObject({ 'error.type': 'invalid_input', 'toolkernel.call.failed_step': 'validate' })
    const points = await metrics.points()
    expect(points.get('gen_ai.execute_tool.duration')?.[0]?.attributes).toMatchObject({ 'error.type': 'invalid_input' })
    expect(points.has('toolkernel.tool.run.duration')).toBe(false)
  })

  it('an unknown tool keeps the name the model wrote, and error.type unknown_tool', async () => {
    const { spans } = await liveTurn([Echo], [['u1', 'Ech0', {}]])
    expect(byName(spans, 'execute_tool Ech0')[0]?.attributes['error.type']).toBe('unknown_tool')
  })

  it('permission denied by a rule', async () => {
    const { spans } = await liveTurn([Echo], [['e1', 'Echo', { text: 'x' }]], { permissions: { deny: ['Echo'] } })
    const [call] = byName(spans, 'execute_tool Echo')
    expect(call?.attributes).toMatchObject({
      'error.type': 'permission_denied',
      'toolkernel.permission.behavior': 'deny',
      'toolkernel.permission.source': 'rule',
    })
    expect(byName(spans, 'toolkernel.permission_wait')).toEqual([])
  })

  it('a person asked: a permission-wait child span and its own histogram, apart from the run time', async () => {
    const { spans, metrics } = await liveTurn([Echo], [['e1', 'Echo', { text: 'x' }]], {
      permissions: { ask: ['Echo'] },
      canUseTool: async () => ({ behavior: 'allow' }),
    })
    const [call] = byName(spans, 'execute_tool Echo')
    const [wait] = byName(spans, 'toolkernel.permission_wait')
    expect(wait?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId)
    expect(wait?.attributes).toMatchObject({
      'toolkernel.permission.behavior': 'allow',
      'toolkernel.permission.source': 'user',
    })
    const points = await metrics.points()
    expect(points.get('toolkernel.tool.permission.wait_time')?.[0]).toMatchObject({ count: 1, unit: 's' })
    expect(points.get('toolkernel.tool.run.duration')?.[0]).toMatchObject({ count: 1 })
    expect(points.get('toolkernel.tool.queue.wait_time')?.[0]).toMatchObject({ count: 1 })
  })

  it('a hook block: the hook as a child span, the call hook_blocked', async () => {
    const hooks = {
      PreToolUse: [
        {
          matcher: 'Echo',
          hooks: [
            { type: 'function' as const, name: 'guard', fn: () => ({ decision: 'block' as const, reason: 'no' }) },
          ],
        },
      ],
    }
    const { spans } = await liveTurn([Echo], [['e1', 'Echo', { text: 'x' }]], { hooks })
    const [call] = byName(spans, 'execute_tool Echo')
    const [hook] = byName(spans, 'toolkernel.hook PreToolUse')
    expect(call?.attributes['error.type']).toBe('hook_blocked')
    expect(hook?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId)
    expect(hook?.attributes).toMatchObject({ 'toolkernel.hook.phase': 'pre', 'toolkernel.hook.outcome': 'block' })
    expect(hook?.status.code).toBe(SpanStatusCode.ERROR)
  })

  it('a tool that throws ENOENT: error.type ENOENT; a TypeError: its name', async () => {
    const { spans, metrics } = await liveTurn(
      [Reader, Typed],
      [
        ['r1', 'Reader', { name: 'missing.txt' }],
        ['t1', 'Typed', {}],
      ],
    )
    expect(byName(spans, 'execute_tool Reader')[0]?.attributes).toMatchObject({
      'error.type': 'ENOENT',
      'toolkernel.call.failed_step': 'call',
    })
    expect(byName(spans, 'execute_tool Typed')[0]?.attributes['error.type']).toBe('TypeError')
    const run = (await metrics.points()).get('toolkernel.tool.run.duration') ?? []
    expect(run.map((p) => p.attributes['error.type']).sort()).toEqual(['ENOENT', 'TypeError'])
  })

  it('a tool whose mapper answers with an error block: error.type tool_error, though the outcome stays success', async () => {
    const Soft = buildTool({
      name: 'Soft',
      description: () => 'Reports failure in its result.',
      inputSchema: z.object({}),
      call: async () => 'nothing found',
      mapToolResultToToolResultBlockParam: (output, id) => ({
        type: 'tool_result',
        tool_use_id: id,
        content: String(output),
        is_error: true,
      }),
    })
    const { spans } = await liveTurn([Soft], [['s1', 'Soft', {}]])
    expect(byName(spans, 'execute_tool Soft')[0]?.attributes).toMatchObject({
      'error.type': 'tool_error',
      'toolkernel.call.outcome': 'success',
    })
  })

  it('a Bash timeout: a tool error (the log keeps no class for it, so error.type is Error)', async () => {
    const { spans } = await liveTurn([Bash], [['b1', 'Bash', { command: 'sleep 5', timeout: 200 }]], {
      permissions: { mode: 'bypassPermissions' },
      cwd: dir,
    })
    const [call] = byName(spans, 'execute_tool Bash')
    expect(call?.attributes).toMatchObject({ 'error.type': 'Error', 'toolkernel.call.outcome': 'error' })
    expect(call?.status.code).toBe(SpanStatusCode.ERROR)
  })

  it('abort: the running cancel tool is interrupted, the queued call cancelled', async () => {
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    const Wait = buildTool({
      name: 'Wait',
      description: () => 'Waits for its signal.',
      inputSchema: z.object({}),
      interruptBehavior: () => 'cancel',
      call: async (_input, ctx) => {
        started()
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
        return 'stopped'
      },
    })
    const controller = new AbortController()
    const turn = liveTurn(
      [Wait, Echo],
      [
        ['w1', 'Wait', {}],
        ['e1', 'Echo', { text: 'x' }],
      ],
      {},
      { signal: controller.signal },
    )
    await running
    controller.abort()
    const { spans } = await turn
    expect(byName(spans, 'execute_tool Wait')[0]?.attributes).toMatchObject({
      'error.type': 'interrupted',
      'toolkernel.call.outcome': 'cancelled',
    })
    expect(byName(spans, 'execute_tool Echo')[0]?.attributes['error.type']).toBe('cancelled')
  })
})

describe('a projection: live equals re-projected', () => {
  it('the same spans, ids and times from the stored log, and again on a second export', async () => {
    const { spans, events } = await liveTurn(
      [Echo, Reader],
      [
        ['e1', 'Echo', { text: 'a' }],
        ['r1', 'Reader', { name: 'nope' }],
        ['e2', 'Echo', { text: 5 }],
      ],
      { permissions: { ask: ['Reader'] }, canUseTool: async () => ({ behavior: 'allow' }) },
    )
    const sorted = (list: typeof spans) => list.map(shape).sort((a, b) => a.spanId.localeCompare(b.spanId))
    expect(spans.length).toBe(5)
    expect(sorted(reexport(events))).toEqual(sorted(spans))
    expect(sorted(reexport(events))).toEqual(sorted(reexport(events)))
  })
})
