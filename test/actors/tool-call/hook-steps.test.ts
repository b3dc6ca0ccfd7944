/**
 * The two hook steps alone (pre-hook.step, post-hook.step, and hooks.ts which they share), over a
 * hand-built call and a stand-in runner: the events each decides, what it hands on, and what the
 * call's state becomes once those events are folded. Also withContext, which adds hook context to
 * a block.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  newCallIO,
  withContext,
  type CallScope,
  type CallServices,
  type Decided,
} from '../../../src/actors/tool-call/call-scope.js'
import { hookedEvent, runnerFailed } from '../../../src/actors/tool-call/hooks.js'
import { interruptAt } from '../../../src/actors/tool-call/interrupt.js'
import { postHookStep } from '../../../src/actors/tool-call/post-hook.step.js'
import { preHookStep } from '../../../src/actors/tool-call/pre-hook.step.js'
import { type advance, foldCall, REQUESTED, type CallState, type Failure } from '../../../src/events/tool-call.steps.js'
import type { HookOutcome, HookRequest, HookRunner } from '../../../src/hooks/hook-runner.js'
import type { Carry } from '../../../src/machines/tool-call.types.js'
import { buildTool } from '../../../src/tools/build-tool.js'
import { ToolRegistry } from '../../../src/tools/tool-registry.js'

describe('withContext', () => {
  const block = { type: 'tool_result' as const, tool_use_id: 'a', content: 'out' }

  it('no context: the very same block', () => {
    expect(withContext(block, [])).toBe(block)
  })

  it('text content becomes a text part, each context a part after it, in order; the block is not changed', () => {
    expect(withContext({ ...block, is_error: true }, ['one', 'two'])).toEqual({
      type: 'tool_result',
      tool_use_id: 'a',
      is_error: true,
      content: [
        { type: 'text', text: 'out' },
        { type: 'text', text: 'Context from a hook:\none' },
        { type: 'text', text: 'Context from a hook:\ntwo' },
      ],
    })
    expect(block.content).toBe('out')
  })

  it('content parts are kept (images too) and the original array is not changed', () => {
    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png', data: 'AA' } }
    const parts = [image]
    const added = withContext({ ...block, content: parts }, ['seen'])
    expect(added.content).toEqual([image, { type: 'text', text: 'Context from a hook:\nseen' }])
    expect(parts).toEqual([image])
  })
})

const Tool = buildTool({
  name: 'Edit',
  description: () => 'Edits.',
  inputSchema: z.object({ path: z.string(), force: z.boolean().default(false) }),
  call: async () => 'edited',
})
const outcome = (more: Partial<HookOutcome> = {}): HookOutcome => ({
  outcome: 'continue',
  systemMessages: [],
  errors: [],
  ...more,
})
const ids = { turnId: 'T', toolUseId: 'tu' }
const hooked = (phase: 'pre' | 'post', more: Record<string, unknown> = {}) => ({
  type: 'tool.hooked',
  ...ids,
  phase,
  outcome: 'continue',
  ...more,
})

/** The events of one call, as `advance` takes them. */
type CallEvent = Parameters<typeof advance>[1]

/**
 * A call with both hook steps, over a runner that answers with `answer`: only what the hook steps
 * read (the registry, the runner, the ids, the call's abort controller).
 */
function harness(answer: (request: HookRequest) => Promise<HookOutcome> | HookOutcome) {
  const requests: HookRequest[] = []
  const signals: AbortSignal[] = []
  const hooks: HookRunner = {
    has: () => true,
    run: (request, signal) => {
      requests.push(request)
      signals.push(signal)
      return answer(request) as Promise<HookOutcome>
    },
  }
  const call: CallScope = {
    services: { registry: new ToolRegistry([Tool]), hooks } as Partial<CallServices> as CallServices,
    ...ids,
    index: 0,
    budget: { limit: 100_000, used: 0 },
    voided: undefined,
    inputError: undefined,
    validated: undefined,
    io: newCallIO(),
  }
  return { requests, signals, call }
}

/** A call that validated its input (as the model wrote it) and is at the pre-hook step. */
const atPreHook: CallState = {
  ...REQUESTED,
  name: 'Edit',
  input: { path: '/raw' },
  step: 'preHook',
  hooks: { pre: true, post: true },
}
/** What validate hands on: the input as the schema parsed it. */
const validated: Carry = { input: { path: '/parsed' } }

/** Runs a step and folds what it decided into `state`, as the actor does. */
async function step(
  fn: typeof preHookStep,
  call: CallScope,
  state: CallState,
  carry: Carry,
): Promise<Decided & { state: CallState }> {
  const decided = await fn(call, state, carry)
  return { ...decided, state: foldCall(decided.events as readonly CallEvent[], state) }
}

const pre = (h: ReturnType<typeof harness>, state = atPreHook, carry = validated) =>
  step(preHookStep, h.call, state, carry)

