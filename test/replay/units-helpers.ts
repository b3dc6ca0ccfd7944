/** Tools, stream events and log edits for the replay unit tests. */
import { expect } from 'vitest'
import { z } from 'zod'
import { buildTool, type KernelEvent, type ReplayResult, type Tool } from '../../src/index.js'
import { Echo, testKernel } from '../helpers.js'
import { canonicalJson } from '../../src/util/canonical-json.js'

/** A promise to settle from outside: a tool waits on it instead of on time. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

/** Writes the path it is given: not read-only, so permission rules and modes decide it. */
export const Writer = buildTool({
  name: 'Writer',
  description: () => 'Writes a note.',
  inputSchema: z.object({ path: z.string() }),
  getPath: ({ path }) => path,
  call: async ({ path }) => `wrote ${path}`,
})

/** A 'block' tool that runs until `release` settles, abort or not. */
export function holdTool(release: Promise<void>) {
  return buildTool({
    name: 'Hold',
    description: () => 'Holds until released.',
    inputSchema: z.object({}),
    isConcurrencySafe: () => true,
    async call() {
      await release
      return 'held'
    },
  })
}

/** A 'cancel' tool that runs until its call is interrupted. */
export const Watch = buildTool({
  name: 'Watch',
  description: () => 'Watches until interrupted.',
  inputSchema: z.object({}),
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  call: (_input, ctx) =>
    new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
})

/** Its own permission check awaits I/O (a timer stands in for a stat): replay must wait for it. */
export const Guarded = buildTool({
  name: 'Guarded',
  description: () => 'Checks a permission asynchronously.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  async checkPermissions(input) {
    await new Promise((resolve) => setTimeout(resolve, 5))
    return input.text === 'no' ? { behavior: 'deny', message: 'no means no' } : { behavior: 'allow' }
  },
  call: async ({ text }) => `guarded ${text}`,
})

/** A synchronous validator: its verdict comes at once. */
export const SyncChecked = buildTool({
  name: 'SyncChecked',
  description: () => 'Validates at once.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  validateInput: ({ text }) => (text === 'bad' ? { result: false, message: 'bad is not allowed' } : { result: true }),
  call: async ({ text }) => `checked ${text}`,
})

/** A validator that answers when `verdict` settles. */
export function slowCheckedTool(verdict: Promise<void>, withValidator = true) {
  return buildTool({
    name: 'SlowChecked',
    description: () => 'Validates when told.',
    inputSchema: z.object({ text: z.string() }),
    isConcurrencySafe: () => true,
    ...(withValidator
      ? {
          validateInput: async () => {
            await verdict
            return { result: true as const }
          },
        }
      : {}),
    call: async ({ text }) => `checked ${text}`,
  })
}

/** Anthropic stream events for tool_use blocks. */
export const stream = {
  start: (index: number, id: string, name = 'Echo') => ({
    type: 'content_block_start',
    index,
    content_block: { type: 'tool_use', id, name, input: {} },
  }),
  delta: (index: number, json: string) => ({
    type: 'content_block_delta',
    index,
    delta: { type: 'input_json_delta', partial_json: json },
  }),
  stop: (index: number) => ({ type: 'content_block_stop', index }),
}

/** The log with seq renumbered in order, as a store would have written the edited log. */
export function reseq(events: readonly KernelEvent[]): KernelEvent[] {
  return events.map((event, seq) => ({ ...event, seq }))
}

/** The log without the events `drop` matches. */
export function without(events: readonly KernelEvent[], drop: (e: KernelEvent) => boolean): KernelEvent[] {
  return reseq(events.filter((e) => !drop(e)))
}

/** The log with `change` applied to the events `match` matches. */
export function edited(
  events: readonly KernelEvent[],
  match: (e: KernelEvent) => boolean,
  change: (e: KernelEvent) => Record<string, unknown>,
): KernelEvent[] {
  return events.map((e) => (match(e) ? ({ ...e, ...change(e) } as KernelEvent) : e))
}

export function expectOk(result: ReplayResult): void {
  expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
}

/** An event as a divergence message shows it: its type, then its canonical JSON without the envelope. */
export function shown(event: Record<string, unknown>): string {
  const { v: _v, seq: _seq, at: _at, ...rest } = event
  return `${String(rest.type)} ${canonicalJson(rest)}`
}

/** Echo that reports its progress ('half way') before it returns 'done'. */
export const Reporting = Object.assign(Object.create(Echo) as Tool, {
  async *call() {
    yield 'half way'
    return 'done'
  },
})

/**
 * The log of one Reporting call (id `p`) in a streamed turn that starts nothing before the message
 * ends, so its progress and output come after turn.ended: a log to move them earlier in.
 */
export async function reportingLog(): Promise<KernelEvent[]> {
  const kernel = testKernel([Reporting])
  const turn = kernel.startTurn({ earlyStart: 'none' })
  turn.addToolUse({ id: 'p', name: 'Echo', input: { text: 'x' } })
  turn.end('tool_use')
  await turn.result()
  return [...kernel.log.read()]
}
