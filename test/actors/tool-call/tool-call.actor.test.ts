/**
 * The call actor alone: a bug in a step still answers the tool_use (once), and a call tells the
 * scheduler "the tool failed" only when the tool itself failed while running — the one outcome
 * that stops the siblings of a cascading tool.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { CallServices } from '../../../src/actors/tool-call/call-env.js'
import {
  provideToolCallMachine,
  startToolCall,
  type CallOutcome,
  type CallRequest,
  type ProvidedToolCallMachine,
} from '../../../src/actors/tool-call/tool-call.actor.js'
import { buildTool, createMemoryLog } from '../../../src/index.js'
import { assistant, fixedClock, gate, testKernel } from '../../helpers.js'

const request: CallRequest = {
  turnId: 't1',
  toolUseId: 'u1',
  index: 0,
  name: 'Echo',
  input: {},
  budget: { limit: 100_000, used: 0 },
}

/** Starts one call on `machine`; the path under test uses the log alone of the services. */
function start(machine: ProvidedToolCallMachine) {
  const log = createMemoryLog(fixedClock())
  const handle = startToolCall(machine, { log } as unknown as CallServices, request)
  const outcomes: CallOutcome[] = []
  handle.onDone((outcome) => outcomes.push(outcome))
  return { log, handle, outcomes }
}

describe('a bug in a step still answers the tool_use', () => {
  it('a step that breaks (parse resolved no tool): one error result that says where, and the call is done', () => {
    const provided = provideToolCallMachine()
    const machine = provided.machine.provide({ actions: { parse: () => undefined } })
    const { log, outcomes } = start({ machine, envs: provided.envs })
    const content =
      'toolkernel failed internally while running this call (tool call u1: a step after parse ran without a ' +
      'resolved tool); it may or may not have run.'
    expect(log.read()).toEqual([
      expect.objectContaining({
        type: 'tool.result',
        turnId: 't1',
        toolUseId: 'u1',
        outcome: 'error',
        block: { type: 'tool_result', tool_use_id: 'u1', content, is_error: true },
      }),
    ])
    expect(outcomes).toEqual([{ toolFailed: false }])
  })

  it('a machine that cannot start: the same, and the handle is done at once and ignores an abort', () => {
    const provided = provideToolCallMachine()
    const machine = undefined as unknown as ProvidedToolCallMachine['machine']
    const { log, handle, outcomes } = start({ machine, envs: provided.envs })
    expect(log.read()).toHaveLength(1)
    expect(log.read()[0]).toMatchObject({ type: 'tool.result', outcome: 'error', toolUseId: 'u1' })
    expect(String((log.read()[0] as { block?: { content?: unknown } }).block?.content)).toMatch(
      /^toolkernel failed internally while running this call \(.+\); it may or may not have run\.$/,
    )
    expect(outcomes).toEqual([{ toolFailed: false }])
    expect(() => handle.abort('late')).not.toThrow()
    expect(log.read()).toHaveLength(1)
  })
})

describe('only a tool that failed while running stops the siblings of a cascading call', () => {
  /**
   * Shell runs once Wait has started; Wait runs until Shell succeeds, until it is stopped, or (when
   * Shell never runs) until a turn of the event loop after Shell's result, when a cascade would be.
   */
  function batch(fails: boolean) {
    const started = gate()
    const succeeded = gate()
    const answered = gate()
    const Shell = buildTool({
      name: 'Shell',
      description: () => 's',
      inputSchema: z.object({ n: z.number() }),
      isConcurrencySafe: () => true,
      cascadesOnFailure: true,
      call: async () => {
        await started.opened
        if (fails) throw new Error('exit status 1')
        succeeded.open()
        return 'ok'
      },
    })
    const Wait = buildTool({
      name: 'Wait',
      description: () => 'w',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      interruptBehavior: () => 'cancel',
      call: async (_input, { signal }) => {
        started.open()
        const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()))
        await Promise.race([succeeded.opened, stopped, ...(fails ? [] : [answered.opened])])
        return 'waited'
      },
    })
    const kernel = testKernel([Shell, Wait], { maxConcurrency: 2 })
    kernel.log.events$.subscribe((event) => {
      if (event.type === 'tool.result' && event.toolUseId === 's') setImmediate(answered.open)
    })
    return kernel
  }

  it('a cascading call that succeeds: its sibling runs to its end', async () => {
    const { message } = await batch(false).runTurn(assistant(['s', 'Shell', { n: 1 }], ['w', 'Wait', {}]))
    expect(message.content.map((b) => b.content)).toEqual(['ok', 'waited'])
  })

  it('a cascading call its schema refused: its sibling runs to its end', async () => {
    const kernel = batch(false)
    const { message, events } = await kernel.runTurn(assistant(['s', 'Shell', { n: 'one' }], ['w', 'Wait', {}]))
    expect(message.content[0]?.is_error).toBe(true)
    expect(message.content[1]?.content).toBe('waited')
    expect(events.some((e) => e.type === 'tool.cascaded')).toBe(false)
  })

  it('a cascading call that throws while running: the cascade is logged', async () => {
    const { events } = await batch(true).runTurn(assistant(['s', 'Shell', { n: 1 }], ['w', 'Wait', {}]))
    expect(events.find((e) => e.type === 'tool.cascaded')).toMatchObject({ toolUseId: 's' })
  })
})
