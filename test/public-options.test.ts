/**
 * No silent options (decision 118): every function of the public entries that takes an options
 * object refuses a key it does not know, naming the ones it takes; the rest take none. The walk
 * covers every function `toolkernel` and `toolkernel/loop` export: a new one fails here until it
 * says which it is. The lists the kernel checks against are compared with its option interfaces
 * at compile time, so an option added to an interface and not to its list is a type error.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest'
import * as main from '../src/index.js'
import * as loop from '../src/loop/index.js'
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
  // A tool definition: its fields are checked by buildTool's own validation (not yet for unknown keys).
  buildTool: 'none',
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

describe.each([
  ['toolkernel', main as Record<string, unknown>, MAIN],
  ['toolkernel/loop', loop as Record<string, unknown>, LOOP],
])('%s: every exported function', (_entry, exports, table) => {
  it('is in the table (a new one says whether it takes options)', () => {
    expect(functionsOf(exports)).toEqual(Object.keys(table).sort())
  })

  for (const [name, entry] of Object.entries(table)) {
    if (entry === 'none') continue
    it(`${name} refuses an unknown option, naming the ones it takes`, () => expectRefused(entry.bogus, entry.takes))
  }
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
