/**
 * Results that wait for each other (docs/decisions/results.md, 154): what ends a wait besides a
 * sibling's result — a sibling's call ending while its tool never settles — and replay holding
 * the engine to the group and the persisted set the log recorded.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, replay, type KernelEvent } from '../../../src/index.js'
import { assistant, testKernel } from '../../helpers.js'

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
    const saved = new Map<string, string>()
    const results = {
      save: async ({ toolUseId }: { toolUseId: string }, text: string) => (
        saved.set(`/r/${toolUseId}`, text),
        `/r/${toolUseId}`
      ),
    }
    const kernel = testKernel([Out], { results, messageBudgetChars: 10_000 })
    await kernel.runTurn(assistant(['small', 'Out', { chars: 3_000 }], ['large', 'Out', { chars: 8_000 }]))
    const log = kernel.log.read()
    const options = { tools: [Out], messageBudgetChars: 10_000, readResult: (path: string) => saved.get(path) }
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
