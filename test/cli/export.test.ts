/**
 * `toolkernel export`: a stored JSONL log to a real OTLP/HTTP receiver on loopback (the SDK's
 * own exporter sends; a node:http server here decodes the JSON it receives) and to a Chrome
 * trace file, checked for the structure Perfetto needs.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createJsonlLog } from '../../src/index.js'
import { exportCommand } from '../../src/cli/export.js'
import { assistant, Echo, fixedClock, testKernel } from '../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-export-'))
const log = join(dir, 'session.jsonl')
const received: Array<{ path: string | undefined; type: string | undefined; body: OtlpBody }> = []
let status = 200
let server: Server
let url = ''

interface OtlpAttribute {
  key: string
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean }
}
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes: OtlpAttribute[]
  events: Array<{ name: string }>
  links?: Array<{ spanId: string }>
  status?: { code?: number; message?: string }
}
interface OtlpBody {
  resourceSpans: Array<{ resource: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }>
}

const read = async (request: IncomingMessage) => {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

beforeAll(async () => {
  const clock = fixedClock()
  const kernel = testKernel([Echo], {
    log: createJsonlLog(log, clock),
    ports: { clock },
    permissions: { ask: ['Echo'] },
    canUseTool: async () => ({ behavior: 'allow' }),
  })
  await kernel.runTurn(assistant(['e1', 'Echo', { text: 'hello' }], ['e2', 'Echo', { text: 7 }]))
  kernel.log.close()
  server = createServer((request, response) => {
    void read(request).then((text) => {
      received.push({ path: request.url, type: request.headers['content-type'], body: JSON.parse(text) as OtlpBody })
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(status === 200 ? '{}' : '{"code":3,"message":"refused by the test"}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

const runExport = async (...args: string[]) => {
  const out: string[] = []
  const err: string[] = []
  const code = await exportCommand(
    args,
    (line) => out.push(line),
    (line) => err.push(line),
  )
  return { code, out, err }
}
const spansOf = (body: OtlpBody) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
const attr = (span: OtlpSpan | undefined, key: string) => span?.attributes.find((a) => a.key === key)?.value

describe('toolkernel export --otlp', () => {
  it('sends the spans as OTLP/HTTP JSON to /v1/traces, with the GenAI attributes and the nesting', async () => {
    received.length = 0
    const { code, out } = await runExport(log, '--otlp', url)
    expect(code).toBe(0)
    expect(out).toEqual([`sent 4 spans (2 tool calls) to ${url}/v1/traces`])
    expect(received.length).toBe(1)
    expect(received[0]?.path).toBe('/v1/traces')
    expect(received[0]?.type).toMatch(/^application\/json/)
    const body = received[0]?.body as OtlpBody
    expect(body.resourceSpans[0]?.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'toolkernel' },
    })
    const spans = spansOf(body)
    const turn = spans.find((s) => s.name === 'toolkernel.turn')
    const calls = spans.filter((s) => s.name === 'execute_tool Echo')
    const wait = spans.find((s) => s.name === 'toolkernel.permission_wait')
    expect(calls.map((c) => attr(c, 'gen_ai.tool.call.id')?.stringValue).sort()).toEqual(['e1', 'e2'])
    for (const call of calls) {
      expect(call.kind).toBe(1) // SPAN_KIND_INTERNAL
      expect(call.parentSpanId).toBe(turn?.spanId)
      expect(attr(call, 'gen_ai.operation.name')).toEqual({ stringValue: 'execute_tool' })
    }
    const failed = calls.find((c) => attr(c, 'gen_ai.tool.call.id')?.stringValue === 'e2')
    expect(attr(failed, 'error.type')).toEqual({ stringValue: 'invalid_input' })
    expect(failed?.status?.code).toBe(2) // STATUS_CODE_ERROR
    expect(wait?.parentSpanId).toBe(calls.find((c) => c !== failed)?.spanId)
    expect(attr(calls[0], 'gen_ai.tool.call.arguments')).toBeUndefined()
  })

  it('is idempotent: the same log sends the same ids again; --content adds arguments and results', async () => {
    received.length = 0
    await runExport(log, '--otlp', `${url}/v1/traces`)
    await runExport(log, '--otlp', url, '--content', '--header', 'x-test=1')
    const [first, second] = received.map((r) => spansOf(r.body))
    const ids = (spans: OtlpSpan[] | undefined) => (spans ?? []).map((s) => `${s.traceId}/${s.spanId}`).sort()
    expect(ids(first)).toEqual(ids(second))
    const call = second?.find((s) => attr(s, 'gen_ai.tool.call.id')?.stringValue === 'e1')
    expect(attr(call, 'gen_ai.tool.call.arguments')).toEqual({ stringValue: '{"text":"hello"}' })
    expect(attr(call, 'gen_ai.tool.call.result')).toEqual({ stringValue: 'hello' })
  })

  it('a receiver that refuses: exit 1, naming the endpoint', async () => {
    status = 400
    try {
      const { code, err } = await runExport(log, '--otlp', url)
      expect(code).toBe(1)
      expect(err.join('\n')).toContain(`the OTLP receiver at ${url}/v1/traces did not take the spans`)
    } finally {
      status = 200
    }
  })

  it('a log cut off mid-call is exported with the open call closed as recovery closes it', async () => {
    received.length = 0
    const crashed = new URL('../fixtures/logs/crash-mid-call.jsonl', import.meta.url).pathname
    expect((await runExport(crashed, '--otlp', url)).code).toBe(0)
    const spans = spansOf(received[0]?.body as OtlpBody)
    expect(spans.some((s) => attr(s, 'error.type')?.stringValue === 'interrupted')).toBe(true)
  })
})

describe('toolkernel export --chrome-trace', () => {
  it('writes the Trace Event format: metadata, complete events that nest per thread, instant steps', async () => {
    const file = join(dir, 'trace.json')
    const { code, out } = await runExport(log, '--chrome-trace', file)
    expect(code).toBe(0)
    expect(out[0]).toMatch(/^wrote .*trace\.json \(\d+ trace events; open it in https:\/\/ui\.perfetto\.dev/)
    const trace = JSON.parse(readFileSync(file, 'utf8')) as {
      traceEvents: Array<Record<string, unknown>>
      displayTimeUnit: string
    }
    expect(trace.displayTimeUnit).toBe('ms')
    const named = new Set<string>()
    const slices = new Map<string, Array<{ ts: number; end: number }>>()
    for (const event of trace.traceEvents) {
      expect(typeof event.name).toBe('string')
      expect(['X', 'i', 'M']).toContain(event.ph)
      expect(Number.isInteger(event.pid) && Number.isInteger(event.tid)).toBe(true)
      const thread = `${String(event.pid)}/${String(event.tid)}`
      if (event.ph === 'M') {
        named.add(event.name === 'process_name' ? String(event.pid) : thread)
        continue
      }
      expect(Number.isInteger(event.ts) && (event.ts as number) >= 0).toBe(true)
      if (event.ph === 'i') expect(event.s).toBe('t')
      if (event.ph !== 'X') continue
      expect(Number.isInteger(event.dur) && (event.dur as number) >= 0).toBe(true)
      slices.set(thread, [
        ...(slices.get(thread) ?? []),
        { ts: event.ts as number, end: (event.ts as number) + (event.dur as number) },
      ])
    }
    const names = trace.traceEvents.filter((e) => e.ph === 'X').map((e) => e.name)
    expect(names.sort()).toEqual([
      'execute_tool Echo',
      'execute_tool Echo',
      'toolkernel.permission_wait',
      'toolkernel.turn',
    ])
    for (const [thread, list] of slices) {
      expect(named.has(thread.split('/')[0] as string)).toBe(true)
      if (!thread.endsWith('/0')) expect(named.has(thread)).toBe(true)
      // Slices on one thread nest or follow each other: none overlaps another partly.
      for (const a of list)
        for (const b of list)
          expect(
            a.end <= b.ts || b.end <= a.ts || (a.ts <= b.ts && b.end <= a.end) || (b.ts <= a.ts && a.end <= b.end),
          ).toBe(true)
    }
  })
})

describe('toolkernel export: usage', () => {
  it('says what is missing or wrong, exit 2', async () => {
    expect((await runExport(log)).err[0]).toMatch(/say where to export: --otlp URL, --chrome-trace FILE, or both/)
    expect((await runExport(log, '--otlp', 'localhost:4318')).err[0]).toMatch(/--otlp needs an http\(s\) URL/)
    expect((await runExport(log, '--otlp', url, '--header', 'novalue')).err[0]).toMatch(/--header must be NAME=VALUE/)
    expect((await runExport(join(dir, 'none.jsonl'), '--chrome-trace', join(dir, 'x.json'))).err[0]).toMatch(
      /no such log file/,
    )
    expect((await runExport()).code).toBe(2)
    const bogus = await runExport(log, '--otlp', url, '--bogus')
    expect(bogus.err[0]).toBe(
      "toolkernel export: unknown option '--bogus' (toolkernel export --help lists its options)",
    )
    expect(bogus.code).toBe(2)
    // --help is main's, for every command (test/cli/help.test.ts).
  })
})