describe('preHookStep', () => {
  it('asks with the input validate handed on, and the call’s signal; continue is one tool.hooked, to permission', async () => {
    const h = harness(async () => outcome())
    const decided = await pre(h)
    expect(decided.events).toStrictEqual([hooked('pre')])
    expect(decided.carry).toStrictEqual({ input: { path: '/parsed' } })
    expect(decided.state).toEqual({ ...atPreHook, step: 'permission' })
    expect(h.requests[0]).toMatchObject({ phase: 'pre', ...ids, tool: Tool, input: { path: '/parsed' } })
    expect(h.requests[0]).not.toHaveProperty('response')
    // The signal an interruption aborts: hook processes are killed with the call.
    expect(h.signals[0]).toBe(h.call.io.controller?.signal)
  })

  it("without a carry (a call resumed from its log) the state's input, parsed again", async () => {
    const h = harness(async () => outcome())
    expect((await pre(h, atPreHook, {})).carry).toStrictEqual({ input: { path: '/raw', force: false } })
    expect(h.requests[0]?.input).toEqual({ path: '/raw', force: false })
  })

  it('a block: the rejection (hook_blocked, with the reason or saying none was given), then tool.hooked; to map', async () => {
    const h = harness(async () => outcome({ outcome: 'block', reason: 'not on main', decision: 'deny' }))
    const decided = await pre(h)
    const message = 'A PreToolUse hook blocked this Edit call: not on main'
    expect(decided.events).toStrictEqual([
      { type: 'tool.rejected', ...ids, step: 'preHook', code: 'hook_blocked', message },
      hooked('pre', { outcome: 'block', reason: 'not on main', decision: 'deny' }),
    ])
    expect(decided.carry).toBeUndefined()
    expect(decided.state).toEqual({
      ...atPreHook,
      step: 'map',
      failure: { step: 'preHook', code: 'hook_blocked', message },
    })
    const none = await pre(harness(async () => outcome({ outcome: 'block' })))
    expect(none.state.failure?.message).toBe('A PreToolUse hook blocked this Edit call: no reason given')
  })

  it('rewritten input is validated again: accepted, it is the input from now on, as the schema parsed it', async () => {
    const decided = await pre(harness(async () => outcome({ updatedInput: { path: '/rewritten' } })))
    expect(decided.events).toStrictEqual([hooked('pre', { updatedInput: { path: '/rewritten' } })])
    // Handed on as the schema parsed it (defaults applied); the state keeps what the hook wrote.
    expect(decided.carry).toStrictEqual({ input: { path: '/rewritten', force: false } })
    expect(decided.state.input).toEqual({ path: '/rewritten' })
    expect(decided.state.step).toBe('permission')
  })

  it('rewritten input the schema refuses stops the call: the rejection, then tool.hooked; the input stays', async () => {
    const decided = await pre(harness(async () => outcome({ updatedInput: { path: '/x', sneaky: true } })))
    expect(decided.events.map((e) => e.type)).toEqual(['tool.rejected', 'tool.hooked'])
    expect(decided.events[0]).toMatchObject({ step: 'preHook', code: 'invalid_input' })
    expect(decided.state.failure?.message).toMatch(
      /^A PreToolUse hook rewrote the input into one Edit does not accept, so the call did not run\. Invalid input for Edit/,
    )
    expect(decided.state).toMatchObject({ step: 'map', input: { path: '/raw' } })
  })

  it("a decision becomes the hooks' say in the permission step; context is kept for the result", async () => {
    const asked = await pre(
      harness(async () => outcome({ decision: 'ask', reason: 'check it', additionalContext: 'ctx' })),
    )
    expect(asked.events).toStrictEqual([
      hooked('pre', { reason: 'check it', decision: 'ask', additionalContext: 'ctx' }),
    ])
    expect(asked.state.hookSay).toEqual({ decision: 'ask', reason: 'check it' })
    expect(asked.state.contexts).toEqual(['ctx'])
    const bare = await pre(harness(async () => outcome({ decision: 'allow' })))
    expect(bare.state.hookSay).toStrictEqual({ decision: 'allow' })
    const silent = await pre(harness(async () => outcome()))
    expect(silent.state.hookSay).toBeNull()
    expect(silent.state.contexts).toEqual([])
  })

  it("the hooks' messages and errors are logged for the user, errors marked", async () => {
    const decided = await pre(harness(async () => outcome({ systemMessages: ['note'], errors: ['hook 2 timed out'] })))
    expect(decided.events).toStrictEqual([hooked('pre', { systemMessages: ['note', 'hook error: hook 2 timed out'] })])
  })

  it('a runner that fails blocks the call (fail closed), saying why, before it runs', async () => {
    const reason = 'the hook runner failed (spawn EACCES), so the hooks could not check the call and it did not run'
    const expected = [
      {
        type: 'tool.rejected',
        ...ids,
        step: 'preHook',
        code: 'hook_blocked',
        message: `A PreToolUse hook blocked this Edit call: ${reason}`,
      },
      hooked('pre', { outcome: 'block', reason, systemMessages: ['hook error: the hook runner failed: spawn EACCES'] }),
    ]
    const rejecting = await pre(
      harness(async () => {
        throw new Error('spawn EACCES')
      }),
    )
    expect(rejecting.events).toStrictEqual(expected)
    expect(rejecting.state).toMatchObject({ step: 'map', started: false, failure: { code: 'hook_blocked' } })
    // A runner that throws instead of rejecting: the same, decided at once.
    const h = harness(() => {
      throw new Error('spawn EACCES')
    })
    const thrown = preHookStep(h.call, atPreHook, validated)
    expect(thrown).not.toHaveProperty('then')
    expect((thrown as Decided).events).toStrictEqual(expected)
  })
})

