/**
 * No silent options (decision 118): every function of the public entries that takes an options
 * object refuses a key it does not know, naming the ones it takes; the rest take none. The walk
 * covers every function of every entry package.json exports (`toolkernel`, `/loop`, `/testing`,
 * `/otel`, `/postgres`, `/ai-sdk`, `/mcp`) and `buildTool`'s definition: a new function fails
 * here until it says which it is, a new entry until it has a table. The lists the kernel checks
 * against are compared with its option interfaces at compile time, so an option added to an
 * interface and not to its list is a type error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { trace } from '@opentelemetry/api'
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import * as aiSdk from '../src/ai-sdk/index.js'
import * as main from '../src/index.js'
import * as loop from '../src/loop/index.js'
import * as mcp from '../src/mcp.js'
import * as otel from '../src/otel/index.js'
import * as postgres from '../src/postgres/index.js'
import * as testing from '../src/testing/index.js'
import {
  KERNEL_OPTIONS,
  type API_TOOLS_OPTIONS,
  type KERNEL_NESTED_OPTIONS,
  type STREAM_TURN_OPTIONS,
  type TURN_OPTIONS,
} from '../src/kernel-options.js'
import type { KernelOptions, KernelPorts, StreamTurnOptions, TurnOptions } from '../src/kernel.js'
import { assistant, Echo } from './helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-options-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Call = () => unknown
/** A call with an unknown option, and the names its error must list; or `none`: no options object. */
type Entry = { bogus: Call; takes: readonly string[] } | 'none'
const BOGUS = { bogus: 1 }
const kernel = () => main.createKernel({ tools: [Echo] })

const MAIN: Record<string, Entry> = {
  createKernel: { bogus: () => main.createKernel({ tools: [Echo], ...BOGUS } as never), takes: KERNEL_OPTIONS },
  createJsonlLog: {
    bogus: () => main.createJsonlLog(join(dir, 'a.jsonl'), main.systemClock, BOGUS as never),
    takes: ['fsync', 'onProgress', 'retainTurns'],
  },
  createJsonlEventStore: { bogus: () => main.createJsonlEventStore(dir, BOGUS as never), takes: ['fsync', 'clock'] },
  createMemoryLog: { bogus: () => main.createMemoryLog(main.systemClock, BOGUS as never), takes: ['history'] },
  createFileSearch: { bogus: () => main.createFileSearch(BOGUS as never), takes: ['ripgrep', 'timeoutMs'] },
  createProcessRunner: {
    bogus: () => main.createProcessRunner(BOGUS as never),
    takes: ['env', 'maxOutputBytes', 'sandbox'],
  },
  createRead: { bogus: () => main.createRead(BOGUS as never), takes: ['loadPdfLibrary'] },
  createWebClient: { bogus: () => main.createWebClient(BOGUS as never), takes: ['lookup'] },
  createWebFetch: {
    bogus: () => main.createWebFetch(BOGUS as never),
    takes: ['allowPrivateAddresses', 'maxBytes', 'maxRedirects', 'timeoutMs'],
  },
  createBubblewrap: { bogus: () => main.createBubblewrap(BOGUS as never), takes: ['program', 'env'] },
  createAgentTool: {
    bogus: () => main.createAgentTool({ model: async () => ({ content: [], stop_reason: null }), ...BOGUS } as never),
    takes: ['model', 'agents', 'maxTurns', 'timeoutMs'],
  },
  buildChildEnvironment: { bogus: () => main.buildChildEnvironment(BOGUS as never), takes: ['allow', 'set', 'from'] },
  replay: { bogus: () => main.replay([], { tools: [Echo], ...BOGUS } as never), takes: ['tools', 'inputNotChecked'] },
  // Positional arguments only (a value, a path, a list of events or tools, a message).
  ...Object.fromEntries(
    [
      'parseSSE',
      'defaultMapper',
      'lazySchema',
      'toAPIFormat',
      'inputJsonSchema',
      'strictCompatible',
      'loadedFromLog',
      'searchTools',
      'readOnlyVerdict',
      'parseRule',
      'parseJsonl',
      'toJsonLine',
      'classifyToolError',
      'classifyAddress',
      'readJsonlFile',
      'createMemoryEventStore',
      'checkLogOrder',
      'changeContext',
      'todosOf',
      'pendingApprovals',
      'createDirectoryResultStore',
      'createDefaultResultStore',
      'defaultResultStoreDir',
      'resultFileName',
      'projectMessages',
      'projectTurnMessage',
      'reduceTurnMessage',
      'toOpenAIToolMessages',
      'toResponsesInputItems',
      'projectTimeline',
      'recover',
      'resumeHistory',
    ].map((name) => [name, 'none' as const]),
  ),
  // A tool definition: a misspelt field would leave its fail-closed default in force.
  buildTool: {
    bogus: () =>
      main.buildTool({
        name: 'Tool',
        description: () => 'A tool.',
        inputSchema: z.object({}),
        call: async () => 'done',
        ...BOGUS,
      } as never),
    takes: ['name', 'description', 'inputSchema', 'call', 'isConcurrencySafe', 'isReadOnly', 'interruptBehavior'],
  },
}

