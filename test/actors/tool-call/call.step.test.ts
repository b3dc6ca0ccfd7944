/**
 * The call step alone, through a kernel over a log with durability fences: a tool starts only
 * once what led to it is stored (write-ahead), never when the fence fails or the turn was
 * interrupted while it waited, and `tool.call`'s result is drained (an async generator's yields
 * are progress) or awaited as it is.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type HooksConfig } from '../../../src/index.js'
import { assistant, memoryLogWith, testKernel } from '../../helpers.js'

/** A memory log whose fences wait for `release` (or fail with `fail`). */
function fencedLog() {
  let open: () => void = () => undefined
  let shut: (error: Error) => void = () => undefined
  const held = new Promise<void>((resolve, reject) => ((open = resolve), (shut = reject)))
  held.catch(() => undefined)
  let fences = 0
  const log = memoryLogWith(() => ({ fence: () => (fences++, held) }))
  return { log, release: () => open(), fail: (error: Error) => shut(error), fences: () => fences }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))
const text = (block: { content?: unknown } | undefined) => String(block?.content)

function counter(interrupt: 'block' | 'cancel' = 'block') {
  const state = { ran: 0 }
  const tool = buildTool({
    name: 'Touch',
    description: () => 'A side effect.',
    inputSchema: z.object({}),
    interruptBehavior: () => interrupt,
    call: async () => (state.ran++, 'touched'),
  })
  return { tool, state }
}

describe('the call step waits for the write-ahead fence', () => {
  it('the tool starts only once the fence before it settles', async () => {
    const { tool, state } = counter()
    const { log, release, fences } = fencedLog()
    const turn = testKernel([tool], { log }).runTurn(assistant(['t1', 'Touch', {}]))
    await tick()
    expect(fences()).toBeGreaterThan(0)
    expect(state.ran).toBe(0)
    release()
    const { message } = await turn
    expect(state.ran).toBe(1)
    expect(text(message.content[0])).toBe('touched')
  })

  it('a fence that fails: the tool never runs, and its result says it never ran', async () => {
    const { tool, state } = counter()
    const { log, fail } = fencedLog()
    const turn = testKernel([tool], { log }).runTurn(assistant(['t1', 'Touch', {}]))
    await tick()
    fail(new Error('lease lost to b'))
    const { message, logError } = await turn
    expect(state.ran).toBe(0)
    expect(logError).toMatch(/could not be made durable \(lease lost to b\)/)
    expect(message.content[0]?.is_error).toBe(true)
    // The kernel stops every call when its log fails; this one had not started, so it had no effect.
    expect(text(message.content[0])).toBe(
      'Touch was cancelled before it ran: the event log could not be made durable (lease lost to b); events since ' +
        'the last durable point may be missing from the store, and later ones were not recorded. It had no ' +
        'effect; call it again if it is still needed.',
    )
  })

  it.each(['block', 'cancel'] as const)(
    "interrupted while it waited: a '%s' tool has not started, so it never does",
    async (interrupt) => {
      const { tool, state } = counter(interrupt)
      const { log, release } = fencedLog()
      const controller = new AbortController()
      const turn = testKernel([tool], { log }).runTurn(assistant(['t1', 'Touch', {}]), { signal: controller.signal })
      await tick()
      controller.abort('user pressed Esc')
      release()
      const { message, events } = await turn
      expect(state.ran).toBe(0)
      expect(text(message.content[0])).toBe(
        'Touch was cancelled before it ran: user pressed Esc. It had no effect; call it again if it is still needed.',
      )
      // The log says where it stopped, and that it never ran.
      expect(events.filter((e) => e.type === 'tool.cancelled')).toMatchObject([
        { toolUseId: 't1', step: 'call', reason: 'user pressed Esc', beforeRun: true },
      ])
    },
  )
})

describe('post-hooks of a call the fence kept from starting', () => {
  it('a call cancelled at its fence never ran: no PostToolUseFailure hook runs for it', async () => {
    const { tool } = counter('cancel')
    const { log, release } = fencedLog()
    const failures: string[] = []
    const hooks: HooksConfig = {
      PostToolUseFailure: [
        { hooks: [{ type: 'function', name: 'note', fn: (input) => void failures.push(String(input.tool_name)) }] },
      ],
    }
    const controller = new AbortController()
    const turn = testKernel([tool], { log, hooks }).runTurn(assistant(['t1', 'Touch', {}]), {
      signal: controller.signal,
    })
    await tick()
    controller.abort('user pressed Esc')
    release()
    await turn
    expect(failures).toEqual([])
  })
})

describe('the call step runs the tool', () => {
  it("a 'cancel' tool interrupted once it has started: its signal says why, and its result that it ran", async () => {
    const reasons: unknown[] = []
    let started: () => void = () => undefined
    const running = new Promise<void>((resolve) => (started = resolve))
    const Wait = buildTool({
      name: 'Wait',
      description: () => 'Waits until aborted.',
      inputSchema: z.object({}),
      interruptBehavior: () => 'cancel',
      call: (_input, { signal }) =>
        new Promise<string>((resolve) => {
          signal.addEventListener('abort', () => (reasons.push(signal.reason), resolve('stopped')))
          started()
        }),
    })
    const { log, release } = fencedLog()
    release()
    const controller = new AbortController()
    const turn = testKernel([Wait], { log }).runTurn(assistant(['w1', 'Wait', {}]), { signal: controller.signal })
    await running
    controller.abort('user pressed Esc')
    const { message } = await turn
    expect(reasons).toEqual(['user pressed Esc'])
    expect(text(message.content[0])).toMatch(/^Wait was interrupted while running: user pressed Esc\. It may have/)
  })

  // [what tool.call returns, the result the model reads]
  const outputs: Array<[string, () => unknown, string]> = [
    ['null', () => null, '(Give completed with no output)'],
    ['a string', () => 'plain', 'plain'],
    ['an async iterable that is not a generator', () => ({ [Symbol.asyncIterator]: () => undefined }), '{}'],
    ['an object with a next() that is not iterable', () => ({ next: () => undefined }), '{}'],
  ]
  it.each(outputs)(
    'a tool that returns %s: its value is the output, not a generator',
    async (_name, value, expected) => {
      const Give = buildTool({
        name: 'Give',
        description: () => 'Returns a value.',
        inputSchema: z.object({}),
        // Not async: what tool.call returns is looked at as it is (a JavaScript tool may return a value).
        call: value as () => Promise<string>,
      })
      const { message } = await testKernel([Give]).runTurn(assistant(['g1', 'Give', {}]))
      expect(message.content[0]?.is_error).not.toBe(true)
      expect(text(message.content[0])).toBe(expected)
    },
  )
})
