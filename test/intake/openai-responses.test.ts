/** OpenAIResponsesStreamIntake and the Responses batch readers alone: Responses API values onto the intake. */
import { describe, expect, it } from 'vitest'
import { cutOff } from '../../src/intake/anthropic-stream.js'
import { OpenAIResponsesStreamIntake, outputCalls, responseCalls } from '../../src/intake/openai-responses.js'
import { recorded, recordingSink } from './sink.js'

function intake() {
  const sink = recordingSink()
  const responses = new OpenAIResponsesStreamIntake(sink)
  const push = (...events: unknown[]) => events.forEach((e) => responses.push(e))
  return { sink, responses, push }
}

let seq = 0
const fnItem = (callId: string, name: string, args = '', status = 'in_progress') => ({
  id: `fc_${callId}`,
  type: 'function_call',
  status,
  arguments: args,
  call_id: callId,
  name,
})
const added = (index: number, item: object) => ({
  type: 'response.output_item.added',
  output_index: index,
  item,
  sequence_number: seq++,
})
const delta = (index: number, text: string) => ({
  type: 'response.function_call_arguments.delta',
  item_id: `fc_${index}`,
  output_index: index,
  delta: text,
  sequence_number: seq++,
})
const argsDone = (index: number, args: string) => ({
  type: 'response.function_call_arguments.done',
  item_id: `fc_${index}`,
  output_index: index,
  name: 'x',
  arguments: args,
  sequence_number: seq++,
})
const terminal = (type: string, output: object[] = [], extra: object = {}) => ({
  type,
  response: { id: 'resp_1', object: 'response', output, ...extra },
  sequence_number: seq++,
})

describe('OpenAIResponsesStreamIntake: recorded streams', () => {
  it('text, then two function calls: paired by call_id, the \\u escape split mid-way, tool use', () => {
    const { sink, push } = intake()
    push(...recorded('openai-responses-parallel-calls.sse'))
    expect(sink.uses).toEqual([
      { id: 'call_Rq7mZ2xK9pL4nB8vT1wY6cD3', name: 'Read', index: 0, input: { file_path: '/project/Résumé.md' } },
      {
        id: 'call_Gh3tY8uI2oP5aS9dF4gH7jK1',
        name: 'Grep',
        index: 1,
        input: { pattern: 'TODO', path: '/project/src' },
      },
    ])
    expect(sink.ends).toEqual([{ stopReason: 'tool_use' }])
  })

  it('response.incomplete (max_output_tokens): the complete Glob is handed on, the cut Write is cut off', () => {
    const { sink, push } = intake()
    push(...recorded('openai-responses-incomplete.sse'))
    expect(sink.uses[0]).toEqual({
      id: 'call_Gb5nM1qW8eR3tY6uI9oP2aS4',
      name: 'Glob',
      index: 0,
      input: { pattern: 'src/**/*.ts' },
    })
    expect(sink.uses[1]).toMatchObject({ id: 'call_Wz2xC6vB9nM3qW7eR1tY5uI8', name: 'Write', index: 1 })
    expect(sink.uses[1]?.inputError).toMatch(/cut off/)
    expect(sink.ends).toEqual([{ stopReason: 'max_tokens' }])
  })

  it('an error event mid-stream: the call still streaming is cut off with the error', () => {
    const { sink, push } = intake()
    push(...recorded('openai-responses-error-midstream.sse'))
    const detail =
      'the stream failed: server_error (The server had an error while processing your request. Sorry about that!)'
    expect(sink.uses.map((u) => u.name)).toEqual(['Glob', 'Read'])
    expect(sink.uses[0]?.inputError).toBeUndefined()
    expect(sink.uses[1]?.inputError).toBe(cutOff('error', detail))
    expect(sink.ends).toEqual([{ stopReason: 'error', detail }])
  })
})

