/**
 * Re-execution replay at the edges of the configuration a log replays with: the toolkernel version
 * that picks the dispatch, a log refused as out of order, a log without recorded rules, the app's
 * and a tool source's pool changes between turns, the ports a tool's own checks see, and outside
 * answers the log puts before the engine asks for them.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, replay, type KernelEvent, type ReplayResult, type Tool, type ToolSource } from '../../src/index.js'
import { createKernelInternals } from '../../src/kernel.js'
import { createMemoryLog } from '../../src/index.js'
import { assistant, counterIds, Echo, fixedClock, memoryResults, testKernel } from '../helpers.js'
import { edited, expectOk, Reporting, reportingLog, reseq, without, Writer } from './units-helpers.js'

const divergenceOf = (result: ReplayResult) => {
  if (result.ok) throw new Error('expected a divergence')
  return result.divergence
}

/** What the replay re-executed of one call: its progress and answer events, with their data. */
const answersOf = (log: readonly KernelEvent[], toolUseId: string) =>
  log.flatMap((e) => {
    if (!('toolUseId' in e) || e.toolUseId !== toolUseId) return []
    if (e.type === 'tool.progress') return [[e.type, e.data]]
    if (e.type === 'tool.completed') return [[e.type, e.output]]
    return []
  })

const Lister = buildTool({
  name: 'Lister',
  description: () => 'Lists notes.',
  inputSchema: z.object({}),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async () => 'a.md b.md',
})

/**
 * A batch turn with a cap of one whose first call names no tool: it is answered at once, inside
 * its own start, and whether the next call starts before the message's end is logged depends on
 * when the scheduler hears of it, which toolkernel 0.2 changed (at once now; a microtask late before).
 */
async function dispatchLog(): Promise<KernelEvent[]> {
  const kernel = testKernel([Echo], { maxConcurrency: 1 })
  await kernel.runTurn(assistant(['x', 'Nope', {}], ['a', 'Echo', { text: 'a' }]))
  return [...kernel.log.read()]
}
/** Where a current log diverges when replayed with the dispatch of before 0.2. */
const OLD_DISPATCH = { expected: { type: 'tool.dispatched', toolUseId: 'a' }, actual: { type: 'turn.ended' } }

describe('the toolkernel version a log records picks the dispatch it replays with', () => {
  // Before 0.2 the scheduler heard of a finished call a microtask late: such a log replays with
  // that dispatch, and a current log (this one) then diverges. 0.2 and later, any major, do not.
  it.each([
    ['0.1.9', false],
    ['0.0.3', false],
    ['0.2.0', true],
    ['0.10.0', true],
    ['1.0.0', true],
    ['1.1.0', true],
  ])('a log written by toolkernel %s replays a current log as recorded: %s', async (version, same) => {
    const events = edited(
      await dispatchLog(),
      (e) => e.type === 'session.configured',
      () => ({ toolkernel: version }),
    )
    const result = await replay(events, { tools: [Echo] })
    if (same) expectOk(result)
    else expect(divergenceOf(result)).toMatchObject(OLD_DISPATCH)
  })

  it('a log without session.configured is older still: it replays with the old dispatch', async () => {
    const events = without(await dispatchLog(), (e) => e.type === 'session.configured')
    expect(divergenceOf(await replay(events, { tools: [Echo] }))).toMatchObject(OLD_DISPATCH)
  })
})

describe('a log refused as out of order', () => {
  it('re-executes nothing: its log is empty', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['e', 'Echo', { text: 'x' }]))
    const events = kernel.log.read()
    const broken = reseq([...events.slice(1), events[0] as KernelEvent])
    const result = await replay(broken, { tools: [Echo] })
    expect(result.ok).toBe(false)
    expect(result.log).toStrictEqual([])
  })

  // seq is a number the log's own store writes; a hand-built log may carry NaN, which no event
  // can be found again by: the report then names no event and no turn, and still says why.
  it('an event whose seq is NaN: the report names no event and no turn, and still says why', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['e', 'Echo', { text: 'x' }]))
    const stray = kernel.log.read().find((e) => e.type === 'tool.queued') as KernelEvent
    const broken = edited(
      kernel.log.read(),
      (e) => e === stray,
      () => ({ seq: Number.NaN, turnId: 'turn_ghost' }),
    )
    expect(await replay(broken, { tools: [Echo] })).toStrictEqual({
      ok: false,
      turns: 0,
      divergence: {
        position: Number.NaN,
        turnId: '',
        expected: undefined,
        actual: undefined,
        message: "the log is out of order: tool.queued of turn turn_ghost comes before the turn's turn.started",
      },
      log: [],
    })
  })
})

