/**
 * The call actor alone (no turn, no scheduler): a bug in a step — a throw, a step that decides
 * nothing, a machine whose `run` breaks — still answers the tool_use, once; an answer that comes
 * after the call moved on is dropped; an abort to a finished call is ignored; and a call tells the
 * scheduler "the tool failed" only when the tool itself failed while running — the one outcome
 * that stops the siblings of a cascading tool (kernel-level, at the end).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { CallServices } from '../../../src/actors/tool-call/call-scope.js'
import {
  provideToolCallMachine,
  startToolCall,
  STEP_FUNCTIONS,
  type CallOutcome,
  type CallRequest,
  type ProvidedToolCallMachine,
} from '../../../src/actors/tool-call/tool-call.actor.js'
import { noHooks } from '../../../src/hooks/hook-runner.js'
import type { PermissionPolicy } from '../../../src/permissions/policy.js'
import type { ToolPorts } from '../../../src/ports/index.js'
import { ToolRegistry } from '../../../src/tools/tool-registry.js'
import { buildTool, createMemoryLog, type KernelEvent, type Tool } from '../../../src/index.js'
import { assistant, Echo, fixedClock, gate, testKernel } from '../../helpers.js'

const request: CallRequest = {
  turnId: 't1',
  toolUseId: 'u1',
  index: 0,
  name: 'Echo',
  input: { text: 'hi' },
  budget: { limit: 100_000, used: 0 },
}

/** Every call is allowed: the permission step is not what these tests are about. */
const allowAll: PermissionPolicy = {
  decide: () => ({ behavior: 'allow', source: 'rule' }),
  preview: () => 'allow',
  mayRead: () => true,
  answered: () => ({ behavior: 'allow', source: 'user' }),
}

/** The kernel's services for one call, over a memory log and no hooks; `more` replaces any. */
function services(tools: readonly Tool[], more: Partial<CallServices> = {}): CallServices {
  return {
    registry: new ToolRegistry(tools),
    offeredTools: tools.map((tool) => tool.name),
    log: createMemoryLog(fixedClock()),
    cwd: '/',
    ports: {} as ToolPorts,
    hooks: noHooks,
    permissions: allowAll,
    results: { save: async () => '/r/u1.txt' },
    progressLogChars: 10_000,
    ...more,
  }
}

/** Starts one call; `done` settles with the outcome its handle reports, `outcomes` counts the reports. */
function start(
  svc: CallServices,
  machine: ProvidedToolCallMachine = provideToolCallMachine(),
  more: Partial<CallRequest> = {},
) {
  const handle = startToolCall(machine, svc, { ...request, ...more })
  const outcomes: CallOutcome[] = []
  const done = new Promise<CallOutcome>((resolve) =>
    handle.onDone((outcome) => {
      outcomes.push(outcome)
      resolve(outcome)
    }),
  )
  const events = () => svc.log.read().map(({ type }) => type)
  return { log: svc.log, handle, outcomes, done, events, machine }
}

const internal = (why: string) =>
  `toolkernel failed internally while running this call (${why}); it may or may not have run.`
const resultOf = (events: readonly KernelEvent[]) => events.find((e) => e.type === 'tool.result')
const tick = () => new Promise((resolve) => setImmediate(resolve))

afterEach(() => {
  vi.restoreAllMocks()
})