describe('OpenAIResponsesStreamIntake: event by event', () => {
  it('a call is handed on at arguments.done, before its output_item.done (early start)', () => {
    const { sink, push } = intake()
    push(added(0, fnItem('c1', 'Read')), delta(0, '{"file_path":'), delta(0, '"/a"}'))
    expect(sink.uses).toEqual([])
    push(argsDone(0, '{"file_path":"/a"}'))
    expect(sink.uses).toEqual([{ id: 'c1', name: 'Read', index: 0, input: { file_path: '/a' } }])
    push({
      type: 'response.output_item.done',
      output_index: 0,
      item: fnItem('c1', 'Read', '{"file_path":"/a"}', 'completed'),
    })
    expect(sink.uses).toHaveLength(1)
  })

  it('output_item.done alone completes a call; its arguments are the whole input', () => {
    const { sink, push } = intake()
    push(added(0, fnItem('c1', 'Read')), delta(0, '{"fi'))
    push({
      type: 'response.output_item.done',
      output_index: 0,
      item: fnItem('c1', 'Read', '{"file_path":"/b"}', 'completed'),
    })
    expect(sink.uses).toEqual([{ id: 'c1', name: 'Read', index: 0, input: { file_path: '/b' } }])
  })

  it('response.completed hands on calls the stream never showed, from its output', () => {
    const { sink, push } = intake()
    push(
      terminal('response.completed', [
        { type: 'message', role: 'assistant', content: [] },
        fnItem('late', 'Glob', '{}', 'completed'),
      ]),
    )
    expect(sink.uses).toEqual([{ id: 'late', name: 'Glob', index: 0, input: {} }])
    expect(sink.ends).toEqual([{ stopReason: 'tool_use' }])
  })

  it('response.completed with no calls ends the turn (end_turn); an empty-argument call is {}', () => {
    const a = intake()
    a.push(terminal('response.completed'))
    expect(a.sink.ends).toEqual([{ stopReason: 'end_turn' }])
    const b = intake()
    b.push(added(0, fnItem('c', 'Ls')), argsDone(0, ''), terminal('response.completed'))
    expect(b.sink.uses).toEqual([{ id: 'c', name: 'Ls', index: 0, input: {} }])
  })

  it.each([
    ['max_output_tokens', 'max_tokens'],
    ['content_filter', 'refusal'],
    [undefined, 'incomplete'],
  ])('response.incomplete with reason %s ends with stop reason %s', (reason, stopReason) => {
    const { sink, push } = intake()
    push(terminal('response.incomplete', [], { incomplete_details: reason === undefined ? null : { reason } }))
    expect(sink.ends).toEqual([{ stopReason }])
  })

  it('response.failed ends with error and the response error as the detail', () => {
    const { sink, push } = intake()
    push(
      added(0, fnItem('c', 'Read')),
      terminal('response.failed', [], { error: { code: 'server_error', message: 'boom' } }),
    )
    expect(sink.ends).toEqual([{ stopReason: 'error', detail: 'the response failed: server_error (boom)' }])
    expect(sink.uses[0]?.inputError).toBe(cutOff('error', 'the response failed: server_error (boom)'))
  })

  it('text, reasoning and hosted-tool events carry nothing to run; unknown response.* events are skipped', () => {
    const { sink, push } = intake()
    push(
      { type: 'response.created', response: { id: 'r', object: 'response', output: [] }, sequence_number: 0 },
      { type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0, delta: 'hi' },
      { type: 'response.refusal.delta', item_id: 'm', output_index: 0, content_index: 0, delta: 'no' },
      added(1, { id: 'ws_1', type: 'web_search_call', status: 'in_progress' }),
      { type: 'response.something_new', sequence_number: 99 },
    )
    expect(sink.uses).toEqual([])
    expect(sink.ends).toEqual([])
  })

  it('malformed or out-of-order events are TypeErrors naming what is wrong', () => {
    expect(() => intake().push(delta(3, '{}'))).toThrow(/output_index 3: no function_call is streaming there/)
    expect(() => intake().push(added(0, { type: 'function_call', name: 'A', arguments: '' }))).toThrow(
      /needs a call_id and a name/,
    )
    expect(() => intake().push({ type: 'response.output_item.added', output_index: -1, item: {} })).toThrow(
      /malformed response.output_item.added event/,
    )
    const twice = intake()
    twice.push(added(0, fnItem('c', 'A')))
    expect(() => twice.push(added(0, fnItem('d', 'B')))).toThrow(/already added/)
    const late = intake()
    late.push(terminal('response.completed'))
    expect(() => late.push(terminal('response.completed'))).toThrow(/after the response ended/)
    expect(() => intake().push(42)).toThrow(/expects an OpenAI Responses stream event, got number/)
  })

  it('a custom tool call is refused: toolkernel tools take JSON', () => {
    expect(() =>
      intake().push(added(0, { type: 'custom_tool_call', id: 'ctc', call_id: 'c', name: 'grammar', input: '' })),
    ).toThrow(/output\[0\] is a custom_tool_call: toolkernel runs function tools/)
  })

  it('close hands on open calls as cut off, in output order', () => {
    const { sink, responses, push } = intake()
    push(added(2, fnItem('two', 'B')), delta(2, '{"x":'), added(1, fnItem('one', 'A')))
    responses.close('aborted', 'the user interrupted the turn')
    expect(sink.uses.map((u) => [u.id, u.inputError])).toEqual([
      ['one', cutOff('aborted', 'the user interrupted the turn')],
      ['two', cutOff('aborted', 'the user interrupted the turn')],
    ])
  })
})

