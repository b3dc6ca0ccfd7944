/**
 * Where spans hang and how ids come out: the app's agent span as parent (captured when the turn
 * starts), replayed spans linked to their originals, ids derived only with the id generator,
 * nothing reduced with no provider, and the error classes of thrown values.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createJsonlLog, readJsonlFile } from '../../src/index.js'
import { replay } from '../../src/replay/replay.js'
import {
  classifyToolError,
  createTelemetryExporter,
  instrumentKernel,
  projectTelemetry,
  TelemetrySafeError,
} from '../../src/otel/index.js'
import { assistant, Echo, fixedClock, testKernel } from '../helpers.js'
import { byName, metering, reexport, shape, tracing } from './otel-helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-otel-ctx-'))
const manager = new AsyncLocalStorageContextManager()
beforeAll(() => void context.setGlobalContextManager(manager.enable()))
afterAll(() => {
  context.disable()
  rmSync(dir, { recursive: true, force: true })
})

describe('parent and child', () => {
  it("a turn run inside the app's agent span: its calls are children of that span, with no turn span", async () => {
    const { exporter, tracer } = tracing()
    const kernel = testKernel([Echo])
    const telemetry = instrumentKernel(kernel, { tracer })
    const agent = await tracer.startActiveSpan('invoke_agent demo', async (span) => {
      await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }], ['e2', 'Echo', { text: 'b' }]))
      span.end()
      return span
    })
    telemetry.stop()
    const spans = exporter.getFinishedSpans()
    const calls = spans.filter((s) => s.name === 'execute_tool Echo')
    expect(calls.length).toBe(2)
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(agent.spanContext().spanId)
      expect(call.spanContext().traceId).toBe(agent.spanContext().traceId)
    }
    expect(byName(spans, 'toolkernel.turn')).toEqual([])
    // Re-projected with the same parent, the stored log gives the same spans.
    const again = tracing()
    const parent = trace.setSpan(context.active(), agent)
    const replayed = createTelemetryExporter({ tracer: again.tracer, parentOf: () => parent })
    replayed.export(projectTelemetry(kernel.log.read()))
    replayed.end()
    const ids = (list: typeof spans) => list.filter((s) => s.name.startsWith('execute_tool')).map(shape)
    expect(ids(again.exporter.getFinishedSpans())).toEqual(ids(spans))
  })

  it('a turn outside any span gets its own root turn span; through a JSONL log and back it is the same trace', async () => {
    const path = join(dir, 'session.jsonl')
    const clock = fixedClock()
    const { exporter, tracer } = tracing()
    const kernel = testKernel([Echo], { log: createJsonlLog(path, clock), ports: { clock } })
    const telemetry = instrumentKernel(kernel, { tracer })
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }]))
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'again' }]))
    telemetry.stop()
    kernel.log.close()
    const live = exporter.getFinishedSpans()
    const turns = byName(live, 'toolkernel.turn')
    expect(turns.length).toBe(2)
    expect(new Set(turns.map((t) => t.spanContext().traceId)).size).toBe(2)
    const stored = reexport(readJsonlFile(path).events)
    const sorted = (list: typeof live) => list.map(shape).sort((a, b) => a.spanId.localeCompare(b.spanId))
    expect(sorted(stored)).toEqual(sorted(live))
  })
})

describe('ids', () => {
  it('without telemetryIdGenerator the spans still nest, but the exporter says its ids are not the derived ones', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }]))
    const { exporter, tracer } = tracing({ deterministic: false })
    const telemetry = createTelemetryExporter({ tracer })
    telemetry.export(projectTelemetry(kernel.log.read()))
    telemetry.end()
    expect(telemetry.deterministic).toBe(false)
    const [call] = byName(exporter.getFinishedSpans(), 'execute_tool Echo')
    const [turn] = byName(exporter.getFinishedSpans(), 'toolkernel.turn')
    expect(call?.parentSpanContext?.spanId).toBe(turn?.spanContext().spanId)
  })

  it('the session is mixed into the ids', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }]))
    const ids = (session: string) => {
      const { exporter, tracer } = tracing()
      const telemetry = createTelemetryExporter({ tracer, session })
      telemetry.export(projectTelemetry(kernel.log.read()))
      return exporter.getFinishedSpans().map((s) => s.spanContext().spanId)
    }
    expect(ids('a')).toEqual(ids('a'))
    expect(ids('a')).not.toEqual(ids('b'))
  })
})

describe('re-execution replay', () => {
  it('replayed spans are marked, linked to the originals, in a trace of their own, and record no metric points', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }], ['e2', 'Echo', { text: 1 }]))
    const events = kernel.log.read()
    expect((await replay(events, { tools: [Echo] })).ok).toBe(true)
    const originals = reexport(events)
    const { exporter, tracer } = tracing()
    const metrics = metering()
    const telemetry = createTelemetryExporter({ tracer, meter: metrics.meter })
    telemetry.export(projectTelemetry(events, { replayed: true }))
    telemetry.end()
    const replayed = exporter.getFinishedSpans()
    expect(replayed.length).toBe(originals.length)
    for (const span of replayed) {
      const original = originals.find(
        (o) => o.name === span.name && o.attributes['gen_ai.tool.call.id'] === span.attributes['gen_ai.tool.call.id'],
      )
      expect(span.attributes['toolkernel.replayed']).toBe(true)
      expect(span.links.map((l) => l.context.spanId)).toEqual([original?.spanContext().spanId])
      expect(span.links[0]?.context.traceId).toBe(original?.spanContext().traceId)
      expect(span.spanContext().spanId).not.toBe(original?.spanContext().spanId)
      expect(span.spanContext().traceId).not.toBe(original?.spanContext().traceId)
    }
    expect((await metrics.points()).size).toBe(0)
  })
})

describe('no provider registered', () => {
  it('with nothing registered (no tracer, no meter, no global provider) the kernel runs and answers as before', async () => {
    const kernel = testKernel([Echo])
    const telemetry = instrumentKernel(kernel)
    const { message } = await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }]))
    telemetry.stop()
    expect(message.content[0]).toMatchObject({ content: 'a' })
  })

  it('picks up a globally registered provider for turns that start after it', async () => {
    const { exporter, provider } = tracing()
    const kernel = testKernel([Echo])
    const telemetry = instrumentKernel(kernel)
    trace.setGlobalTracerProvider(provider)
    try {
      await kernel.runTurn(assistant(['e1', 'Echo', { text: 'a' }]))
    } finally {
      trace.disable()
      telemetry.stop()
    }
    expect(byName(exporter.getFinishedSpans(), 'execute_tool Echo').length).toBe(1)
  })
})

describe('classifyToolError', () => {
  it('takes a TelemetrySafeError class, an errno code, an error name, else Error or unknown — never the message', () => {
    expect(classifyToolError(new TelemetrySafeError('rate_limited', 'too many requests for /secret/path'))).toBe(
      'rate_limited',
    )
    expect(classifyToolError(new TelemetrySafeError('has spaces /and/paths'))).toBe('TelemetrySafeError')
    expect(classifyToolError(Object.assign(new Error('ENOENT: no such file /home/me/x'), { code: 'ENOENT' }))).toBe(
      'ENOENT',
    )
    expect(classifyToolError(Object.assign(new Error('x'), { code: 'ERR_SOMETHING' }))).toBe('Error')
    expect(classifyToolError(new RangeError('too big'))).toBe('RangeError')
    expect(classifyToolError(Object.assign(new Error('x'), { name: 'not a name /etc/passwd' }))).toBe('Error')
    expect(classifyToolError(new Error('plain'))).toBe('Error')
    expect(classifyToolError('a string')).toBe('unknown')
    expect(classifyToolError({ code: 'ENOENT' })).toBe('unknown')
  })
})
