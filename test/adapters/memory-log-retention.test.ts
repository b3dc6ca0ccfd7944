/**
 * The memory log's retention window (`retainTurns`): finished turns beyond the last N go, what a
 * turn still running or a later kernel needs stays, and nothing changes without the option.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  checkLogOrder,
  createKernel,
  createMemoryLog,
  projectMessages,
  projectTimeline,
  recover,
  replay,
  type KernelEvent,
  type KernelOptions,
  type Tool,
} from '../../src/index.js'
import { projectStats } from '../../src/projections/stats.projection.js'
import { projectTelemetry } from '../../src/projections/telemetry.projection.js'
import { loadedFromLog, referencedFromLog } from '../../src/tools/pool/pool-log.js'
import { assistant, counterIds, Echo, fixedClock } from '../helpers.js'
import { syntheticTools } from '../tools/pool/synthetic.js'

const K = 3
const message = (turn: number) =>
  assistant(
    ...Array.from({ length: K }, (_, i): [string, string, unknown] => [
      `t${turn}_${i}`,
      'Echo',
      { text: `${turn}.${i}` },
    ]),
  )

/** A kernel over `log`, with a deterministic clock and ids; every published event is collected. */
function kernelOver(
  log = createMemoryLog(fixedClock(), { retainTurns: 2 }),
  tools: readonly Tool[] = [Echo],
  extra: Partial<KernelOptions> = {},
) {
  const published: KernelEvent[] = []
  log.events$.subscribe((event) => published.push(event))
  const kernel = createKernel({ tools, log, ports: { clock: fixedClock(), ids: counterIds() }, ...extra })
  return { kernel, log, published }
}

/** A tool that waits until the test opens its gate. */
function gatedTool() {
  const gates = new Map<string, () => void>()
  const opened = new Map<string, Promise<void>>()
  const gate = (id: string) => {
    if (!opened.has(id)) opened.set(id, new Promise<void>((resolve) => gates.set(id, resolve)))
    return opened.get(id) as Promise<void>
  }
  const Gated = buildTool({
    name: 'Gated',
    description: () => 'Waits for the test.',
    inputSchema: z.strictObject({ id: z.string() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ id }) {
      await gate(id)
      return `done ${id}`
    },
  })
  const open = (id: string) => {
    void gate(id)
    gates.get(id)?.()
  }
  return { Gated, open }
}

/** A tool that is not read-only, so the default mode asks about it. */
const Writer = buildTool({
  name: 'Writer',
  description: () => 'Pretends to write.',
  inputSchema: z.strictObject({ text: z.string() }),
  checkPermissions: () => ({ behavior: 'ask', message: 'writes' }),
  async call({ text }) {
    return `wrote ${text}`
  },
})

const texts = (content: ReadonlyArray<{ content?: unknown }>) => content.map((block) => String(block.content))
const seqs = (events: readonly KernelEvent[]) => events.map((event) => event.seq)
const increasing = (values: readonly number[]) => values.every((v, i) => i === 0 || v > (values[i - 1] as number))

describe('createMemoryLog without retention', () => {
  it('keeps every event, seq = index, as before', async () => {
    const log = createMemoryLog(fixedClock())
    const { kernel } = kernelOver(log)
    for (let t = 0; t < 4; t++) await kernel.runTurn(message(t))
    expect(seqs(log.read())).toEqual(log.read().map((_, i) => i))
    expect(log.read().filter((e) => e.type === 'turn.completed')).toHaveLength(4)
  })

  it('a history given as an options object is the same as one given as an array', async () => {
    const first = kernelOver(createMemoryLog(fixedClock()))
    await first.kernel.runTurn(message(0))
    const history = first.log.read()
    expect(createMemoryLog(fixedClock(), { history }).read()).toEqual(createMemoryLog(fixedClock(), history).read())
  })

  // The turn read its events as read().slice(first seq): a history with seq gaps left it empty.
  it('a kernel over a history with seq gaps still answers its turn', async () => {
    const first = kernelOver(createMemoryLog(fixedClock()))
    await first.kernel.runTurn(message(0))
    const gapped = first.log.read().filter((e) => e.type !== 'tool.queued')
    const { kernel } = kernelOver(createMemoryLog(fixedClock(), gapped))
    const { message: result, events } = await kernel.runTurn(message(1))
    expect(texts(result.content)).toEqual(['1.0', '1.1', '1.2'])
    expect(events[0]?.type).toBe('turn.started')
  })
})

