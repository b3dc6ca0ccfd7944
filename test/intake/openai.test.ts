/** OpenAIStreamIntake and openAIToolUses alone: Chat Completions chunks and messages onto the intake. */
import { describe, expect, it } from 'vitest'
import { cutOff } from '../../src/intake/anthropic-stream.js'
import { OpenAIStreamIntake, isOpenAIMessage, openAIToolUses, stopReasonOf } from '../../src/intake/openai.js'
import { recorded, recordingSink } from './sink.js'

type Call = { index: number; id?: string; name?: string; args?: string }
const chunk = (calls: Call[], finish: string | null = null, choice = 0) => ({
  object: 'chat.completion.chunk',
  choices: [
    {
      index: choice,
      delta: {
        tool_calls: calls.map(({ index, id, name, args }) => ({
          index,
          ...(id !== undefined ? { id, type: 'function' } : {}),
          function: { ...(name !== undefined ? { name } : {}), ...(args !== undefined ? { arguments: args } : {}) },
        })),
      },
      finish_reason: finish,
    },
  ],
})
const finish = (reason: string) => ({ choices: [{ index: 0, delta: {}, finish_reason: reason }] })

function intake() {
  const sink = recordingSink()
  const openai = new OpenAIStreamIntake(sink)
  const push = (...chunks: unknown[]) => chunks.forEach((c) => openai.push(c))
  return { sink, openai, push }
}

describe('OpenAIStreamIntake', () => {
  it('the recorded stream: two calls by index, finish_reason tool_calls, then [DONE]', () => {
    const { sink, push } = intake()
    const chunks = recorded('openai-parallel-tool-calls.sse')
    expect(chunks.at(-1)).toBe('[DONE]')
    push(...chunks)
    expect(sink.uses).toEqual([
      { id: 'call_Xk2a9Qm1L3pZ8rT5vW7yB4nC', name: 'Read', index: 0, input: { file_path: '/project/README.md' } },
      {
        id: 'call_Jd6f0Hs4G8kE2uY1tR9oP3aQ',
        name: 'Grep',
        index: 1,
        input: { pattern: 'TODO', path: '/project/src', output_mode: 'count' },
      },
    ])
    expect(sink.ends).toEqual([{ stopReason: 'tool_use' }])
  })

  it('a call is complete when the next one begins, before the finish', () => {
    const { sink, push } = intake()
    push(chunk([{ index: 0, id: 'a', name: 'Read', args: '{"p":' }]), chunk([{ index: 0, args: '1}' }]))
    expect(sink.uses).toEqual([])
    push(chunk([{ index: 1, id: 'b', name: 'Grep', args: '' }]))
    expect(sink.uses).toEqual([{ id: 'a', name: 'Read', index: 0, input: { p: 1 } }])
    push(chunk([{ index: 1, args: '{}' }], 'tool_calls'))
    expect(sink.uses.map((u) => u.id)).toEqual(['a', 'b'])
  })

  it('several calls in one chunk, and a call with no arguments at all (an empty object)', () => {
    const { sink, push } = intake()
    push(
      chunk([
        { index: 0, id: 'a', name: 'A', args: '{"x":1}' },
        { index: 1, id: 'b', name: 'B' },
      ]),
      finish('tool_calls'),
    )
    expect(sink.uses).toEqual([
      { id: 'a', name: 'A', index: 0, input: { x: 1 } },
      { id: 'b', name: 'B', index: 1, input: {} },
    ])
  })

  it.each([
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
    ['something_new', 'something_new'],
    ['constructor', 'constructor'],
  ])('finish_reason %s ends the message with stop reason %s', (reason, stopReason) => {
    const { sink, push } = intake()
    push(finish(reason))
    expect(sink.ends).toEqual([{ stopReason }])
    expect(stopReasonOf(reason)).toBe(stopReason)
  })

  it('finish_reason length with a call half-written: cut off, naming max_tokens', () => {
    const { sink, push } = intake()
    push(chunk([{ index: 0, id: 'w', name: 'Write', args: '{"content":"abc' }]), finish('length'))
    expect(sink.uses).toEqual([
      { id: 'w', name: 'Write', index: 0, input: '{"content":"abc', inputError: cutOff('max_tokens', undefined) },
    ])
  })

  it('malformed arguments of a call completed by the next one keep the parser message', () => {
    const { sink, push } = intake()
    push(chunk([{ index: 0, id: 'a', name: 'A', args: '{"x": nope}' }]), chunk([{ index: 1, id: 'b', name: 'B' }]))
    expect(sink.uses[0]?.inputError).toMatch(/Unexpected token/)
  })

  it('[DONE] without a finish_reason ends the message with no stop reason; [DONE] after one does nothing', () => {
    const a = intake()
    a.push(chunk([{ index: 0, id: 'a', name: 'A', args: '{}' }]), '[DONE]')
    expect(a.sink.ends).toEqual([{ stopReason: null }])
    expect(a.sink.uses).toHaveLength(1)
    const b = intake()
    b.push(finish('stop'), '[DONE]')
    expect(b.sink.ends).toEqual([{ stopReason: 'end_turn' }])
  })

  // Was "only choice 0 is read": a chunk of choice 1 was skipped silently. With n > 1 the calls
  // of the other choices would never be answered, so such a chunk is now refused (issue 12).
  it('chunks with no tool_calls (text, role) change nothing; a chunk of choice 1 is refused (n > 1)', () => {
    const { sink, push } = intake()
    expect(() => push(chunk([{ index: 0, id: 'other', name: 'X', args: '{}' }], 'tool_calls', 1))).toThrow(
      /choice 1: the stream carries several choices \(n > 1\)[^]*request n: 1/,
    )
    push(
      { choices: [{ index: 0, delta: { role: 'assistant', content: 'thinking aloud', tool_calls: null } }] },
      { choices: [{ delta: { content: 'no index: choice 0' } }] },
    )
    expect(sink.uses).toEqual([])
    expect(sink.ends).toEqual([])
  })

  it('close hands on open calls in index order, complete ones whole, the rest cut off with the reason', () => {
    const { sink, openai, push } = intake()
    push(chunk([{ index: 0, id: 'done', name: 'A', args: '{"ok":true}' }]))
    push(chunk([{ index: 1, id: 'half', name: 'B', args: '{"ok":' }]))
    openai.close('aborted', 'the user interrupted the turn')
    expect(sink.uses).toEqual([
      { id: 'done', name: 'A', index: 0, input: { ok: true } },
      {
        id: 'half',
        name: 'B',
        index: 1,
        input: '{"ok":',
        inputError: cutOff('aborted', 'the user interrupted the turn'),
      },
    ])
    expect(() => push(chunk([]))).toThrow(/chat.completion.chunk after the message ended/)
  })

  it('close goes by the wire index even when a higher index began first', () => {
    const { sink, openai, push } = intake()
    push(
      chunk([{ index: 1, id: 'one', name: 'B', args: '{}' }]),
      chunk([{ index: 0, id: 'zero', name: 'A', args: '{}' }]),
    )
    openai.close('tool_use')
    expect(sink.uses.map((u) => `${u.id}#${u.index}`)).toEqual(['zero#1', 'one#0'])
  })

  it('the first delta of a call needs an id and a name; a malformed chunk is a TypeError', () => {
    expect(() => intake().push(chunk([{ index: 0, args: '{}' }]))).toThrow(
      /tool_calls\[0\]: the first delta of a call needs an id and function.name/,
    )
    expect(() => intake().push(chunk([{ index: 2, id: 'x' }]))).toThrow(/tool_calls\[2\]/)
    expect(() => intake().push({ nope: true })).toThrow(/malformed chat.completion.chunk/)
    expect(() => intake().push(null)).toThrow(TypeError)
  })

  // Bug: with `stream_options: { include_usage: true }` OpenAI sends one more chunk after the one
  // with finish_reason — `choices: []` and the usage — before `[DONE]`. The intake has ended by
  // then and throws "chat.completion.chunk after the message ended" (and Turn.pushOpenAI throws
  // "has ended" for it), so an app that pipes such a stream into the kernel fails on every turn.
  it('takes the usage chunk that follows finish_reason when include_usage is on', () => {
    const { sink, push } = intake()
    push(chunk([{ index: 0, id: 'a', name: 'A', args: '{}' }]), finish('tool_calls'))
    push({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } })
    push('[DONE]')
    expect(sink.ends).toEqual([{ stopReason: 'tool_use' }])
  })
})

