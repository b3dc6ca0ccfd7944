/**
 * Every path of the tool-call machine, enumerated from the machine itself (xstate/graph's simple
 * paths over every event the steps can answer with), for every outcome of parse, and run: each
 * path that reaches an end emits exactly once, ends in the state its failure says, records each
 * step at most once, and starts the tool only when it entered `call`.
 */
import { describe, expect, it } from 'vitest'
import { assign, createActor } from 'xstate'
import { getSimplePaths } from 'xstate/graph'
import { toolCallMachine } from '../../src/machines/tool-call.machine.js'
import type { Failure, ToolCallContext, ToolCallEvent } from '../../src/machines/tool-call.types.js'

const fail = (step: Failure['step']): Failure => ({ step, code: 'tool_error', message: `${step} failed` })

const EVENTS: ToolCallEvent[] = [
  { type: 'validateInput.done' },
  { type: 'validateInput.done', failure: { ...fail('validate'), code: 'validate_input' } },
  { type: 'preHook.done' },
  { type: 'preHook.done', failure: { ...fail('preHook'), code: 'hook_blocked' } },
  { type: 'permission.done', decision: { behavior: 'allow', source: 'rule' } },
  {
    type: 'permission.done',
    decision: { behavior: 'deny', source: 'rule' },
    failure: { ...fail('permission'), code: 'permission_denied' },
  },
  { type: 'call.done', overBudget: false },
  { type: 'call.done', overBudget: true },
  { type: 'call.failed', failure: fail('call') },
  { type: 'budget.done' },
  { type: 'postHook.done' },
  { type: 'abort', reason: 'user pressed Esc' },
  { type: 'abort', reason: 'sibling failed', force: true },
]

type Parsed = Partial<Pick<ToolCallContext, 'failure' | 'interrupt' | 'steps'>>

/** Every outcome of parse: a failure, or each combination of optional steps and interrupt behaviour. */
function parseOutcomes(): Array<{ name: string; parsed: Parsed }> {
  const outcomes: Array<{ name: string; parsed: Parsed }> = [
    { name: 'parse fails', parsed: { failure: { step: 'parse', code: 'unknown_tool', message: 'no such tool' } } },
  ]
  for (const customValidation of [false, true])
    for (const preHooks of [false, true])
      for (const postHooks of [false, true])
        for (const interrupt of ['block', 'cancel'] as const)
          outcomes.push({
            name: `validate=${customValidation} pre=${preHooks} post=${postHooks} ${interrupt}`,
            parsed: { steps: { customValidation, preHooks, postHooks }, interrupt },
          })
  return outcomes
}

function provided(parsed: Parsed, trail: string[]) {
  const note = (name: string) => () => void trail.push(name)
  return toolCallMachine.provide({
    actions: {
      parse: assign(parsed as never),
      validateSchema: note('validateSchema'),
      runValidateInput: note('runValidateInput'),
      runPreHooks: note('runPreHooks'),
      runPermission: note('runPermission'),
      runCall: note('runCall'),
      abortCall: note('abortCall'),
      runBudget: note('runBudget'),
      abandonBudget: note('abandonBudget'),
      mapResult: note('mapResult'),
      runPostHooks: note('runPostHooks'),
      emit: note('emit'),
      recordStep: ((_: unknown, params: { step: string }) => void trail.push(`record:${params.step}`)) as never,
      recordStart: note('recordStart'),
    },
  })
}

const INPUT = { turnId: 't', toolUseId: 'u', index: 0, name: 'X' }

describe('every path of the tool-call machine', () => {
  let total = 0
  for (const { name, parsed } of parseOutcomes()) {
    it(name, () => {
      const machine = provided(parsed, [])
      const paths = getSimplePaths(machine, { events: EVENTS, input: INPUT })
      const ending = paths.filter((path) => path.state.status === 'done')
      expect(ending.length).toBeGreaterThan(0)
      for (const path of ending) {
        const trail: string[] = []
        const actor = createActor(provided(parsed, trail), { input: INPUT }).start()
        for (const step of path.steps)
          if ((step.event.type as string) !== 'xstate.init') actor.send(step.event as ToolCallEvent)
        const snapshot = actor.getSnapshot()
        const where = `${name}: ${path.steps.map((s) => s.event.type).join(' → ')}`
        expect(snapshot.status, where).toBe('done')
        expect(
          trail.filter((t) => t === 'emit'),
          where,
        ).toHaveLength(1)
        expect(trail.at(-1), where).toBe('emit')
        const records = trail.filter((t) => t.startsWith('record:'))
        expect(new Set(records).size, where).toBe(records.length)
        expect(trail.includes('recordStart'), where).toBe(trail.includes('runCall'))
        const failure = snapshot.context.failure
        const expected =
          failure === null
            ? 'succeeded'
            : failure.code === 'cancelled' || failure.code === 'interrupted'
              ? 'cancelled'
              : 'failed'
        expect(snapshot.value, where).toBe(expected)
        if (trail.includes('abortCall'))
          expect(
            path.steps.some((s) => s.event.type === 'abort'),
            where,
          ).toBe(true)
        if (failure === null) expect(trail, where).toContain('runCall')
      }
      total += ending.length
    })
  }

  it('enumerates enough paths to mean something', () => {
    expect(total).toBeGreaterThan(100)
  })
})