describe('a bug in a step still answers the tool_use, once', () => {
  it('a step that throws (the registry breaks at parse): one error result that says why, and the call is done', () => {
    const registry = {
      find: () => {
        throw new Error('registry corrupted')
      },
    } as unknown as ToolRegistry
    const call = start(services([Echo], { registry }))
    expect(call.log.read()).toEqual([
      expect.objectContaining({
        type: 'tool.result',
        turnId: 't1',
        toolUseId: 'u1',
        outcome: 'error',
        block: { type: 'tool_result', tool_use_id: 'u1', content: internal('registry corrupted'), is_error: true },
      }),
    ])
    // Told at once: the bug happened while the call started, synchronously.
    expect(call.outcomes).toEqual([{ toolFailed: false }])
  })

  it('a step after parse without a resolved tool: its events so far, then the error result saying where', () => {
    const registry = new ToolRegistry([Echo])
    const find = vi.spyOn(registry, 'find')
    find.mockReturnValueOnce(Echo).mockReturnValue(undefined)
    const call = start(services([Echo], { registry }))
    expect(call.events()).toEqual(['tool.parsed', 'tool.result'])
    expect(resultOf(call.log.read())).toMatchObject({
      outcome: 'error',
      block: { content: internal('tool call u1: a step after parse ran without a resolved tool'), is_error: true },
    })
    expect(call.outcomes).toEqual([{ toolFailed: false }])
  })

  it('a machine whose `run` throws: the same, done at once, and an abort afterwards changes nothing', () => {
    const provided = provideToolCallMachine()
    const machine = provided.machine.provide({
      actions: {
        run: (() => {
          throw new Error('no steps here')
        }) as never,
      },
    })
    const call = start(services([Echo]), { ...provided, machine })
    expect(call.log.read()).toHaveLength(1)
    expect(resultOf(call.log.read())).toMatchObject({
      outcome: 'error',
      block: { content: internal('no steps here') },
    })
    expect(call.outcomes).toEqual([{ toolFailed: false }])
    expect(() => call.handle.abort('late', true)).not.toThrow()
    expect(call.log.read()).toHaveLength(1)
    // The call is forgotten: a kernel's map of running calls does not grow with its bugs.
    expect(provided.calls.size).toBe(0)
  })

  it('a step that decides nothing at once is a bug (it would run again forever): one error result', () => {
    vi.spyOn(STEP_FUNCTIONS, 'parse').mockReturnValue({ events: [] })
    const call = start(services([Echo]))
    expect(call.events()).toEqual(['tool.result'])
    expect(resultOf(call.log.read())).toMatchObject({
      outcome: 'error',
      block: { content: internal('tool call u1: the parse step decided nothing') },
    })
    expect(call.outcomes).toEqual([{ toolFailed: false }])
  })

  it('a step that decides nothing later is the same bug: one error result, and the call stops', async () => {
    vi.spyOn(STEP_FUNCTIONS, 'validate').mockReturnValue(Promise.resolve({ events: [] }))
    const call = start(services([Echo]))
    expect(await call.done).toEqual({ toolFailed: false })
    expect(call.events()).toEqual(['tool.parsed', 'tool.result'])
    expect(resultOf(call.log.read())).toMatchObject({
      block: { content: internal('tool call u1: the validate step decided nothing') },
    })
    call.handle.abort('late')
    await tick()
    expect(call.events()).toEqual(['tool.parsed', 'tool.result'])
    expect(call.outcomes).toHaveLength(1)
    expect(call.machine.calls.size).toBe(0)
  })

  it('a step whose answer rejects: one error result saying why', async () => {
    vi.spyOn(STEP_FUNCTIONS, 'validate').mockReturnValue(Promise.reject(new TypeError('lost its way')))
    const call = start(services([Echo]))
    await call.done
    expect(call.events()).toEqual(['tool.parsed', 'tool.result'])
    expect(resultOf(call.log.read())).toMatchObject({ block: { content: internal('TypeError: lost its way') } })
    expect(call.outcomes).toEqual([{ toolFailed: false }])
  })

  it('a bug in emit, once the rest is logged: the error result is still the only result', () => {
    vi.spyOn(STEP_FUNCTIONS, 'emit').mockImplementation(() => {
      throw new Error('emit broke')
    })
    // A tool rejected at parse (unknown) reaches emit at once.
    const call = start(services([]), undefined, { name: 'Nope' })
    expect(call.events()).toEqual(['tool.rejected', 'tool.mapped', 'tool.result'])
    expect(resultOf(call.log.read())).toMatchObject({ block: { content: internal('emit broke') } })
    expect(call.outcomes).toEqual([{ toolFailed: false }])
  })
})

