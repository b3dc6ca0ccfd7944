/**
 * The map step alone, over a hand-built call: output or failure → one `tool.mapped` and the
 * tool_result block it hands on (carry.block).
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { newCallIO, type CallIO, type CallScope, type CallServices } from '../../../src/actors/tool-call/call-scope.js'
import { checkBlock, mapStep } from '../../../src/actors/tool-call/map.step.js'
import { ToolResultBlockSchema, type FailureCode, type ToolResultBlock } from '../../../src/events/event.schema.js'
import { type advance, foldCall, REQUESTED, type CallState, type Failure } from '../../../src/events/tool-call.steps.js'
import type { Carry } from '../../../src/machines/tool-call.types.js'
import { buildTool } from '../../../src/tools/build-tool.js'
import { ToolRegistry } from '../../../src/tools/tool-registry.js'
import type { Tool } from '../../../src/tools/tool.types.js'

const tool = (mapper?: (output: unknown, id: string) => ToolResultBlock): Tool =>
  buildTool({
    name: 'Fetch',
    aliases: ['Get'],
    description: () => 'Fetches.',
    userFacingName: () => 'Web fetch',
    inputSchema: z.object({}),
    call: async () => '',
    ...(mapper !== undefined ? { mapToolResultToToolResultBlockParam: mapper } : {}),
  })

/** Only what the map step reads: the registry (to find the tool), the ids, and the progress kept. */
function scope(tools: readonly Tool[] = [], io: Partial<CallIO> = {}): CallScope {
  return {
    services: { registry: new ToolRegistry(tools) } as Partial<CallServices> as CallServices,
    turnId: 'T',
    toolUseId: 'tu_1',
    index: 0,
    budget: { limit: 100_000, used: 0 },
    voided: undefined,
    inputError: undefined,
    validated: undefined,
    io: { ...newCallIO(), ...io },
  }
}

/** A call at map: parsed as Fetch and run, unless `more` says otherwise. */
const state = (more: Partial<CallState> = {}): CallState => ({
  ...REQUESTED,
  name: 'Fetch',
  step: 'map',
  started: true,
  ...more,
})

function map(call: CallScope, at: CallState, carry: Carry = {}) {
  const decided = mapStep(call, at, carry)
  if ('then' in decided) throw new Error('the map step never waits')
  return { events: decided.events, block: decided.carry?.block, carry: decided.carry }
}

/** The events of one call, as `advance` takes them. */
type CallEvent = Parameters<typeof advance>[1]
const own = (events: readonly unknown[]) => events as readonly CallEvent[]

const mapped = (isError: boolean, failure?: string) => ({
  type: 'tool.mapped',
  turnId: 'T',
  toolUseId: 'tu_1',
  isError,
  ...(failure === undefined ? {} : { failure }),
})