/** A call that ran (or failed) and was mapped, at the post-hook step. */
const atPostHook = (failure: Failure | null = null): CallState => ({
  ...atPreHook,
  step: 'postHook',
  started: true,
  failure,
})
const mappedCarry: Carry = {
  input: { path: '/parsed' },
  output: 'the output',
  block: { type: 'tool_result', tool_use_id: 'tu', content: 'result' },
}
const post = (h: ReturnType<typeof harness>, state = atPostHook(), carry = mappedCarry) =>
  step(postHookStep, h.call, state, carry)

describe('postHookStep', () => {
  it('after success: the response is the output; context is added to the block; to emit', async () => {
    const h = harness(async () => outcome({ additionalContext: 'lint: 2 warnings' }))
    const decided = await post(h)
    expect(decided.events).toStrictEqual([hooked('post', { additionalContext: 'lint: 2 warnings' })])
    expect(h.requests[0]).toMatchObject({ phase: 'post', input: { path: '/parsed' }, response: 'the output' })
    expect(h.requests[0]).not.toHaveProperty('error')
    expect(decided.carry?.block?.content).toEqual([
      { type: 'text', text: 'result' },
      { type: 'text', text: 'Context from a hook:\nlint: 2 warnings' },
    ])
    expect(decided.carry).toMatchObject({ input: { path: '/parsed' }, output: 'the output' })
    expect(decided.state).toEqual({ ...atPostHook(), step: 'emit' })
  })

  it('after a failure: the error text and whether it was an interrupt, no response', async () => {
    const failed = harness(async () => outcome())
    await post(failed, atPostHook({ step: 'call', code: 'tool_error', message: 'Edit failed: EISDIR' }))
    expect(failed.requests[0]).toMatchObject({ error: 'Edit failed: EISDIR', isInterrupt: false })
    expect(failed.requests[0]).not.toHaveProperty('response')
    for (const code of ['interrupted', 'cancelled'] as const) {
      const stopped = harness(async () => outcome())
      await post(stopped, atPostHook({ step: 'call', code, message: 'stopped' }))
      expect(stopped.requests[0]?.isInterrupt).toBe(true)
    }
  })

  it('without context the block is handed on as it was', async () => {
    const decided = await post(harness(async () => outcome()))
    expect(decided.carry).toStrictEqual(mappedCarry)
    expect(decided.carry?.block).toBe(mappedCarry.block)
  })

  it('a runner that fails after the call leaves the result standing and notes the error', async () => {
    const decided = await post(
      harness(async () => {
        throw new Error('hook crashed')
      }),
    )
    expect(decided.events).toStrictEqual([
      hooked('post', { systemMessages: ['hook error: the hook runner failed: hook crashed'] }),
    ])
    expect(decided.carry?.block?.content).toBe('result')
    expect(decided.state).toEqual({ ...atPostHook(), step: 'emit' })
  })

  it('interrupted while its hooks run: a plain tool.hooked, and the result goes out without their context', () => {
    const h = harness(() => new Promise<HookOutcome>(() => undefined))
    const interruption = interruptAt(h.call, atPostHook(), mappedCarry, 'stop', false)
    expect(interruption).toStrictEqual({ decided: { events: [hooked('post')], carry: mappedCarry }, abort: false })
  })
})

describe('hooks.ts', () => {
  it('hookedEvent without an outcome: continue, nothing more', () => {
    const { call } = harness(async () => outcome())
    expect(hookedEvent(call, 'post', undefined)).toStrictEqual(hooked('post'))
  })

  it('runnerFailed: the error as an outcome, continuing or blocking with the reason given', () => {
    expect(runnerFailed('boom')).toStrictEqual({
      outcome: 'continue',
      systemMessages: [],
      errors: ['the hook runner failed: boom'],
    })
    expect(runnerFailed('boom', 'stopped')).toStrictEqual({
      outcome: 'block',
      reason: 'stopped',
      systemMessages: [],
      errors: ['the hook runner failed: boom'],
    })
  })
})
