/** The map step alone, over hand-built call environments: output or failure → one tool_result block. */
import type { AnyActorRef } from 'xstate'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { checkBlock, mapResultStep } from '../../../src/actors/tool-call/map.step.js'
import type { CallEnv } from '../../../src/actors/tool-call/call-env.js'
import type { FailureCode, ToolResultBlock } from '../../../src/events/event.schema.js'
import type { Failure, ToolCallContext } from '../../../src/machines/tool-call.types.js'
import { buildTool } from '../../../src/tools/build-tool.js'
import type { Tool } from '../../../src/tools/tool.types.js'

const tool = (mapper?: (output: unknown, id: string) => ToolResultBlock): Tool =>
  buildTool({
    name: 'Fetch',
    description: () => 'Fetches.',
    userFacingName: () => 'Web fetch',
    inputSchema: z.object({}),
    call: async () => '',
    ...(mapper !== undefined ? { mapToolResultToToolResultBlockParam: mapper } : {}),
  })

const context = (failure: Failure | null = null): ToolCallContext => ({
  failure,
  interrupt: 'cancel',
  steps: { customValidation: false, preHooks: false, postHooks: false },
})

type Fields = Pick<CallEnv, 'contexts' | 'partial' | 'partialCut' | 'turnId' | 'toolUseId' | 'index' | 'name'> &
  Partial<Pick<CallEnv, 'tool' | 'output' | 'mapped'>>
/** Only what the map step reads; the rest of a call's environment never reaches it. */
const env = (fields: Partial<Fields> = {}): CallEnv =>
  ({
    turnId: 'T',
    toolUseId: 'tu_1',
    index: 0,
    name: 'Fetch',
    contexts: [],
    partial: '',
    partialCut: false,
    ...fields,
  }) as Fields as CallEnv

const self = {} as AnyActorRef
function map(ctx: ToolCallContext, callEnv: CallEnv) {
  const update = mapResultStep({ context: ctx, self, env: callEnv })
  return { update, block: callEnv.block }
}

describe('mapResultStep: a call that ran', () => {
  it('the output through the default mapper; the context is left alone', () => {
    expect(map(context(), env({ tool: tool(), output: 'page text' }))).toEqual({
      update: undefined,
      block: { type: 'tool_result', tool_use_id: 'tu_1', content: 'page text' },
    })
  })

  it('empty output, as text or as no parts, says the tool completed with no output (its user-facing name)', () => {
    const empty = { type: 'tool_result', tool_use_id: 'tu_1', content: '(Web fetch completed with no output)' }
    expect(map(context(), env({ tool: tool(), output: '' })).block).toEqual(empty)
    expect(map(context(), env({ tool: tool(), output: undefined })).block).toEqual(empty)
    const noParts = tool((_, id) => ({ type: 'tool_result', tool_use_id: id, content: [] }))
    expect(map(context(), env({ tool: noParts, output: 'x' })).block).toEqual(empty)
  })

  it("the mapper's is_error is kept when true and dropped when false; the block answers this call's id", () => {
    const err = tool(() => ({ type: 'tool_result', tool_use_id: 'someone else', content: 'nope', is_error: true }))
    expect(map(context(), env({ tool: err, output: 1 })).block).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu_1',
      content: 'nope',
      is_error: true,
    })
    const ok = tool((_, id) => ({ type: 'tool_result', tool_use_id: id, content: 'fine', is_error: false }))
    expect(map(context(), env({ tool: ok, output: 1 })).block).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu_1',
      content: 'fine',
    })
  })

  it('a block mapped when the call finished is used as it is, without calling the mapper again', () => {
    let calls = 0
    const counting = tool((_, id) => {
      calls++
      return { type: 'tool_result', tool_use_id: id, content: 'fresh' }
    })
    const mapped = { block: { type: 'tool_result' as const, tool_use_id: 'tu_1', content: 'preview' } }
    expect(map(context(), env({ tool: counting, output: 'x', mapped })).block?.content).toBe('preview')
    expect(calls).toBe(0)
  })

  it('a mapper that throws: a tool_error failure in the map step, and an error block saying the tool ran', () => {
    const throwing = tool(() => {
      throw new RangeError('bad offset')
    })
    const message = 'Fetch ran, but its result could not be turned into text: RangeError: bad offset'
    expect(map(context(), env({ tool: throwing, output: 'x' }))).toEqual({
      update: { failure: { step: 'map', code: 'tool_error', message } },
      block: { type: 'tool_result', tool_use_id: 'tu_1', content: message, is_error: true },
    })
  })

  it('a mapper failure recorded when the call finished is the same failure', () => {
    const { update, block } = map(context(), env({ tool: tool(), output: 'x', mapped: { error: new Error('kaput') } }))
    expect(update?.failure?.message).toBe('Fetch ran, but its result could not be turned into text: kaput')
    expect(block?.is_error).toBe(true)
  })

  it('a mapper that returns something that is not a block fails the same way, naming the problem', () => {
    const wrong = tool(() => ({ type: 'text', text: 'hi' }) as unknown as ToolResultBlock)
    const { update, block } = map(context(), env({ tool: wrong, output: 'x' }))
    expect(update?.failure).toMatchObject({ step: 'map', code: 'tool_error' })
    expect(block?.content).toMatch(
      /^Fetch ran, but its result could not be turned into text: its mapper returned something that is not a tool_result block \(/,
    )
  })

  it('hook context is added after the content, on success and on a mapper failure', () => {
    const ok = map(context(), env({ tool: tool(), output: 'out', contexts: ['first', 'second'] })).block
    expect(ok?.content).toEqual([
      { type: 'text', text: 'out' },
      { type: 'text', text: 'Context from a hook:\nfirst' },
      { type: 'text', text: 'Context from a hook:\nsecond' },
    ])
    const thrown = tool(() => {
      throw new Error('x')
    })
    const failed = map(context(), env({ tool: thrown, output: 'out', contexts: ['why'] })).block
    expect(failed?.content).toEqual([
      { type: 'text', text: 'Fetch ran, but its result could not be turned into text: x' },
      { type: 'text', text: 'Context from a hook:\nwhy' },
    ])
  })
})