describe('mapStep: a call that ran', () => {
  it('the output through the default mapper; tool.mapped says it is no error, and the carry is kept', () => {
    const { events, carry } = map(scope([tool()]), state(), { input: {}, output: 'page text' })
    expect(events).toStrictEqual([mapped(false)])
    expect(carry).toStrictEqual({
      input: {},
      output: 'page text',
      block: { type: 'tool_result', tool_use_id: 'tu_1', content: 'page text' },
    })
  })

  it('empty output, as text or as no parts, says the tool completed with no output (its user-facing name)', () => {
    const empty = { type: 'tool_result', tool_use_id: 'tu_1', content: '(Web fetch completed with no output)' }
    expect(map(scope([tool()]), state(), { output: '' }).block).toEqual(empty)
    expect(map(scope([tool()]), state(), { output: undefined }).block).toEqual(empty)
    const noParts = tool((_, id) => ({ type: 'tool_result', tool_use_id: id, content: [] }))
    expect(map(scope([noParts]), state(), { output: 'x' }).block).toEqual(empty)
  })

  it("the mapper's is_error is kept when true and dropped when false; the block answers this call's id", () => {
    const err = tool(() => ({ type: 'tool_result', tool_use_id: 'someone else', content: 'nope', is_error: true }))
    const failing = map(scope([err]), state(), { output: 1 })
    expect(failing.block).toEqual({ type: 'tool_result', tool_use_id: 'tu_1', content: 'nope', is_error: true })
    // The tool said its result is an error; the call itself did not fail.
    expect(failing.events).toStrictEqual([mapped(true)])
    expect(foldCall(own(failing.events), state()).failure).toBeNull()
    const ok = tool((_, id) => ({ type: 'tool_result', tool_use_id: id, content: 'fine', is_error: false }))
    expect(map(scope([ok]), state(), { output: 1 }).block).toEqual({
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
    const block = { type: 'tool_result' as const, tool_use_id: 'tu_1', content: 'preview' }
    expect(map(scope([counting]), state(), { output: 'x', block }).block?.content).toBe('preview')
    expect(calls).toBe(0)
  })

  it('a mapper that throws: a tool_error failure in the map step, and an error block saying the tool ran', () => {
    const throwing = tool(() => {
      throw new RangeError('bad offset')
    })
    const message = 'Fetch ran, but its result could not be turned into text: RangeError: bad offset'
    const { events, block } = map(scope([throwing]), state(), { output: 'x' })
    expect(events).toStrictEqual([mapped(true, message)])
    expect(block).toEqual({ type: 'tool_result', tool_use_id: 'tu_1', content: message, is_error: true })
    // The log's fold makes the same failure of it.
    expect(foldCall(own(events), state()).failure).toEqual({ step: 'map', code: 'tool_error', message })
  })

  it('a mapper failure handed on when the call finished is the same failure', () => {
    const { events, block } = map(scope([tool()]), state(), { output: 'x', mapError: new Error('kaput') })
    expect(events).toStrictEqual([mapped(true, 'Fetch ran, but its result could not be turned into text: kaput')])
    expect(block?.is_error).toBe(true)
  })

  it('a mapper that returns something that is not a block fails the same way, naming the problem', () => {
    const wrong = tool(() => ({ type: 'text', text: 'hi' }) as unknown as ToolResultBlock)
    const { events, block } = map(scope([wrong]), state(), { output: 'x' })
    expect(events[0]).toMatchObject({ type: 'tool.mapped', isError: true })
    expect(block?.content).toMatch(
      /^Fetch ran, but its result could not be turned into text: its mapper returned something that is not a tool_result block \(/,
    )
    expect((events[0] as { failure?: string }).failure).toBe(block?.content)
  })

  it('hook context is added after the content, on success and on a mapper failure', () => {
    const ok = map(scope([tool()]), state({ contexts: ['first', 'second'] }), { output: 'out' }).block
    expect(ok?.content).toEqual([
      { type: 'text', text: 'out' },
      { type: 'text', text: 'Context from a hook:\nfirst' },
      { type: 'text', text: 'Context from a hook:\nsecond' },
    ])
    const thrown = tool(() => {
      throw new Error('x')
    })
    const failed = map(scope([thrown]), state({ contexts: ['why'] }), { output: 'out' }).block
    expect(failed?.content).toEqual([
      { type: 'text', text: 'Fetch ran, but its result could not be turned into text: x' },
      { type: 'text', text: 'Context from a hook:\nwhy' },
    ])
  })

  it('a call at map without a resolved tool is a bug: the step throws, saying so', () => {
    expect(() => map(scope([]), state(), { output: 'x' })).toThrow(
      'tool call tu_1: a step after parse ran without a resolved tool',
    )
  })
})

describe('mapStep: a call that ended early', () => {
  const failure = (code: FailureCode, message: string, step: Failure['step'] = 'parse'): Failure => ({
    step,
    code,
    message,
  })
  /** A call that failed before it ran: nothing in the registry is needed to answer it. */
  const early = (f: Failure, more: Partial<CallState> = {}) => state({ started: false, failure: f, ...more })

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
    const { events, block } = map(scope(), early(failure(code, 'what went wrong')))
    expect(events).toStrictEqual([mapped(true)])
    expect(block).toEqual({
      type: 'tool_result',
      tool_use_id: 'tu_1',
      content: '<tool_use_error>what went wrong</tool_use_error>',
      is_error: true,
    })
  })

  it('the failure is already in the state: tool.mapped names none, and the fold keeps the one there', () => {
    const at = early(failure('permission_denied', 'denied', 'permission'))
    const { events } = map(scope(), at)
    expect(events[0]).not.toHaveProperty('failure')
    expect(foldCall(own(events), at).failure).toBe(at.failure)
  })

  it('tool_error and internal: the message as it is, not wrapped (the tool ran, or may have)', () => {
    for (const code of ['tool_error', 'internal'] as const)
      expect(map(scope(), state({ failure: failure(code, 'Fetch failed: timeout', 'call') })).block).toEqual({
        type: 'tool_result',
        tool_use_id: 'tu_1',
        content: 'Fetch failed: timeout',
        is_error: true,
      })
  })

  it("cancelled: says it never ran and why, naming the resolved tool (or the model's name before parse)", () => {
    // The model called it by an alias: once parsed, the state names the tool parse resolved.
    const byAlias = foldCall(
      own([
        { type: 'tool.requested', turnId: 'T', toolUseId: 'tu_1', index: 0, name: 'Get', input: {} },
        { type: 'tool.parsed', turnId: 'T', toolUseId: 'tu_1', tool: 'Fetch' },
        {
          type: 'tool.cancelled',
          turnId: 'T',
          toolUseId: 'tu_1',
          step: 'validate',
          reason: 'the user interrupted the turn',
        },
      ]),
    )
    expect(map(scope([tool()]), byAlias).block?.content).toBe(
      'Fetch was cancelled before it ran: the user interrupted the turn. It had no effect; call it again if it is still needed.',
    )
    const unparsed = early(failure('cancelled', 'stop'), { name: 'Fetchh' })
    expect(map(scope(), unparsed).block?.content).toMatch(/^Fetchh was cancelled before it ran: stop\./)
  })

  it('interrupted: says it may have had effects, with the partial output, marked when its head was cut', () => {
    const stopped = state({ failure: failure('interrupted', 'the user interrupted the turn', 'call') })
    expect(map(scope([tool()], { partial: 'line 1\nline 2' }), stopped).block?.content).toBe(
      'Fetch was interrupted while running: the user interrupted the turn. It may have had partial effects; check before calling it again. Output before it stopped:\nline 1\nline 2',
    )
    expect(map(scope([tool()], { partial: 'the tail', partialCut: true }), stopped).block?.content).toMatch(
      /Output before it stopped:\n…the tail$/,
    )
    expect(map(scope([tool()]), stopped).block?.content).toMatch(/It produced no output before it stopped\.$/)
  })

  it('hook context is added to an early end too', () => {
    const at = early(failure('permission_denied', 'denied'), { contexts: ['policy says no'] })
    expect(map(scope(), at).block?.content).toEqual([
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
    const first = ToolResultBlockSchema.safeParse(block).error?.issues[0]?.message
    expect(first).toEqual(expect.any(String))
    expect(() => checkBlock(block)).toThrow(
      new Error(`its mapper returned something that is not a tool_result block (${first})`),
    )
  })
})
