/**
 * Logs for the timeline's browser tests, made by the real kernel. Time is virtual: the clock
 * moves only when a tool, hook or user "waits", and waits end in due order once everything in
 * flight has registered its own, so parallel calls overlap on the axis as they would for real —
 * deterministically, and without sleeping.
 */
import { z } from 'zod'
import {
  buildTool,
  createDirectoryResultStore,
  createKernel,
  createMemoryLog,
  type KernelEvent,
} from '../../src/index.js'
import { counterIds, fixedClock } from '../helpers.js'

/** A clock that ticks 1/16 ms per reading (exact in binary) and jumps when a `delay` comes due. */
export function virtualTime(start = 1_767_000_000_000) {
  let now = start
  const timers: Array<{ due: number; resolve: () => void }> = []
  let pending = false
  const drive = () => {
    pending = false
    timers.sort((a, b) => a.due - b.due)
    const next = timers.shift()
    if (next === undefined) return
    now = Math.max(now, next.due)
    next.resolve()
    if (timers.length > 0) schedule()
  }
  const schedule = () => {
    if (pending) return
    pending = true
    setImmediate(drive)
  }
  return {
    clock: { now: () => (now += 0.0625) },
    advance: (ms: number) => void (now += ms),
    delay: (ms: number) =>
      new Promise<void>((resolve) => {
        timers.push({ due: now + ms, resolve })
        schedule()
      }),
  }
}

const use = (id: string, name: string, input: unknown) => ({ type: 'tool_use' as const, id, name, input })

/**
 * A small session that shows every segment: calls queued behind the cap, an unknown tool, a
 * pre-hook that answers slowly and one that blocks, a permission asked of a user who takes
 * 800 ms, invalid input, oversize output persisted (budget) to `resultsDir`, an ENOENT failure, a
 * rule's denial.
 */
export async function demoSession(resultsDir: string): Promise<KernelEvent[]> {
  const time = virtualTime()
  const Lookup = buildTool({
    name: 'Lookup',
    description: () => 'Looks a key up.',
    inputSchema: z.strictObject({ key: z.string(), ms: z.number().optional() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ key, ms }) {
      await time.delay(ms ?? 20)
      return `value of ${key}`
    },
  })
  const Writer = buildTool({
    name: 'Writer',
    description: () => 'Writes a note.',
    inputSchema: z.strictObject({ note: z.string() }),
    async call({ note }) {
      await time.delay(120)
      return `wrote ${note.length} characters`
    },
  })
  const Report = buildTool({
    name: 'Report',
    description: () => 'Prints a long report.',
    inputSchema: z.strictObject({ lines: z.number() }),
    maxResultSizeChars: 1000,
    async call({ lines }) {
      await time.delay(60)
      return Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n')
    },
  })
  const Load = buildTool({
    name: 'Load',
    description: () => 'Loads a data file.',
    inputSchema: z.strictObject({ path: z.string() }),
    async call({ path }) {
      await time.delay(30)
      throw Object.assign(new Error(`no such file ${path}`), { code: 'ENOENT' })
    },
  })
  const Danger = buildTool({
    name: 'Danger',
    description: () => 'Does something a rule forbids.',
    inputSchema: z.strictObject({}),
    async call() {
      return 'should never run'
    },
  })
  const kernel = createKernel({
    tools: [Lookup, Writer, Report, Load, Danger],
    maxConcurrency: 2,
    log: createMemoryLog(time.clock),
    results: createDirectoryResultStore(resultsDir),
    permissions: { ask: ['Writer'], deny: ['Danger'] },
    ports: { clock: time.clock, ids: counterIds() },
    hooks: {
      PreToolUse: [
        {
          matcher: 'Writer',
          hooks: [
            {
              type: 'function',
              name: 'audit',
              fn: async () => {
                await time.delay(35)
                return { additionalContext: 'notes are kept for a week' }
              },
            },
          ],
        },
        {
          matcher: 'Lookup',
          hooks: [
            {
              type: 'function',
              name: 'no-secrets',
              fn: (input) =>
                (input.tool_input as { key?: string }).key === 'secret'
                  ? { decision: 'block', reason: 'secrets stay secret' }
                  : undefined,
            },
          ],
        },
      ],
    },
    canUseTool: async () => {
      await time.delay(800)
      return { behavior: 'allow' }
    },
  })
  const turns = [
    [
      use('toolu_a', 'Lookup', { key: 'a', ms: 40 }),
      use('toolu_b', 'Lookup', { key: 'b', ms: 90 }),
      use('toolu_c', 'Lookup', { key: 'c', ms: 30 }),
      use('toolu_d', 'Lookup', { key: 'd', ms: 50 }),
      use('toolu_e', 'Lokup', { key: 'e' }),
    ],
    [use('toolu_write', 'Writer', { note: 'remember the milk' }), use('toolu_bad', 'Lookup', { wrong: 1 })],
    [
      use('toolu_report', 'Report', { lines: 400 }),
      use('toolu_load', 'Load', { path: '/data/missing.csv' }),
      use('toolu_danger', 'Danger', {}),
      use('toolu_secret', 'Lookup', { key: 'secret' }),
    ],
  ]
  for (const content of turns) {
    await kernel.runTurn({ role: 'assistant', content })
    time.advance(300) // the model thinks between turns
  }
  return [...kernel.log.read()]
}

/** What a log must never be able to do to the page: close the data element, run script, load anything. */
export const HOSTILE_SCRIPT = '</script><script>window.__pwned=1</script>'
export const HOSTILE_IMG = '<img src=x onerror="window.__pwned=1;alert(1)">'

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes its text.',
  inputSchema: z.strictObject({ text: z.string() }),
  isConcurrencySafe: () => true,
  async call({ text }) {
    return text
  },
})

/** A session whose ids, tool names, inputs and outputs carry markup and script. */
export async function hostileSession(): Promise<KernelEvent[]> {
  const clock = fixedClock()
  const kernel = createKernel({ tools: [Echo], log: createMemoryLog(clock), ports: { clock, ids: counterIds() } })
  await kernel.runTurn({
    role: 'assistant',
    content: [
      use(`id${HOSTILE_SCRIPT}`, 'Echo', { text: HOSTILE_SCRIPT }),
      use('img', 'Echo', { text: `${HOSTILE_IMG}\u2028\u2029<!--` }),
      use('name', HOSTILE_SCRIPT, { [HOSTILE_IMG]: HOSTILE_SCRIPT }),
    ],
  })
  return [...kernel.log.read()]
}

/** `turns` turns of `perTurn` concurrency-safe calls each: the timeline's large case. */
export async function largeSession(turns: number, perTurn: number): Promise<KernelEvent[]> {
  const clock = fixedClock()
  const kernel = createKernel({ tools: [Echo], log: createMemoryLog(clock), ports: { clock, ids: counterIds() } })
  for (let t = 0; t < turns; t++) {
    const content = Array.from({ length: perTurn }, (_, i) => use(`toolu_${t}_${i}`, 'Echo', { text: `call ${i}` }))
    await kernel.runTurn({ role: 'assistant', content })
  }
  return [...kernel.log.read()]
}
