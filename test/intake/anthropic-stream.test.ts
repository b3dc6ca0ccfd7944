/** AnthropicStreamIntake alone: blocks assembled from recorded and hand-made stream events. */
import { describe, expect, it } from 'vitest'
import { AnthropicStreamIntake, cutOff } from '../../src/intake/anthropic-stream.js'
import { recorded, recordingSink } from './sink.js'

const start = (index: number, id: string, name: string, input: unknown = {}) => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name, input },
})
const delta = (index: number, partial_json: string) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
})
const stop = (index: number) => ({ type: 'content_block_stop', index })
const messageDelta = (stop_reason: string | null) => ({ type: 'message_delta', delta: { stop_reason } })
const MESSAGE_STOP = { type: 'message_stop' }

function intake() {
  const sink = recordingSink()
  const anthropic = new AnthropicStreamIntake(sink)
  const push = (...events: unknown[]) => events.forEach((event) => anthropic.push(event))
  return { sink, anthropic, push }
}

describe('AnthropicStreamIntake: recorded streams', () => {
  it('parallel reads: three calls assembled from fragments split anywhere (mid-escape too), in order', () => {
    const { sink, push } = intake()
    push(...recorded('anthropic-parallel-reads.sse'))
    expect(sink.uses).toEqual([
      { id: 'toolu_01A09q90qw90lq917835lq9', name: 'Read', index: 0, input: { file_path: '/project/src/index.ts' } },
      {
        id: 'toolu_01B7hLzQ5kKv3Jp1Ms6wWc2R',
        name: 'Grep',
        index: 1,
        input: { pattern: 'loadConfig\\(', path: '/project/src', output_mode: 'files_with_matches' },
      },
      {
        id: 'toolu_01C4nR8sTqYx2Vb6Ko9dPf3M',
        name: 'Read',
        index: 2,
        input: { file_path: '/project/docs/café notes.md', offset: 10, limit: 40 },
      },
    ])
    expect(sink.ends).toEqual([{ stopReason: 'tool_use' }])
  })

  it('thinking and text blocks are ignored: the tool calls are numbered 0 and 1', () => {
    const { sink, push } = intake()
    push(...recorded('anthropic-thinking-bash-read.sse'))
    expect(sink.uses.map((u) => [u.index, u.name])).toEqual([
      [0, 'Bash'],
      [1, 'Read'],
    ])
    expect(sink.uses[0]?.input).toMatchObject({ timeout: 120000, description: 'Run the parser tests verbosely' })
    expect(sink.uses.every((u) => u.inputError === undefined)).toBe(true)
  })

  it('max_tokens: a block stopped with half its JSON is an input error with the raw text', () => {
    const { sink, push } = intake()
    push(...recorded('anthropic-max-tokens-truncated.sse'))
    expect(sink.uses).toHaveLength(1)
    const [write] = sink.uses
    expect(write?.name).toBe('Write')
    expect(write?.input).toMatch(/^\{"file_path":"\/project\/src\/cache.ts","content":"export class/)
    expect(write?.inputError).toBe(
      `it was cut off after ${String(write?.input).length} characters, before the JSON was complete`,
    )
    expect(sink.ends).toEqual([{ stopReason: 'max_tokens' }])
  })

  it('an error event mid-stream: the complete call is handed on, the open one as cut off, then the end with the error', () => {
    const { sink, push } = intake()
    push(...recorded('anthropic-overloaded-midstream.sse'))
    const detail = 'the stream failed: overloaded_error (Overloaded)'
    expect(sink.uses).toEqual([
      {
        id: 'toolu_01G3hJ4kLmN5oPqR6sTu7VwX',
        name: 'Glob',
        index: 0,
        input: { pattern: '**/*.test.ts', path: '/project' },
      },
      {
        id: 'toolu_01K8lM9nOpQ1rStU2vWx3YzA',
        name: 'Read',
        index: 1,
        input: '{"file_path":"/proje',
        inputError: `it was cut off before the JSON was complete — ${detail}`,
      },
    ])
    expect(sink.ends).toEqual([{ stopReason: 'error', detail }])
  })
})

describe('AnthropicStreamIntake: events one by one', () => {
  it('hands a block on when it stops, not before', () => {
    const { sink, push } = intake()
    push(start(0, 'a', 'Echo'), delta(0, '{"text":'), delta(0, '"hi"}'))
    expect(sink.uses).toEqual([])
    push(stop(0))
    expect(sink.uses).toEqual([{ id: 'a', name: 'Echo', index: 0, input: { text: 'hi' } }])
  })

  it('interleaved blocks are kept apart by index; each is numbered by the order it started', () => {
    const { sink, push } = intake()
    push(
      start(3, 'x', 'A'),
      start(1, 'y', 'B'),
      delta(1, '{"b":'),
      delta(3, '{"a":1}'),
      delta(1, '2}'),
      stop(1),
      stop(3),
    )
    expect(sink.uses).toEqual([
      { id: 'y', name: 'B', index: 1, input: { b: 2 } },
      { id: 'x', name: 'A', index: 0, input: { a: 1 } },
    ])
  })

  it('no deltas: the input given at start; only empty deltas: an empty object', () => {
    const { sink, push } = intake()
    push(start(0, 'a', 'T', { given: true }), stop(0), start(1, 'b', 'T'), delta(1, ''), stop(1))
    expect(sink.uses.map((u) => u.input)).toEqual([{ given: true }, {}])
  })

  it('a delta without partial_json adds nothing; deltas of other kinds and of unknown blocks are ignored', () => {
    const { sink, push } = intake()
    push(
      start(0, 'a', 'T'),
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'no' } },
      // Only input_json_delta carries tool input, whatever fields another kind of delta has.
      { type: 'content_block_delta', index: 0, delta: { type: 'citations_delta', partial_json: '"x"' } },
      delta(0, '{"k":1}'),
      delta(7, 'garbage'),
      stop(7),
      stop(0),
    )
    expect(sink.uses).toEqual([{ id: 'a', name: 'T', index: 0, input: { k: 1 } }])
  })

  it('malformed JSON that is not cut off keeps the parser message', () => {
    const { sink, push } = intake()
    push(start(0, 'a', 'T'), delta(0, '{"k": nope}'), stop(0))
    expect(sink.uses[0]?.input).toBe('{"k": nope}')
    expect(sink.uses[0]?.inputError).toMatch(/Unexpected token/)
  })

  it('the stop reason comes from message_delta and is given at message_stop; a later delta without one keeps it', () => {
    const { sink, push } = intake()
    push(messageDelta('end_turn'), { type: 'message_delta', delta: {} })
    expect(sink.ends).toEqual([])
    push(MESSAGE_STOP)
    expect(sink.ends).toEqual([{ stopReason: 'end_turn' }])
  })

  it('message_stop without a message_delta ends with no stop reason', () => {
    const { sink, push } = intake()
    push(MESSAGE_STOP)
    expect(sink.ends).toEqual([{ stopReason: null }])
  })

  it('an error event without details still ends the message, saying the stream failed', () => {
    const { sink, push } = intake()
    push({ type: 'error', error: {} })
    expect(sink.ends).toEqual([{ stopReason: 'error', detail: 'the stream failed: error' }])
  })

  it('close hands on open blocks as cut off, in the order they started, and takes no more events', () => {
    const { sink, anthropic, push } = intake()
    push(start(5, 'late', 'T'), start(2, 'early', 'T'), delta(2, '{"a'))
    anthropic.close('aborted', 'the user interrupted the turn')
    expect(sink.uses).toEqual([
      { id: 'late', name: 'T', index: 0, input: '', inputError: cutOff('aborted', 'the user interrupted the turn') },
      {
        id: 'early',
        name: 'T',
        index: 1,
        input: '{"a',
        inputError: cutOff('aborted', 'the user interrupted the turn'),
      },
    ])
    expect(sink.ends).toEqual([])
    expect(() => push(stop(2))).toThrow(/content_block_stop event after the message ended/)
  })

  it('end is given once: events after message_stop are refused', () => {
    const { sink, anthropic, push } = intake()
    push(MESSAGE_STOP)
    anthropic.end('tool_use')
    expect(sink.ends).toHaveLength(1)
    expect(() => push({ type: 'ping' })).toThrow(TypeError)
  })

  it('unknown event types are ignored; pings and message_start do nothing', () => {
    const { sink, push } = intake()
    push({ type: 'some_future_event', whatever: 1 }, { type: 'ping' }, { type: 'message_start', message: {} })
    expect(sink.uses).toEqual([])
    expect(sink.ends).toEqual([])
  })
})