describe('a log whose turn.started records no rules (an older one)', () => {
  const unruled = (events: readonly KernelEvent[]) =>
    edited(
      events,
      (e) => e.type === 'turn.started',
      () => ({ permissions: undefined }),
    )

  // No rules recorded and none given: the defaults decide, as they did for a log written then.
  it('replays with the default rules', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['e', 'Echo', { text: 'x' }]))
    expectOk(await replay(unruled(kernel.log.read()), { tools: [Echo] }))
  })

  it('so a call a recorded rule denied is now allowed there', async () => {
    const kernel = testKernel([Echo], { permissions: { deny: ['Echo'] } })
    await kernel.runTurn(assistant(['e', 'Echo', { text: 'x' }]))
    const changed = divergenceOf(await replay(unruled(kernel.log.read()), { tools: [Echo] }))
    expect(changed.expected).toMatchObject({ type: 'tool.permitted', behavior: 'deny', source: 'rule' })
    expect(changed.actual).toMatchObject({ type: 'tool.permitted', behavior: 'allow' })
  })
})

describe("the app's pool changes between turns are made again where the log has them", () => {
  // A tool removed between turns is unknown in the next one; one registered joins then.
  it('a removal, then a registration', async () => {
    const kernel = testKernel([Echo, Writer])
    await kernel.runTurn(assistant(['w1', 'Writer', { path: '/notes/a.md' }]))
    kernel.removeTools(['Writer'])
    await kernel.runTurn(assistant(['w2', 'Writer', { path: '/notes/b.md' }]))
    kernel.registerTools([Lister])
    await kernel.runTurn(assistant(['l', 'Lister', {}]))
    const events = kernel.log.read()
    const changes = events.filter((e) => e.type === 'pool.changed')
    expect(changes).toMatchObject([
      { source: 'app', added: [], removed: ['Writer'] },
      { source: 'app', added: ['Lister'], removed: [] },
    ])
    expect(events.find((e) => e.type === 'tool.rejected')).toMatchObject({ toolUseId: 'w2', code: 'unknown_tool' })
    const result = await replay(events, { tools: [Echo, Writer, Lister] })
    expectOk(result)
    const strip = ({ at: _at, ...rest }: KernelEvent) => rest
    expect(result.log.filter((e) => e.type === 'pool.changed').map(strip)).toStrictEqual(changes.map(strip))
  })
})

describe("a tool source's tools join as the log says the source offered them", () => {
  const source = (tools: readonly Tool[]): ToolSource => ({
    id: 'plugins',
    tools: () => tools,
    status: () => ({ state: 'ready' }),
    subscribe: () => () => undefined,
  })

  // Replay has no source of its own: it rebuilds it from pool.changed, and the app's changes
  // (source 'app') are the only ones it makes again through registerTools.
  it('a call to a tool of the source replays, and the source is not taken for the app', async () => {
    const kernel = testKernel([Echo], { toolSources: [source([Lister])] })
    await kernel.runTurn(assistant(['l', 'Lister', {}], ['e', 'Echo', { text: 'x' }]))
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'pool.changed')).toMatchObject([
      { source: 'plugins', added: ['Lister'], removed: [] },
    ])
    expect(events.find((e) => e.type === 'tool.completed' && e.toolUseId === 'l')).toMatchObject({
      output: 'a.md b.md',
    })
    const result = await replay(events, { tools: [Echo, Lister] })
    expectOk(result)
    expect(result.log.filter((e) => e.type === 'pool.changed')).toMatchObject([
      { source: 'plugins', added: ['Lister'] },
    ])
  })
})

describe("the ports a tool's own functions see in replay", () => {
  // Replay must decide the same each time: a check that reads the clock or draws an id gets a
  // clock that stands at 0 and ids named after their prefix (turn ids: the log's, then numbered).
  const Stamped = buildTool({
    name: 'Stamped',
    description: () => 'Denies with what its ports say.',
    inputSchema: z.object({}),
    checkPermissions: (_input, { ports }) => ({
      behavior: 'deny',
      message: `at ${String(ports.clock.now())}: ${ports.ids.next('check')} ${ports.ids.next('turn')}`,
    }),
    call: async () => 'never',
  })
  /** The ports replay hands its kernel, as a recording kernel of one turn had them. */
  const replayPorts = () => {
    let turns = 0
    const turn = () => (++turns === 1 ? 'turn_1' : `turn_replay_${turns}`)
    return {
      clock: { now: () => 0 },
      ids: { next: (prefix: string) => (prefix === 'turn' ? turn() : `${prefix}_replay`) },
    }
  }

  it('a clock at 0, ids <prefix>_replay, and turn ids past the log numbered turn_replay_<n>', async () => {
    const kernel = testKernel([Stamped], { ports: replayPorts() })
    await kernel.runTurn(assistant(['s', 'Stamped', {}]))
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'tool.permitted')).toMatchObject({
      behavior: 'deny',
      reason: 'at 0: check_replay turn_replay_2',
    })
    expectOk(await replay(events, { tools: [Stamped] }))
  })
})

