/**
 * Results that wait for each other (docs/decisions/results.md, 154): what ends a wait besides a
 * sibling's result — a sibling's call ending while its tool never settles — and replay holding
 * the engine to the group and the persisted set the log recorded.
 */
import { assert, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, replay, type KernelEvent } from '../../../src/index.js'
import { assistant, gate, memoryResults, testKernel } from '../../helpers.js'

const Big = buildTool({
  name: 'Big',
  description: () => 'Returns chars characters at once.',
  inputSchema: z.strictObject({ chars: z.number() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ chars }) => 'x'.repeat(chars),
})

/** A 'cancel' tool that ignores its signal: its promise never settles. */
const Stuck = buildTool({
  name: 'Stuck',
  description: () => 'Never returns.',
  inputSchema: z.strictObject({}),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  interruptBehavior: () => 'cancel',
  call: () => new Promise<string>(() => {}),
})

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('a result waiting for its group', () => {
  it('is decided when a running sibling is interrupted, though its tool never settles', async () => {
    const kernel = testKernel([Big, Stuck])
    const controller = new AbortController()
    const turn = kernel.runTurn(assistant(['big', 'Big', { chars: 2_000 }], ['stuck', 'Stuck', {}]), {
      signal: controller.signal,
    })
    while (!kernel.log.read().some((e) => e.type === 'budget.held')) await tick()
    controller.abort('the user pressed Esc')
    const { message, events } = await turn
    // Big is a 'block' tool: the abort lets it finish, with its whole output.
    expect(message.content[0]?.content).toBe('x'.repeat(2_000))
    expect(message.content[1]?.is_error).toBe(true)
    expect(events.filter((e) => e.type === 'budget.decided')).toMatchObject([{ group: ['big'], persisted: [] }])
    const replayed = await replay(kernel.log.read(), { tools: [Big, Stuck] })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('has its result when interrupted itself: a failed sibling stops the others, but the held one returned', async () => {
    let failNow!: () => void
    const failing = new Promise<void>((resolve) => (failNow = resolve))
    const Quick = buildTool({
      name: 'Quick',
      description: () => 'Returns 2,000 characters, then lets Failing fail.',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      interruptBehavior: () => 'cancel',
      call: async () => (setImmediate(failNow), 'q'.repeat(2_000)),
    })
    const Failing = buildTool({
      name: 'Failing',
      description: () => 'Fails, and stops its siblings.',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      cascadesOnFailure: true,
      call: async () => {
        await failing
        throw new Error('broken')
      },
    })
    const kernel = testKernel([Quick, Failing, Stuck])
    const { message, events } = await kernel.runTurn(
      assistant(['quick', 'Quick', {}], ['failing', 'Failing', {}], ['stuck', 'Stuck', {}]),
    )
    expect(events.some((e) => e.type === 'budget.held' && e.toolUseId === 'quick')).toBe(true)
    expect(events.some((e) => e.type === 'tool.cascaded')).toBe(true)
    expect(message.content.map((block) => [block.tool_use_id, block.is_error === true])).toEqual([
      ['quick', false],
      ['failing', true],
      ['stuck', true],
    ])
    expect(message.content[0]?.content).toBe('q'.repeat(2_000))
    const replayed = await replay(kernel.log.read(), { tools: [Quick, Failing, Stuck] })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('replay holds the engine to the recorded decision: another persisted set is a divergence at budget.decided', async () => {
    let letGo!: () => void
    const first = new Promise<void>((resolve) => (letGo = resolve))
    const Out = buildTool({
      name: 'Out',
      description: () => 'Prints chars characters.',
      inputSchema: z.strictObject({ chars: z.number() }),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      async call({ chars }) {
        if (chars < 5_000) await first
        else setImmediate(letGo)
        return 'x'.repeat(chars)
      },
    })
    const { results, readResult } = memoryResults()
    const kernel = testKernel([Out], { results, messageBudgetChars: 10_000 })
    await kernel.runTurn(assistant(['small', 'Out', { chars: 3_000 }], ['large', 'Out', { chars: 8_000 }]))
    const log = kernel.log.read()
    const options = { tools: [Out], messageBudgetChars: 10_000, readResult }
    const ok = await replay(log, options)
    expect(ok.ok ? 'ok' : ok.divergence.message).toBe('ok')
    const decided = log.find((e) => e.type === 'budget.decided') as KernelEvent
    expect(decided).toMatchObject({ group: ['small', 'large'], persisted: ['large'] })
    const edited = log.map((e) => (e === decided ? ({ ...e, persisted: ['small'] } as KernelEvent) : e))
    const result = await replay(edited, options)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.divergence.position).toBe(decided.seq)
  })
})

/** A sibling that runs until the test lets it go: it answers, or fails when told to. */
function runningSibling() {
  let letGo!: (fail: boolean) => void
  const released = new Promise<boolean>((resolve) => (letGo = resolve))
  const Wait = buildTool({
    name: 'Wait',
    description: () => 'Runs until let go.',
    inputSchema: z.strictObject({}),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async () => {
      if (await released) throw new Error('the sibling failed')
      return 'waited'
    },
  })
  return { Wait, letGo }
}

/** A tool that always asks a person: a child turn that calls it parks. */
const Deploy = buildTool({
  name: 'Deploy',
  description: () => 'Deploys.',
  inputSchema: z.strictObject({}),
  checkPermissions: () => ({ behavior: 'ask', message: 'deploys need a person' }),
  call: async () => 'deployed',
})

/**
 * Prints chars characters ('cancel' unless told), with the given limit of its own, once `before`
 * (if given) settles.
 */
const printer = (
  name: string,
  how: { maxResultSizeChars?: number; interrupt?: 'cancel' | 'block'; before?: Promise<void> } = {},
) =>
  buildTool({
    name,
    description: () => 'Prints chars characters.',
    inputSchema: z.strictObject({ chars: z.number() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: () => how.interrupt ?? 'cancel',
    ...(how.maxResultSizeChars === undefined ? {} : { maxResultSizeChars: how.maxResultSizeChars }),
    call: async ({ chars }) => (await how.before, 'x'.repeat(chars)),
  })

/** Turns the loop until every call in `ids` has either waited (`budget.held`) or gone on (`tool.completed`). */
async function untilArrived(events: () => readonly KernelEvent[], ids: readonly string[]): Promise<void> {
  const arrived = () =>
    ids.every((id) =>
      events().some((e) => (e.type === 'budget.held' || e.type === 'tool.completed') && e.toolUseId === id),
    )
  while (!arrived()) await tick()
}

describe('what waits for its group, and what ends the wait', () => {
  it('only output the message budget may persist waits: not short output, not output past its own limit, not an unlimited tool', async () => {
    const { Wait, letGo } = runningSibling()
    const Out = printer('Out')
    const Capped = printer('Capped', { maxResultSizeChars: 2_000 })
    const Unlimited = printer('Unlimited', { maxResultSizeChars: Infinity })
    const kernel = testKernel([Wait, Out, Capped, Unlimited])
    const turn = kernel.runTurn(
      assistant(
        ['wait', 'Wait', {}],
        ['whole', 'Out', { chars: 1_000 }],
        ['over', 'Out', { chars: 1_001 }],
        ['at', 'Capped', { chars: 2_000 }],
        ['past', 'Capped', { chars: 2_001 }],
        ['unlimited', 'Unlimited', { chars: 5_000 }],
      ),
    )
    await untilArrived(() => kernel.log.read(), ['whole', 'over', 'at', 'past', 'unlimited'])
    letGo(false)
    const { events } = await turn
    // 1,000 characters are always kept whole (KEEP_WHOLE_CHARS); 1,001 may be persisted. Output at
    // its tool's own limit may be kept; past it, it is always persisted, so it decides at once.
    expect(events.flatMap((e) => (e.type === 'budget.held' ? [e.toolUseId] : []))).toEqual(['over', 'at'])
    expect(events.filter((e) => e.type === 'budget.decided')).toMatchObject([{ group: ['over', 'at'], persisted: [] }])
  })

  it("is ended by a sibling's failure as its tool fails, before that call's result", async () => {
    const { Wait, letGo } = runningSibling()
    const kernel = testKernel([Wait, printer('Out')])
    const turn = kernel.runTurn(assistant(['big', 'Out', { chars: 2_000 }], ['wait', 'Wait', {}]))
    await untilArrived(() => kernel.log.read(), ['big'])
    letGo(true)
    const { events, message } = await turn
    const at = (found: (e: KernelEvent) => boolean) => events.findIndex(found)
    const decided = at((e) => e.type === 'budget.decided')
    expect(events[decided]).toMatchObject({ group: ['big'], persisted: [] })
    expect(decided).toBeLessThan(at((e) => e.type === 'tool.result' && e.toolUseId === 'wait'))
    expect(message.content.map((block) => block.is_error === true)).toEqual([false, true])
    // Replay gives the failure at budget.decided, where the engine decided on it.
    expect(events[decided + 1]).toMatchObject({ type: 'tool.errored', toolUseId: 'wait' })
    const replayed = await replay(kernel.log.read(), { tools: [Wait, printer('Out')] })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('a held call interrupted before its group is decided claims its room alone, and leaves the group', async () => {
    const { saved, results, readResult } = memoryResults()
    const kernel = testKernel([Stuck, printer('Out')], { results, messageBudgetChars: 1_500 })
    const controller = new AbortController()
    const turn = kernel.runTurn(assistant(['big', 'Out', { chars: 2_000 }], ['stuck', 'Stuck', {}]), {
      signal: controller.signal,
    })
    await untilArrived(() => kernel.log.read(), ['big'])
    controller.abort('the user pressed Esc')
    const { events, message } = await turn
    // Alone, 2,000 characters do not fit a 1,500 budget: persisted. No group is decided after.
    expect([...saved.keys()]).toEqual(['/r/big'])
    expect(String(message.content[0]?.content)).not.toBe('x'.repeat(2_000))
    expect(events.filter((e) => e.type === 'budget.decided')).toEqual([])
    const replayed = await replay(kernel.log.read(), {
      tools: [Stuck, printer('Out')],
      messageBudgetChars: 1_500,
      readResult,
    })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('is ended by a sibling that waits for a person below it (a child turn parked), and the parent turn parks with the result in', async () => {
    const Open = buildTool({
      name: 'Open',
      description: () => 'Runs Deploy in a child session, once the Out call has arrived.',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call: async (_input, context) => {
        await untilArrived(() => kernel.log.read(), ['big'])
        const { message } = await (context.runChild?.() ?? assert.fail('no runChild')).runTurn(
          assistant(['c1', 'Deploy', {}]),
        )
        return `child: ${String(message.content[0]?.content)}`
      },
    })
    const kernel = testKernel([Deploy, Open, printer('Out')])
    const first = await kernel.runTurn(assistant(['big', 'Out', { chars: 2_000 }], ['open', 'Open', {}]))
    expect(first.pending.map((p) => p.toolUseId)).toEqual(['c1'])
    const log = kernel.log.read()
    const parked = log.findIndex((e) => e.type === 'turn.parked' && e.parentToolUseId === undefined)
    expect(log.findIndex((e) => e.type === 'budget.decided')).toBeLessThan(parked)
    expect(log.findIndex((e) => e.type === 'tool.result' && e.toolUseId === 'big')).toBeLessThan(parked)
    const done = await kernel.answer('c1', { behavior: 'allow' })
    expect(done.message.content.map((block) => block.content)).toEqual(['x'.repeat(2_000), 'child: deployed'])
    // Moved on, the Open call runs again: its own output (short) is claimed at once, in no group.
    expect(kernel.log.read().filter((e) => e.type === 'budget.decided')).toHaveLength(1)
  })
})

describe('held calls, each its own', () => {
  it('a held call interrupted claims its own room, not another held call’s; the other waits on', async () => {
    const Keep = printer('Keep', { interrupt: 'block' })
    const kernel = testKernel([Stuck, Keep, printer('Out')])
    const controller = new AbortController()
    const turn = kernel.runTurn(
      assistant(['kept', 'Keep', { chars: 2_000 }], ['cut', 'Out', { chars: 3_000 }], ['stuck', 'Stuck', {}]),
      { signal: controller.signal },
    )
    await untilArrived(() => kernel.log.read(), ['kept', 'cut'])
    controller.abort('the user pressed Esc')
    const { events, message } = await turn
    // `cut` ('cancel') is claimed alone at the abort; `kept` ('block') waits for Stuck's end.
    expect(events.filter((e) => e.type === 'budget.decided')).toMatchObject([{ group: ['kept'], persisted: [] }])
    expect(message.content.map((block) => String(block.content).length)).toEqual([2_000, 3_000, expect.any(Number)])
  })

  it('a call that waited for a person below it runs again once answered: a result arriving then waits for it', async () => {
    const late = gate()
    const opening = gate()
    const Late = printer('Late', { before: late.opened })
    const Open = buildTool({
      name: 'Open',
      description: () => 'Runs Deploy in a child session, then waits to be let go.',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      call: async (_input, context) => {
        const child = context.runChild?.() ?? assert.fail('no runChild')
        await child.runTurn(assistant(['c1', 'Deploy', {}]))
        await opening.opened
        return 'opened'
      },
    })
    const kernel = testKernel([Deploy, Open, Late])
    // Late runs (until let go) while Open waits below it, so the turn does not settle parked.
    void kernel.runTurn(assistant(['open', 'Open', {}], ['late', 'Late', { chars: 2_000 }]))
    while (kernel.pendingApprovals().length === 0) await tick()
    const answered = kernel.answer('c1', { behavior: 'allow' })
    while (!kernel.log.read().some((e) => e.type === 'tool.completed' && e.toolUseId === 'c1')) await tick()
    late.open()
    await untilArrived(() => kernel.log.read(), ['late'])
    opening.open()
    const { message } = await answered
    const log = kernel.log.read()
    expect(log.some((e) => e.type === 'budget.held' && e.toolUseId === 'late')).toBe(true)
    expect(log.filter((e) => e.type === 'budget.decided')).toMatchObject([{ group: ['late'] }])
    expect(message.content.map((block) => block.content)).toEqual(['opened', 'x'.repeat(2_000)])
  })
})

describe('a group decided against the message budget', () => {
  const saveTo = () => ({ save: async ({ toolUseId }: { toolUseId: string }) => `/r/${toolUseId}` })
  const decidedIn = async (messageBudgetChars: number) => {
    const kernel = testKernel([printer('Out')], { results: saveTo(), messageBudgetChars })
    const { events } = await kernel.runTurn(assistant(['a', 'Out', { chars: 2_000 }], ['b', 'Out', { chars: 2_000 }]))
    return events.filter((e) => e.type === 'budget.decided')
  }

  it('keeps all whole when they fit exactly', async () => {
    expect(await decidedIn(4_000)).toMatchObject([{ group: ['a', 'b'], persisted: [] }])
  })

  it('one character short, persists one of two equal results: the earlier', async () => {
    expect(await decidedIn(3_999)).toMatchObject([{ group: ['a', 'b'], persisted: ['a'] }])
  })
})