const MESSAGE_OPTIONS = ['inputs', 'maxCalls', 'invalidShare', 'hostile', 'truncated']
const TESTING: Record<string, Entry> = {
  checkToolLayer: {
    bogus: () => testing.checkToolLayer({ tools: [Echo] }, BOGUS as never),
    takes: ['numRuns', 'seed', 'faults', 'modes', 'mustNotRun', 'differential', 'onFailure', ...MESSAGE_OPTIONS],
  },
  assistantMessages: { bogus: () => testing.assistantMessages([Echo], BOGUS as never), takes: MESSAGE_OPTIONS },
  toolUseInputs: { bogus: () => testing.toolUseInputs([Echo], BOGUS as never), takes: MESSAGE_OPTIONS },
  // A message, a schema, tools with a cap and a fault per call, a start time.
  ...Object.fromEntries(
    [
      'anthropicStreams',
      'openAIChatStreams',
      'toolUsesOf',
      'arbitraryForSchema',
      'invalidForSchema',
      'instrumentTools',
      'recordedTools',
      'fakeClock',
    ].map((name) => [name, 'none' as const]),
  ),
}

const TELEMETRY_OPTIONS = ['captureContent', 'maxContentChars', 'descriptions', 'toolType']
const OTEL: Record<string, Entry> = {
  instrumentKernel: {
    bogus: () => otel.instrumentKernel(kernel(), BOGUS as never),
    takes: ['tracer', 'meter', 'session', 'parentOf', ...TELEMETRY_OPTIONS],
  },
  createTelemetryExporter: {
    bogus: () => otel.createTelemetryExporter({ tracer: trace.getTracer('test'), ...BOGUS } as never),
    takes: ['tracer', 'meter', 'session', 'parentOf'],
  },
  projectTelemetry: {
    bogus: () => otel.projectTelemetry([], BOGUS as never),
    takes: [...TELEMETRY_OPTIONS, 'replayed'],
  },
  createTelemetryReducer: {
    bogus: () => otel.createTelemetryReducer(BOGUS as never),
    takes: [...TELEMETRY_OPTIONS, 'replayed'],
  },
  // Tools, a time, a fallback generator, a session and key, an error, records.
  ...Object.fromEntries(
    ['toolDescriptions', 'hrTime', 'telemetryIdGenerator', 'deriveIds', 'classifyToolError', 'chromeTrace'].map(
      (name) => [name, 'none' as const],
    ),
  ),
}

const POSTGRES: Record<string, Entry> = {
  // Refused before a pool exists: nothing connects to this address.
  createPostgresEventStore: {
    bogus: () => postgres.createPostgresEventStore({ connection: 'postgres://127.0.0.1:1/none', ...BOGUS } as never),
    takes: ['connection', 'maxConnections', 'idleInTransactionTimeoutMs', 'pollMs', 'groupCommit'],
  },
}