describe('the actor runs the steps over the log', () => {
  it('a call that succeeds: each step’s events in order, the result once, the tool not failed', async () => {
    const call = start(services([Echo]))
    expect(await call.done).toEqual({ toolFailed: false })
    expect(call.events()).toEqual([
      'tool.parsed',
      'tool.validated',
      'tool.permitted',
      'tool.started',
      'tool.completed',
      'tool.mapped',
      'tool.result',
    ])
    expect(resultOf(call.log.read())).toMatchObject({ outcome: 'success', block: { content: 'hi' } })
  })

  it('an abort to a finished call is ignored: nothing more in the log, no second outcome', async () => {
    const call = start(services([Echo]))
    await call.done
    const before = call.log.read().length
    call.handle.abort('too late', true)
    await tick()
    expect(call.log.read()).toHaveLength(before)
    expect(call.outcomes).toHaveLength(1)
  })

  it('an answer that comes after the call moved on is dropped: interrupted in validate, its validator is not heard', async () => {
    const answer = gate()
    let validated = 0
    const Slow = buildTool({
      name: 'Slow',
      description: () => 's',
      inputSchema: z.object({}),
      validateInput: async () => (await answer.opened, validated++, { result: true as const }),
      call: async () => 'ran',
    })
    const call = start(services([Slow]), undefined, { name: 'Slow', input: {} })
    await tick()
    call.handle.abort('user pressed Esc')
    expect(await call.done).toEqual({ toolFailed: false })
    const settled = call.log.read()
    expect(settled.map((e) => e.type)).toEqual(['tool.parsed', 'tool.cancelled', 'tool.mapped', 'tool.result'])
    expect(settled[1]).toMatchObject({ step: 'validate', reason: 'user pressed Esc' })
    expect(resultOf(settled)).toMatchObject({ outcome: 'cancelled' })
    answer.open()
    await tick()
    expect(validated).toBe(1)
    expect(call.log.read()).toEqual(settled)
  })
})

describe('the outcome a call reports: the tool failed only when it failed while running', () => {
  const tool = (call: () => Promise<unknown>, more: Partial<Parameters<typeof buildTool>[0]> = {}) =>
    buildTool({ name: 'T', description: () => 't', inputSchema: z.object({ n: z.number() }), call, ...more })
  const run = (t: Tool, input: unknown = { n: 1 }) => start(services([t]), undefined, { name: 'T', input }).done

  it('a tool that throws while running: toolFailed', async () => {
    expect(
      await run(
        tool(async () => {
          throw new Error('exit status 1')
        }),
      ),
    ).toEqual({ toolFailed: true })
  })

  it('a tool that ran and succeeded, or returned an error block of its own: not failed', async () => {
    expect(await run(tool(async () => 'ok'))).toEqual({ toolFailed: false })
    const errorBlock = tool(async () => 'bad', {
      mapToolResultToToolResultBlockParam: (output, id) => ({
        type: 'tool_result',
        tool_use_id: id,
        content: String(output),
        is_error: true,
      }),
    })
    expect(await run(errorBlock)).toEqual({ toolFailed: false })
  })

  it('a tool whose mapper throws (a tool_error, but at map): not failed', async () => {
    const mapperThrows = tool(async () => 'ok', {
      mapToolResultToToolResultBlockParam: () => {
        throw new Error('no text')
      },
    })
    const call = start(services([mapperThrows]), undefined, { name: 'T', input: { n: 1 } })
    expect(await call.done).toEqual({ toolFailed: false })
    expect(resultOf(call.log.read())).toMatchObject({ outcome: 'error' })
  })

  it('a call refused before it ran (schema, unknown tool, denied): not failed', async () => {
    expect(
      await run(
        tool(async () => 'ok'),
        { n: 'one' },
      ),
    ).toEqual({ toolFailed: false })
    expect(await start(services([]), undefined, { name: 'T' }).done).toEqual({ toolFailed: false })
    const deny: PermissionPolicy = { ...allowAll, decide: () => ({ behavior: 'deny', source: 'rule' }) }
    const denied = start(services([tool(async () => 'ok')], { permissions: deny }), undefined, {
      name: 'T',
      input: { n: 1 },
    })
    expect(await denied.done).toEqual({ toolFailed: false })
  })

  it("a 'cancel' tool interrupted while running: not failed", async () => {
    const running = gate()
    const Waits = tool(
      (async (_input: unknown, { signal }: { signal: AbortSignal }) => {
        running.open()
        await new Promise((resolve) => signal.addEventListener('abort', resolve))
        return 'stopped'
      }) as never,
      { interruptBehavior: () => 'cancel' },
    )
    const call = start(services([Waits]), undefined, { name: 'T', input: { n: 1 } })
    await running.opened
    call.handle.abort('user pressed Esc')
    expect(await call.done).toEqual({ toolFailed: false })
    expect(resultOf(call.log.read())).toMatchObject({ outcome: 'cancelled' })
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