describe('answers the log puts before the engine asks for them', () => {
  // A log edited so that a call's progress and output come before the message ended, when
  // nothing has started yet: replay reports the first moved event, and keeps both for the call,
  // so the log it re-executed shows the call run through, with its progress delivered once.
  it('are kept for the call: the re-executed log has them once, and the turn is not stopped', async () => {
    const events = await reportingLog()
    expect(answersOf(events, 'p')).toStrictEqual([
      ['tool.progress', 'half way'],
      ['tool.completed', 'done'],
    ])
    const isAnswer = (e: KernelEvent) => e.type === 'tool.progress' || e.type === 'tool.completed'
    const moved = events.filter(isAnswer)
    const rest = events.filter((e) => !isAnswer(e))
    const ended = rest.findIndex((e) => e.type === 'turn.ended')
    const early = reseq([...rest.slice(0, ended), ...moved, ...rest.slice(ended)])
    const result = await replay(early, { tools: [Reporting] })
    expect(divergenceOf(result)).toMatchObject({
      position: ended,
      expected: { type: 'tool.progress', data: 'half way' },
      actual: { type: 'turn.ended' },
    })
    expect(answersOf(result.log, 'p')).toStrictEqual([
      ['tool.progress', 'half way'],
      ['tool.completed', 'done'],
    ])
    expect(result.log.filter((e) => e.type === 'turn.discarded')).toStrictEqual([])
  })
})

describe('a log two kernels wrote (a session resumed with other rules, cap and tools)', () => {
  // Each kernel logs its configuration with its first turn: replay decides each turn with the
  // configuration of the kernel that ran it, not the first one's.
  async function twoKernels() {
    const first = testKernel([Echo], { permissions: { deny: ['Echo'] }, maxConcurrency: 1 })
    await first.runTurn(assistant(['a', 'Echo', { text: 'x' }], ['b', 'Echo', { text: 'y' }]))
    const second = testKernel([Echo, Lister], { maxConcurrency: 3 }).resume(first.log)
    await second.runTurn(assistant(['c', 'Echo', { text: 'z' }], ['d', 'Lister', {}]))
    return first.log.read()
  }

  it('replays each turn as its own kernel decided it', async () => {
    const events = await twoKernels()
    expect(events.filter((e) => e.type === 'session.configured')).toHaveLength(2)
    expectOk(await replay(events, { tools: [Echo, Lister] }))
  })

  it('and rules given to replay still decide every turn', async () => {
    const events = await twoKernels()
    const changed = divergenceOf(await replay(events, { tools: [Echo, Lister], permissions: { deny: ['Lister'] } }))
    expect(changed.expected).toMatchObject({ type: 'tool.permitted', toolUseId: 'a', behavior: 'deny' })
  })
})

// Before budget.decided (toolkernel 0.3), each result claimed the turn's budget as it arrived, none
// waiting for another. A log of that engine has no budget.held or budget.decided; replay claims
// as it arrives again, or it would decide which output goes to the store differently.
describe('the budget of a log written before budget.decided, under its recorded limit', () => {
  it('claims each result as it arrives, as the engine that wrote it did', async () => {
    let release = () => {}
    const later = new Promise<void>((resolve) => (release = resolve))
    const Out = buildTool({
      name: 'Out',
      description: () => 'Prints.',
      inputSchema: z.object({ chars: z.number(), wait: z.boolean() }),
      isConcurrencySafe: () => true,
      call: async ({ chars, wait }) => {
        if (wait) await later
        else setImmediate(release)
        return 'x'.repeat(chars)
      },
    })
    const { results, readResult } = memoryResults()
    const clock = fixedClock()
    // The older engine, as replay drives it: the first to arrive (b) fits, the second (a) does not.
    const kernel = createKernelInternals(
      {
        tools: [Out],
        log: createMemoryLog(clock),
        messageBudgetChars: 1_500,
        results,
        ports: { clock, ids: counterIds() },
      },
      { budgetByArrival: () => true },
    )
    await kernel.runTurn(
      assistant(['a', 'Out', { chars: 1_050, wait: true }], ['b', 'Out', { chars: 1_400, wait: false }]),
    )
    const events = kernel.log.read()
    expect(events.some((e) => e.type === 'budget.held' || e.type === 'budget.decided')).toBe(false)
    expect(events.filter((e) => e.type === 'tool.budgeted').map((e) => e.toolUseId)).toStrictEqual(['a'])
    // Today's engine would have held both and sent the larger (b) to the store instead. The limit
    // is the one the log recorded (session.configured), unless the caller gives another.
    expectOk(await replay(events, { tools: [Out], readResult }))
    const roomier = await replay(events, { tools: [Out], readResult, messageBudgetChars: 10_000 })
    expect(roomier.ok ? undefined : roomier.divergence.expected).toMatchObject({
      type: 'tool.completed',
      persisted: true,
    })
  })
})