describe('mapResultStep: a call that ended early', () => {
  const failure = (code: FailureCode, message: string, step: Failure['step'] = 'parse'): Failure => ({
    step,
    code,
    message,
  })

  it.each<FailureCode>([
    'unknown_tool',
    'tool_disabled',
    'invalid_json',
    'not_an_object',
    'invalid_input',
    'validate_input',
    'hook_blocked',
    'permission_denied',
  ])('%s (never ran): the message inside <tool_use_error>', (code) => {
    expect(map(context(failure(code, 'what went wrong')), env())).toEqual({
      update: undefined,
      block: {
        type: 'tool_result',
        tool_use_id: 'tu_1',
        content: '<tool_use_error>what went wrong</tool_use_error>',
        is_error: true,
      },
    })
  })

  it('tool_error and internal: the message as it is, not wrapped (the tool ran, or may have)', () => {
    for (const code of ['tool_error', 'internal'] as const)
      expect(map(context(failure(code, 'Fetch failed: timeout', 'call')), env()).block).toEqual({
        type: 'tool_result',
        tool_use_id: 'tu_1',
        content: 'Fetch failed: timeout',
        is_error: true,
      })
  })

  it("cancelled: says it never ran and why, naming the resolved tool (or the model's name without one)", () => {
    // The model called it by an alias: the text names the tool parse resolved.
    const byAlias = context(failure('cancelled', 'the user interrupted the turn'))
    const withTool = map(byAlias, env({ tool: tool(), name: 'Get' })).block
    expect(withTool?.content).toBe(
      'Fetch was cancelled before it ran: the user interrupted the turn. It had no effect; call it again if it is still needed.',
    )
    const ctx = context(failure('cancelled', 'stop'))
    expect(map(ctx, env({ name: 'Fetchh' })).block?.content).toMatch(/^Fetchh was cancelled before it ran: stop\./)
  })

  it('interrupted: says it may have had effects, with the partial output, marked when its head was cut', () => {
    const stopped = context(failure('interrupted', 'the user interrupted the turn', 'call'))
    expect(map(stopped, env({ tool: tool(), partial: 'line 1\nline 2' })).block?.content).toBe(
      'Fetch was interrupted while running: the user interrupted the turn. It may have had partial effects; check before calling it again. Output before it stopped:\nline 1\nline 2',
    )
    expect(map(stopped, env({ tool: tool(), partial: 'the tail', partialCut: true })).block?.content).toMatch(
      /Output before it stopped:\n…the tail$/,
    )
    expect(map(stopped, env({ tool: tool() })).block?.content).toMatch(/It produced no output before it stopped\.$/)
  })

  it('hook context is added to an early end too', () => {
    const { block } = map(context(failure('permission_denied', 'denied')), env({ contexts: ['policy says no'] }))
    expect(block?.content).toEqual([
      { type: 'text', text: '<tool_use_error>denied</tool_use_error>' },
      { type: 'text', text: 'Context from a hook:\npolicy says no' },
    ])
  })
})

describe('checkBlock', () => {
  it('a valid block comes back (unknown fields dropped)', () => {
    expect(checkBlock({ type: 'tool_result', tool_use_id: 'a', content: 'x', extra: 1 })).toEqual({
      type: 'tool_result',
      tool_use_id: 'a',
      content: 'x',
    })
    const parts = [
      { type: 'text', text: 't' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
    ]
    expect(checkBlock({ type: 'tool_result', tool_use_id: 'a', content: parts }).content).toEqual(parts)
  })

  it.each([
    null,
    'text',
    { type: 'tool_result', tool_use_id: 'a' },
    { type: 'tool_result', tool_use_id: 'a', content: 5 },
  ])('throws for %j, naming the first problem', (block) => {
    expect(() => checkBlock(block)).toThrow(/^its mapper returned something that is not a tool_result block \(.+\)$/)
  })
})
