/**
 * The machine alone, with every effect replaced: what tests and replay do. No kernel, no tools.
 */
import { describe, expect, it } from 'vitest'
import { assign, createActor, enqueueActions } from 'xstate'
import { toolCallMachine } from '../../src/machines/tool-call.machine.js'
import type { ToolCallEvent } from '../../src/machines/tool-call.types.js'

type Script = {
  parseFails?: boolean
  permission?: 'allow' | 'deny'
  call?: 'done' | 'failed' | 'pending'
  customValidation?: boolean
}

function run(script: Script, after?: (send: (e: ToolCallEvent) => void) => void) {
  const trail: string[] = []
  const note = (name: string) => () => void trail.push(name)
  const raise = (event: ToolCallEvent) => enqueueActions(({ enqueue }) => enqueue.raise(event)) as never
  const machine = toolCallMachine.provide({
    actions: {
      parse: script.parseFails
        ? assign({ failure: { step: 'parse', code: 'unknown_tool', message: 'no such tool' } })
        : assign({ steps: { customValidation: script.customValidation ?? false, preHooks: false, postHooks: false } }),
      validateSchema: note('validateSchema'),
      runValidateInput: note('runValidateInput'),
      runPreHooks: note('runPreHooks'),
      runPermission:
        script.permission === 'deny'
          ? raise({
              type: 'permission.done',
              decision: { behavior: 'deny', source: 'rule' },
              failure: { step: 'permission', code: 'permission_denied', message: 'denied' },
            })
          : raise({ type: 'permission.done', decision: { behavior: 'allow', source: 'rule' } }),
      runCall:
        script.call === 'pending'
          ? note('runCall')
          : script.call === 'failed'
            ? raise({ type: 'call.failed', failure: { step: 'call', code: 'tool_error', message: 'boom' } })
            : raise({ type: 'call.done', overBudget: false }),
      abortCall: note('abortCall'),
      runBudget: note('runBudget'),
      mapResult: note('mapResult'),
      emit: note('emit'),
      runPostHooks: note('runPostHooks'),
      recordStep: ((_: unknown, params: { step: string }) => void trail.push(`record:${params.step}`)) as never,
      recordStart: note('recordStart'),
    },
  })
  const actor = createActor(machine, { input: { turnId: 't', toolUseId: 'u', index: 0, name: 'X' } })
  actor.start()
  after?.((e) => actor.send(e))
  return { trail, snapshot: actor.getSnapshot() }
}

describe('tool-call machine with provided effects', () => {
  it('walks the steps to succeeded', () => {
    const { trail, snapshot } = run({ permission: 'allow', call: 'done' })
    expect(snapshot.value).toBe('succeeded')
    expect(trail).toEqual([
      'record:parse',
      'validateSchema',
      'record:validate',
      'record:permission',
      'recordStart',
      'record:call',
      'mapResult',
      'record:map',
      'emit',
    ])
  })

  it('goes from a failed parse straight to map and emit, ending failed', () => {
    const { trail, snapshot } = run({ parseFails: true })
    expect(snapshot.value).toBe('failed')
    expect(trail).toEqual(['record:parse', 'mapResult', 'record:map', 'emit'])
  })

  it('ends failed on denial and on a tool error', () => {
    expect(run({ permission: 'deny' }).snapshot.value).toBe('failed')
    expect(run({ permission: 'allow', call: 'failed' }).snapshot.context.failure?.code).toBe('tool_error')
  })

  it("an abort while a 'block' call runs is ignored; the call's own answer decides", () => {
    const { snapshot } = run({ permission: 'allow', call: 'pending' }, (send) => {
      send({ type: 'abort', reason: 'esc' })
      send({ type: 'call.done', overBudget: false })
    })
    expect(snapshot.value).toBe('succeeded')
  })

  it('an abort while validateInput is pending cancels at validate', () => {
    const { snapshot, trail } = run({ customValidation: true }, (send) => send({ type: 'abort', reason: 'esc' }))
    expect(snapshot.value).toBe('cancelled')
    expect(snapshot.context.failure).toEqual({ step: 'validate', code: 'cancelled', message: 'esc' })
    expect(trail).toContain('record:validate')
  })

  it('refuses to run with an effect left unprovided', () => {
    const actor = createActor(toolCallMachine, { input: { turnId: 't', toolUseId: 'u', index: 0, name: 'X' } })
    const errors: unknown[] = []
    actor.subscribe({ error: (e) => errors.push(e) })
    actor.start()
    expect(String(errors[0])).toMatch(/"parse" must be provided by the kernel/)
  })
})