describe('openAIToolUses', () => {
  it('the calls of a whole message, arguments parsed, numbered in order', () => {
    expect(
      openAIToolUses({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/a"}' } },
          { id: 'c2', function: { name: 'Ls', arguments: '' } },
          { id: 'c3', function: { name: 'Bad', arguments: '{"x":' } },
        ],
      }),
    ).toEqual([
      { id: 'c1', name: 'Read', index: 0, input: { file_path: '/a' } },
      { id: 'c2', name: 'Ls', index: 1, input: {} },
      {
        id: 'c3',
        name: 'Bad',
        index: 2,
        input: '{"x":',
        inputError: 'it was cut off after 5 characters, before the JSON was complete',
      },
    ])
  })

  it('no tool calls (null) is none; an empty id or a missing function is a TypeError', () => {
    expect(openAIToolUses({ role: 'assistant', tool_calls: null })).toEqual([])
    expect(() =>
      openAIToolUses({ role: 'assistant', tool_calls: [{ id: '', function: { name: 'A', arguments: '' } }] }),
    ).toThrow(/runTurn expects an OpenAI assistant message with tool_calls/)
    expect(() => openAIToolUses({ role: 'assistant', tool_calls: [{ id: 'a' }] })).toThrow(TypeError)
    expect(() => openAIToolUses({ role: 'user', tool_calls: [] })).toThrow(TypeError)
  })

  it('isOpenAIMessage: an object with a tool_calls key', () => {
    expect(isOpenAIMessage({ role: 'assistant', tool_calls: null })).toBe(true)
    expect(isOpenAIMessage({ role: 'assistant', content: [] })).toBe(false)
    expect(isOpenAIMessage(null)).toBe(false)
    expect(isOpenAIMessage('tool_calls')).toBe(false)
  })
})
