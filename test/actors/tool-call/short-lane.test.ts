/**
 * The machine's short lanes (parse → call, call → succeeded) are an optimisation only: a call
 * that takes them logs the same events, in the same order, with the same payloads, and answers
 * the same, as one that walks every step. The long way round is forced here with a tool whose
 * own permission check allows (the short lane never runs a tool's check to predict it).
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createActor } from 'xstate'
import { buildTool, createKernel, type KernelEvent } from '../../../src/index.js'
import { toolCallMachine } from '../../../src/machines/tool-call.machine.js'

type Options = Parameters<typeof createKernel>[0]

function echo(ownCheck: boolean, output = 'ok') {
  return buildTool({
    name: 'Echo',
    description: () => 'Echoes.',
    inputSchema: z.strictObject({ text: z.string() }),
    isConcurrencySafe: () => true,
    call: async () => output,
    ...(ownCheck ? { checkPermissions: () => ({ behavior: 'allow' as const }) } : {}),
  })
}

/** Events as logged (the clock and ids are fixed, so two runs log the same bytes). */
function bodies(events: readonly KernelEvent[]): unknown[] {
  return [...events]
}

async function both(input: unknown, options: Partial<Options> = {}, output = 'ok') {
  const run = async (ownCheck: boolean) => {
    let n = 0
    const kernel = createKernel({
      tools: [echo(ownCheck, output)],
      ports: { ids: { next: (p) => `${p}_${++n}` }, clock: { now: () => 0 } },
      ...options,
    })
    const turn = await kernel.runTurn({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'a', name: 'Echo', input },
        { type: 'tool_use', id: 'b', name: 'Echo', input },
      ],
    })
    return { message: turn.message, events: bodies(turn.events) }
  }
  return { short: await run(false), long: await run(true) }
}

describe('the short lanes log and answer exactly as the long way round', () => {
  it('a plain call: every step recorded, in order', async () => {
    const { short, long } = await both({ text: 'x' })
    expect(short).toEqual(long)
    const types = short.events.map((e) => (e as { type: string }).type)
    for (const step of [
      'tool.parsed',
      'tool.validated',
      'tool.permitted',
      'tool.started',
      'tool.completed',
      'tool.mapped',
    ])
      expect(types).toContain(step)
  })

  it('allowed by the mode or by a rule: the decision recorded is the policy’s', async () => {
    for (const permissions of [{ mode: 'bypassPermissions' as const }, { allow: ['Echo'] }]) {
      const { short, long } = await both({ text: 'x' }, { permissions })
      expect(short).toEqual(long)
      const permitted = short.events.find((e) => (e as { type: string }).type === 'tool.permitted')
      expect(permitted).toMatchObject({ behavior: 'allow', source: permissions.mode ? 'mode' : 'rule' })
    }
  })

  it('denied by a rule, or an invalid input: not the short lane, and the same rejection', async () => {
    const denied = await both({ text: 'x' }, { permissions: { deny: ['Echo'] } })
    expect(denied.short).toEqual(denied.long)
    expect(JSON.stringify(denied.short.message)).toMatch(/tool_use_error/)
    const invalid = await both({ txt: 'x' })
    expect(invalid.short).toEqual(invalid.long)
    expect(invalid.short.events.map((e) => (e as { type: string }).type)).toContain('tool.rejected')
  })

  it('an empty output still gets its note, on the long way through map', async () => {
    const { short, long } = await both({ text: 'x' }, {}, '')
    expect(short).toEqual(long)
    expect(JSON.stringify(short.message)).toMatch(/no output|completed/i)
  })
})

describe('the short lane does not repeat what the turn already did', () => {
  it("runs the tool's schema once per call: the turn's safety check already validated the input", async () => {
    let runs = 0
    const Counted = buildTool({
      name: 'Counted',
      description: () => 'Counts its validations.',
      inputSchema: z.strictObject({ text: z.string().refine(() => ++runs > 0) }),
      isConcurrencySafe: () => true,
      call: async () => 'ok',
    })
    const kernel = createKernel({ tools: [Counted] })
    const turn = await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'a', name: 'Counted', input: { text: 'x' } }],
    })
    expect(JSON.stringify(turn.message)).toContain('"content":"ok"')
    expect(runs).toBe(1)
  })
})

describe('the machine: a short lane runs the same actions as the long way', () => {
  function trail(atOnce: boolean, mapped: boolean) {
    const seen: string[] = []
    const note = (name: string) => () => void seen.push(name)
    const names = ['parse', 'validateSchema', 'runValidateInput', 'runPreHooks', 'abortCall', 'runBudget']
    const more = ['abandonBudget', 'mapResult', 'emit', 'runPostHooks', 'recordStart', 'runCall']
    const actions = Object.fromEntries([...names, ...more].map((name) => [name, note(name)]))
    const machine = toolCallMachine.provide({
      actions: {
        ...actions,
        // The long way's permission step answers when sent; the short lane's answers inside the transition.
        runPermission: note('runPermission'),
        runPermissionAtOnce: note('runPermission'),
        recordStep: ((_: unknown, params: { step: string }) => void seen.push(`record:${params.step}`)) as never,
      },
      guards: { decidedAtOnce: () => atOnce },
    })
    const actor = createActor(machine, { input: { turnId: 't', toolUseId: 'u', index: 0, name: 'X' } }).start()
    if (!atOnce) actor.send({ type: 'permission.done', decision: { behavior: 'allow', source: 'tool' } })
    actor.send({ type: 'call.done', overBudget: false, mapped })
    return { seen: seen.filter((name) => name !== 'validateSchema'), value: actor.getSnapshot().value }
  }

  it('parse → call and call → succeeded record every step, in the order of the long way', () => {
    const long = trail(false, false)
    expect(long.value).toBe('succeeded')
    for (const [atOnce, mapped] of [
      [true, true],
      [true, false],
      [false, true],
    ] as const)
      expect(trail(atOnce, mapped)).toEqual(long)
    expect(long.seen).toEqual([
      'parse',
      'record:parse',
      'record:validate',
      'runPermission',
      'record:permission',
      'recordStart',
      'runCall',
      'record:call',
      'mapResult',
      'record:map',
      'emit',
    ])
  })
})