const AI_SDK: Record<string, Entry> = {
  runToolCalls: {
    bogus: () => aiSdk.runToolCalls(kernel(), { toolCalls: [], finishReason: 'stop' }, BOGUS as never),
    takes: ['signal'],
  },
  startToolCalls: { bogus: () => aiSdk.startToolCalls(kernel(), BOGUS as never), takes: ['signal'] },
  // A kernel, a step's finish reason, a message and names, approval responses, pending calls.
  ...Object.fromEntries(
    ['aiSdkTools', 'stopReasonOfFinish', 'toToolModelMessages', 'answerToolApprovals', 'approvalRequests'].map(
      (name) => [name, 'none' as const],
    ),
  ),
}

const MCP: Record<string, Entry> = {
  parseMcpConfig: { bogus: () => mcp.parseMcpConfig({ mcpServers: {} }, BOGUS as never), takes: ['env'] },
  connectMcpServers: {
    bogus: () => mcp.connectMcpServers({ mcpServers: {} }, BOGUS as never),
    takes: ['trusted', 'cwd', 'env', 'callTimeoutMs', 'connectTimeoutMs', 'restart', 'servers', 'elicit'],
  },
  // Hints and trust, identities, a schema.
  ...Object.fromEntries(['flagsFor', 'allocateNames', 'prepareSchema'].map((name) => [name, 'none' as const])),
}

const LOOP: Record<string, Entry> = {
  runLoop: {
    bogus: () => loop.runLoop({ ...BOGUS } as never),
    takes: ['model', 'kernel', 'messages', 'stream', 'stopWhen', 'maxSteps', 'signal', 'onStep'],
  },
  // The request parameters are the SDK's (the SDK refuses what it does not know).
  anthropic: 'none',
  openaiChat: 'none',
  openaiResponses: 'none',
}

/** Functions and not classes (a class such as TelemetrySafeError is constructed, not called with options). */
const functionsOf = (entry: Record<string, unknown>) =>
  Object.entries(entry)
    .filter(([, value]) => typeof value === 'function' && !/^class\b/.test(Function.prototype.toString.call(value)))
    .map(([name]) => name)
    .sort()

async function expectRefused(call: Call, takes: readonly string[]): Promise<void> {
  let error: unknown
  try {
    await call()
  } catch (caught) {
    error = caught
  }
  expect(error).toBeInstanceOf(TypeError)
  const message = (error as Error).message
  expect(message).toMatch(/unknown option "bogus" \(it takes: /)
  for (const name of takes) expect(message).toContain(name)
}

/** Each entry package.json exports, its module (as the build maps it) and its table. */
const ENTRIES: Record<string, [Record<string, unknown>, Record<string, Entry>]> = {
  '.': [main as Record<string, unknown>, MAIN],
  './loop': [loop as Record<string, unknown>, LOOP],
  './testing': [testing as Record<string, unknown>, TESTING],
  './otel': [otel as Record<string, unknown>, OTEL],
  './postgres': [postgres as Record<string, unknown>, POSTGRES],
  './ai-sdk': [aiSdk as Record<string, unknown>, AI_SDK],
  './mcp': [mcp as Record<string, unknown>, MCP],
}

it('every entry package.json exports is walked', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    exports: Record<string, unknown>
  }
  const entries = Object.keys(pkg.exports).filter((subpath) => subpath !== './package.json')
  expect(entries.sort()).toEqual(Object.keys(ENTRIES).sort())
})

describe.each(
  Object.entries(ENTRIES).map(
    ([subpath, [exports, table]]): [string, Record<string, unknown>, Record<string, Entry>] => [
      subpath === '.' ? 'toolkernel' : `toolkernel/${subpath.slice(2)}`,
      exports,
      table,
    ],
  ),
)('%s: every exported function', (_entry, exports, table) => {
  it('is in the table (a new one says whether it takes options)', () => {
    expect(functionsOf(exports)).toEqual(Object.keys(table).sort())
  })

  for (const [name, entry] of Object.entries(table)) {
    if (entry === 'none') continue
    it(`${name} refuses an unknown option, naming the ones it takes`, () => expectRefused(entry.bogus, entry.takes))
  }
})