describe('createMemoryLog with retainTurns', () => {
  it('keeps the last N finished turns; every turn is answered; events$ publishes every event', async () => {
    const { kernel, log, published } = kernelOver(createMemoryLog(fixedClock(), { retainTurns: 2 }))
    const sizes: number[] = []
    const turnIds: string[] = []
    for (let t = 0; t < 12; t++) {
      const { message: result, events } = await kernel.runTurn(message(t))
      expect(texts(result.content)).toEqual([`${t}.0`, `${t}.1`, `${t}.2`])
      turnIds.push(events[0]?.turnId ?? '')
      sizes.push(log.read().length)
    }
    const started = log.read().filter((e) => e.type === 'turn.started')
    // The first turn stays only as the frame of its session fact (session.configured).
    expect(started.map((e) => e.turnId)).toEqual([turnIds[0], turnIds[10], turnIds[11]])
    expect(
      log
        .read()
        .filter((e) => e.turnId === turnIds[0])
        .map((e) => e.type),
    ).toEqual(['turn.started', 'session.configured', 'turn.completed'])
    expect(new Set(sizes.slice(3)).size).toBe(1)
    expect(seqs(published)).toEqual(published.map((_, i) => i))
    expect(increasing(seqs(log.read()))).toBe(true)
    expect(log.read().at(-1)).toBe(published.at(-1))
  })

  it('never repeats a seq after a drop: a new turn continues after the last one published', async () => {
    const { kernel, log, published } = kernelOver(createMemoryLog(fixedClock(), { retainTurns: 1 }))
    for (let t = 0; t < 5; t++) await kernel.runTurn(message(t))
    const next = log.append({
      type: 'turn.started',
      turnId: 'x',
      mode: 'batch',
      maxConcurrency: 1,
      earlyStart: 'none',
      cwd: '/',
      permissions: { mode: 'default', allow: [], ask: [], deny: [] },
    } as never)
    expect(next.seq).toBe((published.at(-2)?.seq ?? -1) + 1)
    expect(new Set(seqs(published)).size).toBe(published.length)
  })

  it('a long turn still running keeps all its events while later turns finish and go', async () => {
    const { Gated, open } = gatedTool()
    const { kernel, log } = kernelOver(createMemoryLog(fixedClock(), { retainTurns: 1 }), [Echo, Gated])
    const long = kernel.startTurn()
    long.addToolUse({ id: 'g1', name: 'Gated', input: { id: 'g1' } })
    long.end()
    let lastId = ''
    for (let t = 0; t < 6; t++) lastId = (await kernel.runTurn(message(t))).events[0]?.turnId ?? ''
    const longEvents = log.read().filter((e) => e.turnId === long.turnId)
    expect(longEvents[0]?.type).toBe('turn.started')
    // The long turn (which also holds the session's configuration) and the last finished one.
    expect(
      log
        .read()
        .filter((e) => e.type === 'turn.started')
        .map((e) => e.turnId),
    ).toEqual([long.turnId, lastId])
    open('g1')
    const { message: result } = await long.result()
    expect(texts(result.content)).toEqual(['done g1'])
    await kernel.runTurn(message(9))
    expect(log.read().some((e) => e.turnId === long.turnId && e.type === 'tool.result')).toBe(false)
    expect(increasing(seqs(log.read()))).toBe(true)
  })

  it('concurrent turns, interleaved and finishing out of order, each get their own results', async () => {
    const { Gated, open } = gatedTool()
    const { kernel, log } = kernelOver(createMemoryLog(fixedClock(), { retainTurns: 1 }), [Echo, Gated])
    const a = kernel.startTurn()
    const b = kernel.startTurn()
    a.addToolUse({ id: 'a1', name: 'Gated', input: { id: 'a1' } })
    b.addToolUse({ id: 'b1', name: 'Gated', input: { id: 'b1' } })
    a.addToolUse({ id: 'a2', name: 'Gated', input: { id: 'a2' } })
    b.end()
    a.end()
    open('b1')
    expect(texts((await b.result()).message.content)).toEqual(['done b1'])
    await kernel.runTurn(message(0))
    await kernel.runTurn(message(1))
    open('a2')
    open('a1')
    const { message: result } = await a.result()
    expect(texts(result.content)).toEqual(['done a1', 'done a2'])
    expect(log.read().some((e) => e.turnId === b.turnId)).toBe(false)
    expect(checkLogOrder(log.read())).toEqual({ ok: true })
  })

  it('updates() of a turn whose events were dropped still yields all of them', async () => {
    const { kernel } = kernelOver(createMemoryLog(fixedClock(), { retainTurns: 1 }))
    const turn = kernel.startTurn()
    for (const [id, , input] of message(0).content.map((b) => [b.id, b.name, b.input] as const))
      turn.addToolUse({ id, name: 'Echo', input })
    turn.end()
    await turn.result()
    for (let t = 1; t < 4; t++) await kernel.runTurn(message(t))
    const seen: string[] = []
    for await (const update of turn.updates()) if (update.type === 'completed') seen.push(update.toolUseId)
    expect(seen).toEqual(['t0_0', 't0_1', 't0_2'])
  })

  it('a grant given in a dropped turn holds for a kernel resumed over the log', async () => {
    let asked = 0
    const { kernel, log } = kernelOver(createMemoryLog(fixedClock(), { retainTurns: 1 }), [Echo, Writer], {
      canUseTool: () => (asked++, { behavior: 'allow', grant: { scope: 'tool' } }),
    })
    await kernel.runTurn(assistant(['w1', 'Writer', { text: 'one' }]))
    for (let t = 0; t < 4; t++) await kernel.runTurn(message(t))
    expect(asked).toBe(1)
    expect(log.read().filter((e) => e.type === 'permission.granted')).toHaveLength(1)
    const resumed = createKernel({
      tools: [Echo, Writer],
      log,
      ports: { clock: fixedClock(), ids: { next: (p: string) => `${p}_resumed` } },
      canUseTool: () => {
        throw new Error('should not ask')
      },
    })
    const { message: result } = await resumed.runTurn(assistant(['w2', 'Writer', { text: 'two' }]))
    expect(texts(result.content)).toEqual(['wrote two'])
  })

  it('tools loaded in a dropped turn stay loaded for a kernel resumed over the log', async () => {
    const tools = syntheticTools(6)
    const [a, b] = [tools[1]?.name as string, tools[3]?.name as string]
    const { kernel, log } = kernelOver(createMemoryLog(fixedClock(), { retainTurns: 1 }), [Echo, ...tools], {
      deferral: { mode: 'always' },
    })
    await kernel.runTurn(assistant(['s1', 'ToolSearch', { query: `select:${a}` }]))
    kernel.loadTools([b])
    for (let t = 0; t < 3; t++) await kernel.runTurn(message(t))
    await kernel.runTurn(assistant(['s2', 'ToolSearch', { query: `select:${a}` }]))
    for (let t = 3; t < 6; t++) await kernel.runTurn(message(t))
    expect(loadedFromLog(log.read())).toEqual([a, b])
    expect(referencedFromLog(log.read())).toEqual([a])
    expect(log.read().filter((e) => e.type === 'tool.loaded')).toHaveLength(2)
    const resumed = kernel.resume(log)
    expect(resumed.apiTools({ format: 'openai-chat' }).map((t) => t.function.name)).toEqual([
      'ToolSearch',
      'Echo',
      a,
      b,
    ])
    // Loaded by reference stays deferred for Anthropic (the reference expands it); loaded by the app goes in full.
    const sent = resumed.apiTools()
    expect(sent.find((t) => t.name === a)?.defer_loading).toBe(true)
    expect(sent.find((t) => t.name === b)?.defer_loading).toBeUndefined()
  })

  it('what it keeps is a valid log: order, recovery and the projections read it', async () => {
    const { kernel, log } = kernelOver(createMemoryLog(fixedClock(), { retainTurns: 2 }))
    for (let t = 0; t < 6; t++) await kernel.runTurn(message(t))
    const kept = log.read()
    expect(checkLogOrder(kept)).toEqual({ ok: true })
    expect(recover(kept)).toEqual([])
    const messages = projectMessages(kept)
    expect(messages.map((m) => texts(m.content))).toEqual([[], ['4.0', '4.1', '4.2'], ['5.0', '5.1', '5.2']])
    const spans = projectTelemetry(kept).spans
    expect(spans.filter((span) => span.name.startsWith('execute_tool'))).toHaveLength(2 * K)
    expect(spans.filter((span) => span.name === 'toolkernel.turn')).toHaveLength(3)
    expect(projectTimeline(kept).length).toBeGreaterThan(0)
    expect(projectStats(kept).calls).toBe(2 * K)
    // Re-execution needs the whole history: a window replays as a divergence, not a crash.
    const replayed = await replay(kept, { tools: [Echo] })
    expect(replayed.ok).toBe(false)
  })

  it('trims a history it is given, and keeps the open turn recovery must close', async () => {
    const { Gated } = gatedTool()
    const first = kernelOver(createMemoryLog(fixedClock()), [Echo, Gated])
    const turnIds: string[] = []
    for (let t = 0; t < 3; t++) turnIds.push((await first.kernel.runTurn(message(t))).events[0]?.turnId ?? '')
    const crashed = first.kernel.startTurn()
    crashed.addToolUse({ id: 'g', name: 'Gated', input: { id: 'never' } })
    crashed.end()
    const history = first.log.read().slice()
    const log = createMemoryLog(fixedClock(), { history, retainTurns: 1 })
    expect(
      log
        .read()
        .filter((e) => e.type === 'turn.started')
        .map((e) => e.turnId),
    ).toEqual([turnIds[0], turnIds[2], crashed.turnId])
    const resumed = first.kernel.resume(log)
    expect(log.read().some((e) => e.type === 'turn.recovered' && e.turnId === crashed.turnId)).toBe(true)
    const { message: result } = await resumed.runTurn(message(7))
    expect(texts(result.content)).toEqual(['7.0', '7.1', '7.2'])
    expect(
      log.read().some((e) => e.turnId === crashed.turnId && e.type !== 'turn.started' && e.type !== 'turn.completed'),
    ).toBe(false)
  })

  it('rejects a retention that is not a whole number of at least one turn, and unknown options', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '3'])
      expect(() => createMemoryLog(fixedClock(), { retainTurns: bad as number })).toThrow(
        /retainTurns must be a whole number of turns, at least 1/,
      )
    expect(() => createMemoryLog(fixedClock(), { retain: 3 } as never)).toThrow(/unknown option "retain"/)
    expect(createMemoryLog(fixedClock(), { retainTurns: Infinity }).read()).toEqual([])
  })
})
