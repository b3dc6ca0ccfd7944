/** run-hooks alone: withContext, and what the hook steps make of a runner's answers (a stand-in runner). */
import type { AnyActorRef } from 'xstate'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { CallEnv, CallServices } from '../../../src/actors/tool-call/call-env.js'
import { runHooksStep, withContext } from '../../../src/actors/tool-call/run-hooks.js'
import type { HookOutcome, HookRequest, HookRunner } from '../../../src/hooks/hook-runner.js'
import type { Failure, ToolCallContext, ToolCallEvent } from '../../../src/machines/tool-call.types.js'
import { buildTool } from '../../../src/tools/build-tool.js'

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

function harness(answer: (request: HookRequest) => Promise<HookOutcome>, failure: Failure | null = null) {
  const requests: HookRequest[] = []
  const sent: ToolCallEvent[] = []
  const hooks: HookRunner = {
    has: () => true,
    run: (request) => {
      requests.push(request)
      return answer(request)
    },
  }
  const env = {
    services: { hooks } as Partial<CallServices> as CallServices,
    turnId: 'T',
    toolUseId: 'tu',
    index: 0,
    name: 'Edit',
    rawInput: { path: '/raw' },
    input: { path: '/parsed' },
    output: 'the output',
    controller: undefined,
    hooks: {},
    contexts: [],
    block: { type: 'tool_result', tool_use_id: 'tu', content: 'result' },
  } as Partial<CallEnv> as CallEnv
  const context: ToolCallContext = {
    failure,
    interrupt: 'block',
    steps: { customValidation: false, preHooks: true, postHooks: true },
  }
  const self = {
    getSnapshot: () => ({ status: 'active' }),
    send: (e: ToolCallEvent) => sent.push(e),
  } as unknown as AnyActorRef
  const run = async (phase: 'pre' | 'post') => {
    const immediate = runHooksStep(phase)({ context, self, env, tool: Tool })
    // The runner answers with a promise: the step sends its event when it settles.
    await Promise.resolve()
    await Promise.resolve()
    return immediate ?? sent.at(-1)
  }
  return { requests, env, run }
}

describe('runHooksStep: pre', () => {
  it('asks with the parsed input; continue is a plain preHook.done', async () => {
    const h = harness(async () => outcome())
    expect(await h.run('pre')).toEqual({ type: 'preHook.done' })
    expect(h.requests[0]).toMatchObject({
      phase: 'pre',
      turnId: 'T',
      toolUseId: 'tu',
      tool: Tool,
      input: { path: '/parsed' },
    })
    expect(h.requests[0]).not.toHaveProperty('response')
    expect(h.env.hooks.pre).toEqual(outcome())
  })

  it('a block is a hook_blocked failure with the reason, or saying none was given', async () => {
    expect(await harness(async () => outcome({ outcome: 'block', reason: 'not on main' })).run('pre')).toEqual({
      type: 'preHook.done',
      failure: {
        step: 'preHook',
        code: 'hook_blocked',
        message: 'A PreToolUse hook blocked this Edit call: not on main',
      },
    })
    const none = await harness(async () => outcome({ outcome: 'block' })).run('pre')
    expect(none).toMatchObject({ failure: { message: 'A PreToolUse hook blocked this Edit call: no reason given' } })
  })

  it('rewritten input is validated again: accepted it replaces the input, refused it stops the call', async () => {
    const ok = harness(async () => outcome({ updatedInput: { path: '/rewritten' } }))
    expect(await ok.run('pre')).toEqual({ type: 'preHook.done' })
    // The input as the schema parsed it (defaults applied), not as the hook wrote it.
    expect(ok.env.input).toEqual({ path: '/rewritten', force: false })
    const bad = harness(async () => outcome({ updatedInput: { path: '/x', sneaky: true } }))
    const event = await bad.run('pre')
    expect(event).toMatchObject({ type: 'preHook.done', failure: { step: 'preHook', code: 'invalid_input' } })
    expect((event as { failure: Failure }).failure.message).toMatch(
      /^A PreToolUse hook rewrote the input into one Edit does not accept, so the call did not run\. Invalid input for Edit/,
    )
    expect(bad.env.input).toEqual({ path: '/parsed' })
  })

  it("a decision becomes the hooks' say in the permission step; context is kept for the result", async () => {
    const h = harness(async () => outcome({ decision: 'ask', reason: 'check it', additionalContext: 'ctx' }))
    await h.run('pre')
    expect(h.env.hookSay).toEqual({ decision: 'ask', reason: 'check it' })
    expect(h.env.contexts).toEqual(['ctx'])
    const bare = harness(async () => outcome({ decision: 'allow' }))
    await bare.run('pre')
    expect(bare.env.hookSay).toStrictEqual({ decision: 'allow' })
    const silent = harness(async () => outcome())
    await silent.run('pre')
    expect(silent.env.hookSay).toBeUndefined()
  })

  it('a runner that fails blocks the call (fail closed), saying why', async () => {
    const h = harness(async () => {
      throw new Error('spawn EACCES')
    })
    const event = await h.run('pre')
    expect(event).toMatchObject({ type: 'preHook.done', failure: { step: 'preHook', code: 'hook_blocked' } })
    expect((event as { failure: Failure }).failure.message).toBe(
      'A PreToolUse hook blocked this Edit call: the hook runner failed (spawn EACCES), so the hooks could not check the call and it did not run',
    )
    expect(h.env.hooks.pre).toEqual({
      outcome: 'block',
      reason: 'the hook runner failed (spawn EACCES), so the hooks could not check the call and it did not run',
      systemMessages: [],
      errors: ['the hook runner failed: spawn EACCES'],
    })
  })
})

describe('runHooksStep: post', () => {
  it('after success: the response is the output; context is appended to the block', async () => {
    const h = harness(async () => outcome({ additionalContext: 'lint: 2 warnings' }))
    expect(await h.run('post')).toEqual({ type: 'postHook.done' })
    expect(h.requests[0]).toMatchObject({ phase: 'post', response: 'the output' })
    expect(h.requests[0]).not.toHaveProperty('error')
    expect(h.env.block?.content).toEqual([
      { type: 'text', text: 'result' },
      { type: 'text', text: 'Context from a hook:\nlint: 2 warnings' },
    ])
  })

  it('after a failure: the error text and whether it was an interrupt, no response', async () => {
    const failed = harness(async () => outcome(), { step: 'call', code: 'tool_error', message: 'Edit failed: EISDIR' })
    await failed.run('post')
    expect(failed.requests[0]).toMatchObject({ error: 'Edit failed: EISDIR', isInterrupt: false })
    expect(failed.requests[0]).not.toHaveProperty('response')
    for (const code of ['interrupted', 'cancelled'] as const) {
      const stopped = harness(async () => outcome(), { step: 'call', code, message: 'stopped' })
      await stopped.run('post')
      expect(stopped.requests[0]?.isInterrupt).toBe(true)
    }
  })

  it('a runner that fails after the call leaves the result standing and notes the error', async () => {
    const h = harness(async () => {
      throw new Error('hook crashed')
    })
    expect(await h.run('post')).toEqual({ type: 'postHook.done' })
    expect(h.env.block?.content).toBe('result')
    expect(h.env.hooks.post).toEqual({
      outcome: 'continue',
      systemMessages: [],
      errors: ['the hook runner failed: hook crashed'],
    })
  })
})
