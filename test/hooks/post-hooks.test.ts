/**
 * Post-hooks at the kernel level: PostToolUseFailure follows every call that failed after it
 * started — a tool error, a mapper that throws, an interrupt — and only those; PostToolUse follows
 * success. Configurations with only one of the two run it exactly when it applies.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type HooksConfig } from '../../src/index.js'
import type { HookInput, HookOutput } from '../../src/hooks/config.js'
import { assistant, Echo, testKernel } from '../helpers.js'

const Boom = buildTool({
  name: 'Boom',
  description: () => 'Always fails.',
  inputSchema: z.object({}),
  async call() {
    throw new Error('kaput')
  },
})
const BadMapper = buildTool({
  name: 'BadMapper',
  description: () => 'Runs, but its mapper throws.',
  inputSchema: z.object({}),
  async call() {
    return { rows: 3 }
  },
  mapToolResultToToolResultBlockParam: () => {
    throw new Error('cannot format rows')
  },
})

/** In-process hooks that note what they were given, per event. */
function recorder(events: Array<keyof HooksConfig>, answer: (input: HookInput) => HookOutput | void = () => {}) {
  const seen: HookInput[] = []
  const hooks: HooksConfig = {}
  for (const event of events)
    hooks[event] = [
      {
        hooks: [
          {
            type: 'function',
            name: event,
            fn: (input) => {
              seen.push(input)
              return answer(input)
            },
          },
        ],
      },
    ]
  return { seen, hooks }
}

describe('PostToolUseFailure', () => {
  it('runs after a mapper that throws, with the error, and its context reaches the model', async () => {
    const { seen, hooks } = recorder(['PostToolUse', 'PostToolUseFailure'], (input) =>
      input.hook_event_name === 'PostToolUseFailure'
        ? { additionalContext: 'the formatter is being fixed' }
        : undefined,
    )
    const kernel = testKernel([BadMapper], { hooks })
    const { message, events } = await kernel.runTurn(assistant(['m', 'BadMapper', {}]))
    expect(seen.map((s) => s.hook_event_name)).toEqual(['PostToolUseFailure'])
    expect(seen[0]).toMatchObject({
      tool_name: 'BadMapper',
      tool_use_id: 'm',
      tool_input: {},
      error: 'BadMapper ran, but its result could not be turned into text: cannot format rows',
      is_interrupt: false,
    })
    expect(seen[0]).not.toHaveProperty('tool_response')
    const [block] = message.content
    expect(block?.is_error).toBe(true)
    expect(block?.content).toEqual([
      { type: 'text', text: 'BadMapper ran, but its result could not be turned into text: cannot format rows' },
      { type: 'text', text: 'Context from a hook:\nthe formatter is being fixed' },
    ])
    expect(events.filter((e) => e.type === 'hook.finished').map((e) => e.type === 'hook.finished' && e.phase)).toEqual([
      'post',
    ])
  })

  it('configured alone: runs when the tool fails, never when it succeeds', async () => {
    const { seen, hooks } = recorder(['PostToolUseFailure'])
    const kernel = testKernel([Echo, Boom], { hooks })
    await kernel.runTurn(assistant(['ok', 'Echo', { text: 'fine' }]))
    expect(seen).toEqual([])
    const { message } = await kernel.runTurn(assistant(['bad', 'Boom', {}], ['ok2', 'Echo', { text: 'fine' }]))
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Boom',
      tool_use_id: 'bad',
      error: 'Boom failed: kaput',
      is_interrupt: false,
    })
    expect(message.content.map((b) => b.is_error === true)).toEqual([true, false])
  })

  it('configured alone: runs after a mapper that throws', async () => {
    const { seen, hooks } = recorder(['PostToolUseFailure'])
    await testKernel([BadMapper], { hooks }).runTurn(assistant(['m', 'BadMapper', {}]))
    expect(seen.map((s) => [s.hook_event_name, s.tool_use_id])).toEqual([['PostToolUseFailure', 'm']])
  })

  it('runs after an interrupt of a running call, saying it was one', async () => {
    const controller = new AbortController()
    const Stoppable = buildTool({
      name: 'Stoppable',
      description: () => 'Runs until aborted.',
      inputSchema: z.object({}),
      interruptBehavior: () => 'cancel',
      async *call(_input, context) {
        yield 'half done'
        // The turn is interrupted while this call runs.
        controller.abort()
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }))
        throw new Error('stopped')
      },
    })
    const { seen, hooks } = recorder(['PostToolUseFailure'])
    const { message } = await testKernel([Stoppable], { hooks }).runTurn(assistant(['s', 'Stoppable', {}]), {
      signal: controller.signal,
    })
    expect(String(message.content[0]?.content)).toMatch(/^Stoppable was interrupted while running/)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_use_id: 's', is_interrupt: true })
  })

  it('does not run for calls that never started: unknown tool, invalid input, a pre-hook block', async () => {
    const { seen, hooks } = recorder(['PostToolUse', 'PostToolUseFailure'])
    const blocking: HooksConfig = {
      ...hooks,
      PreToolUse: [{ matcher: 'Boom', hooks: [{ type: 'function', fn: () => ({ decision: 'block', reason: 'no' }) }] }],
    }
    const { message } = await testKernel([Echo, Boom], { hooks: blocking }).runTurn(
      assistant(['u', 'Nope', {}], ['i', 'Echo', { text: 7 }], ['b', 'Boom', {}]),
    )
    expect(message.content.every((b) => b.is_error === true)).toBe(true)
    expect(seen).toEqual([])
  })
})

describe('PostToolUse', () => {
  it('configured alone: runs after success with the response, never after a failure', async () => {
    const { seen, hooks } = recorder(['PostToolUse'])
    const kernel = testKernel([Echo, Boom, BadMapper], { hooks })
    await kernel.runTurn(assistant(['bad', 'Boom', {}], ['m', 'BadMapper', {}]))
    expect(seen).toEqual([])
    await kernel.runTurn(assistant(['ok', 'Echo', { text: 'fine' }]))
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ hook_event_name: 'PostToolUse', tool_use_id: 'ok', tool_response: 'fine' })
    expect(seen[0]).not.toHaveProperty('error')
  })
})
