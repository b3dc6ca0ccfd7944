/** Small tools and messages shared by the tests. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createKernel,
  createMemoryLog,
  readOnlyVerdict,
  type EventLog,
  type KernelOptions,
  type ShellAnalyzer,
  type Tool,
  type Turn,
} from '../src/index.js'

/** The shell analysis a kernel hands its tools (`ports.shell`), for tests that call a policy or a tool without one. */
export const installedShell: ShellAnalyzer = { readOnly: readOnlyVerdict }

export const fixedClock = () => {
  let t = 0
  return { now: () => ++t }
}

export const counterIds = () => {
  let n = 0
  return { next: (prefix: string) => `${prefix}_${++n}` }
}

/**
 * A memory log with some of its methods replaced (an append that fails, a fence the test holds, a
 * feed that errors); the others go to the memory log, which `overrides` receives to delegate to.
 */
export function memoryLogWith(overrides: (inner: EventLog) => Partial<EventLog>): EventLog {
  const inner = createMemoryLog(fixedClock())
  return {
    append: (event) => inner.append(event),
    read: () => inner.read(),
    events$: inner.events$,
    close: () => inner.close(),
    ...overrides(inner),
  }
}

/** A kernel with a deterministic clock and ids and an in-memory log. */
export function testKernel(tools: readonly Tool[], options: Partial<KernelOptions> = {}) {
  const clock = fixedClock()
  const { ports, ...rest } = options
  return createKernel({
    tools,
    log: createMemoryLog(clock),
    ...rest,
    ports: { clock, ids: counterIds(), ...ports },
  })
}

export function assistant(...uses: Array<[id: string, name: string, input: unknown]>) {
  return {
    role: 'assistant' as const,
    content: uses.map(([id, name, input]) => ({ type: 'tool_use' as const, id, name, input })),
  }
}

export const Echo = buildTool({
  name: 'Echo',
  aliases: ['Say'],
  description: () => 'Echoes its text.',
  inputSchema: z.object({
    text: z.string().describe('What to echo'),
    times: z.number().int().optional().describe('Repeat count'),
  }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  async call({ text, times }) {
    return text.repeat(times ?? 1)
  },
})

/** A tool whose every call asks a person (its own check says `ask`). */
export const Ask = buildTool({
  name: 'Ask',
  description: () => 'Asks first.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => false,
  checkPermissions: () => ({ behavior: 'ask', message: 'asks a person' }),
  call: async ({ text }) => `asked ${text}`,
})

/** A promise the test opens: `await g.opened` waits until `g.open()`. */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

/** Streams a message whose one tool_use block's input JSON stops at `partial` (a stream cut off). */
export function pushCutToolUse(turn: Pick<Turn, 'push'>, id: string, name: string, partial: string): void {
  turn.push({ type: 'message_start', message: { id: 'm', role: 'assistant', content: [] } } as never)
  turn.push({
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'tool_use', id, name, input: {} },
  } as never)
  turn.push({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'input_json_delta', partial_json: partial },
  } as never)
}

/**
 * Temp directories for a test file: call once at its top level; each directory made with the
 * function it returns is removed after the test that made it.
 */
export function scratchDirs(): (prefix: string) => string {
  const made: string[] = []
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    made.push(dir)
    return dir
  }
}

/** A result store that keeps what it is given in memory, at `/r/<toolUseId>`, and its reader for replay. */
export function memoryResults() {
  const saved = new Map<string, string>()
  const save = async ({ toolUseId }: { toolUseId: string }, text: string) => {
    saved.set(`/r/${toolUseId}`, text)
    return `/r/${toolUseId}`
  }
  return { saved, results: { save }, readResult: (path: string) => saved.get(path) }
}