describe('AnthropicStreamIntake: malformed events are TypeErrors naming the problem', () => {
  it.each([
    [null, /string "type", got null/],
    ['text', /string "type", got string/],
    [{ index: 0 }, /got an object with keys index/],
    [
      { type: 'content_block_delta', index: -1, delta: { type: 'input_json_delta' } },
      /malformed content_block_delta event/,
    ],
    [{ type: 'content_block_start', index: 0 }, /malformed content_block_start event/],
  ])('%j', (event, message) => {
    expect(() => intake().push(event)).toThrow(message)
  })

  it('a tool_use block without an id or a name, or started twice at one index', () => {
    expect(() => intake().push(start(0, '', 'T'))).toThrow(/index 0: a tool_use block needs an id and a name/)
    expect(() =>
      intake().push({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'a' } }),
    ).toThrow(/index 1: a tool_use block needs an id and a name/)
    const { push } = intake()
    push(start(0, 'a', 'T'))
    expect(() => push(start(0, 'b', 'T'))).toThrow(/index 0: that block is already open/)
  })

  it('server tool blocks are not ours: no call, no error', () => {
    const { sink, push } = intake()
    push({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'server_tool_use', id: 's', name: 'web_search' },
    })
    push(delta(0, '{"q":1}'), stop(0))
    expect(sink.uses).toEqual([])
  })
})

describe('cutOff', () => {
  it('names the stop reason, or the detail when there is one', () => {
    expect(cutOff('max_tokens', undefined)).toBe(
      'it was cut off before the JSON was complete — the message ended with stop reason max_tokens',
    )
    expect(cutOff(null, undefined)).toMatch(/stop reason none$/)
    expect(cutOff('error', 'the stream failed')).toMatch(/— the stream failed$/)
  })
})