describe('responseCalls / outputCalls: whole responses', () => {
  const response = (status: string | undefined, output: object[], extra: object = {}) => ({
    id: 'resp_1',
    object: 'response',
    output,
    ...(status === undefined ? {} : { status }),
    ...extra,
  })

  it('function_call items by call_id (not the item id), other items skipped', () => {
    const calls = responseCalls(
      response('completed', [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        fnItem('call_a', 'Read', '{"file_path":"/a"}', 'completed'),
        { type: 'message', id: 'msg', role: 'assistant', content: [] },
        fnItem('call_b', 'Bad', '{"x":', 'completed'),
      ]),
    )
    expect(calls.stopReason).toBe('tool_use')
    expect(calls.uses.map((u) => u.id)).toEqual(['call_a', 'call_b'])
    expect(calls.uses[0]).toEqual({ id: 'call_a', name: 'Read', index: 0, input: { file_path: '/a' } })
    expect(calls.uses[1]?.inputError).toMatch(/cut off after 5 characters/)
  })

  it('the status decides the stop reason; a missing status is read from error and incomplete_details', () => {
    expect(responseCalls(response('completed', [])).stopReason).toBe('end_turn')
    expect(responseCalls(response('incomplete', [], { incomplete_details: { reason: 'max_output_tokens' } }))).toEqual({
      uses: [],
      stopReason: 'max_tokens',
    })
    const failed = responseCalls(
      response('failed', [fnItem('c', 'Read', '{}', 'completed')], { error: { code: 'server_error', message: 'x' } }),
    )
    expect(failed.stopReason).toBe('error')
    expect(failed.uses[0]?.inputError).toBe(cutOff('error', 'the response failed: server_error (x)'))
    expect(responseCalls(response('cancelled', [])).stopReason).toBe('cancelled')
    expect(
      responseCalls(response(undefined, [], { incomplete_details: { reason: 'content_filter' } })).stopReason,
    ).toBe('refusal')
    expect(responseCalls(response(undefined, [])).stopReason).toBe('end_turn')
  })

  it('an unfinished response is refused; an item marked incomplete is cut off even when its JSON parses', () => {
    expect(() => responseCalls(response('in_progress', []))).toThrow(/still in_progress: its output is not final/)
    const [use] = outputCalls([fnItem('c', 'Write', '{}', 'incomplete')])
    expect(use?.inputError).toMatch(/cut off/)
  })

  it('malformed items are TypeErrors naming their place', () => {
    expect(() => outputCalls([{ type: 'function_call', call_id: '', name: 'A', arguments: '' }])).toThrow(
      /output\[0\] is a function_call the kernel cannot answer[^]*call_id/,
    )
    expect(() => outputCalls([{ nope: 1 }])).toThrow(/runTurn expects a Responses output array/)
    expect(() => responseCalls(response('completed', [{ type: 'custom_tool_call' }]))).toThrow(
      /response.output\[0\] is a custom_tool_call/,
    )
  })
})