describe('nested options', () => {
  it('connectMcpServers refuses unknown restart and per-server options', () => {
    expect(() => mcp.connectMcpServers({ mcpServers: {} }, { restart: { initialMs: 5 } } as never)).toThrow(
      'connectMcpServers: restart: unknown option "initialMs" (it takes: initialDelayMs, maxDelayMs)',
    )
    expect(() => mcp.connectMcpServers({ mcpServers: {} }, { servers: { docs: { timeoutMs: 5 } } } as never)).toThrow(
      'connectMcpServers: servers.docs: unknown option "timeoutMs" (it takes: callTimeoutMs, maxCallTimeoutMs)',
    )
  })

  it('buildTool names the tool and the misspelt field', () => {
    expect(() =>
      main.buildTool({
        name: 'Lookup',
        description: () => 'Looks up.',
        inputSchema: z.object({}),
        isReadonly: () => true,
        call: async () => 'found',
      } as never),
    ).toThrow(/^buildTool\(Lookup\): unknown option "isReadonly" \(it takes: name, /)
  })
})

describe('the kernel', () => {
  it('apiTools: the format alone, or under another name, is refused (it was the Anthropic shape)', () => {
    const k = kernel()
    expect(() => k.apiTools('openai' as never)).toThrow(
      'kernel.apiTools: takes an options object { format } (anthropic, openai-chat, openai-responses), got the string "openai"',
    )
    expect(() => k.apiTools({ provider: 'openai' } as never)).toThrow(
      'kernel.apiTools: unknown option "provider" (it takes: format)',
    )
    expect(k.apiTools({ format: 'openai-chat' })[0]).toMatchObject({ type: 'function' })
  })

  it('runTurn and startTurn refuse options they do not know', async () => {
    const k = kernel()
    await expect(k.runTurn(assistant(['t1', 'Echo', { text: 'x' }]), { timeout: 5 } as never)).rejects.toThrow(
      'kernel.runTurn: unknown option "timeout" (it takes: signal)',
    )
    expect(() => k.startTurn({ early: 'all' } as never)).toThrow(
      'kernel.startTurn: unknown option "early" (it takes: signal, earlyStart)',
    )
  })

  it('callTool refuses options it does not know', async () => {
    await expect(kernel().callTool('Echo', { text: 'x' }, { timeout: 5 } as never)).rejects.toThrow(
      'kernel.callTool: unknown option "timeout" (it takes: signal)',
    )
  })

  it('createKernel refuses unknown nested options too', () => {
    expect(() => main.createKernel({ tools: [Echo], permissions: { mode: 'default', allowed: [] } as never })).toThrow(
      'createKernel: permissions: unknown option "allowed" (it takes: mode, allow, ask, deny, protect, allowSandboxed)',
    )
    expect(() => main.createKernel({ tools: [Echo], deferral: { threshold: 3 } as never })).toThrow(
      /createKernel: deferral: unknown option "threshold"/,
    )
    expect(() => main.createKernel({ tools: [Echo], ports: { clocks: 1 } as never })).toThrow(
      /createKernel: ports: unknown option "clocks" \(it takes: clock, ids, fs, processes, search, web, hookRunner, sandbox\)/,
    )
  })

  it('the lists are the interfaces keys (compile time)', () => {
    expectTypeOf<(typeof KERNEL_OPTIONS)[number]>().toEqualTypeOf<keyof KernelOptions>()
    type Nested = typeof KERNEL_NESTED_OPTIONS
    expectTypeOf<Nested['permissions'][number]>().toEqualTypeOf<keyof NonNullable<KernelOptions['permissions']>>()
    expectTypeOf<Nested['lease'][number]>().toEqualTypeOf<keyof NonNullable<KernelOptions['lease']>>()
    expectTypeOf<Nested['environment'][number]>().toEqualTypeOf<keyof NonNullable<KernelOptions['environment']>>()
    expectTypeOf<Nested['ports'][number]>().toEqualTypeOf<keyof KernelPorts>()
    expectTypeOf<Nested['deferral'][number]>().toEqualTypeOf<keyof NonNullable<KernelOptions['deferral']>>()
    expectTypeOf<(typeof TURN_OPTIONS)[number]>().toEqualTypeOf<keyof TurnOptions>()
    expectTypeOf<(typeof STREAM_TURN_OPTIONS)[number]>().toEqualTypeOf<keyof StreamTurnOptions>()
    expectTypeOf<(typeof API_TOOLS_OPTIONS)[number]>().toEqualTypeOf<'format'>()
  })
})
