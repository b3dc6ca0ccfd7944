/** toolUsesOf alone: the calls of a whole assistant message, and the app's mistakes as specific TypeErrors. */
import { describe, expect, it } from 'vitest'
import { toolUsesOf } from '../../src/intake/assistant-message.js'

const use = (id: string, name = 'Echo', input: unknown = {}) => ({ type: 'tool_use', id, name, input })

describe('toolUsesOf: Anthropic messages', () => {
  it('the tool_use blocks in order, numbered among themselves; other blocks are skipped', () => {
    expect(
      toolUsesOf({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: '…', signature: 's' },
          use('a', 'Read', { file_path: '/x' }),
          { type: 'text', text: 'and then' },
          use('b', 'Bash', 'raw text input is kept as it is'),
        ],
        stop_reason: 'tool_use',
      }),
    ).toEqual({
      uses: [
        { id: 'a', name: 'Read', input: { file_path: '/x' }, index: 0 },
        { id: 'b', name: 'Bash', input: 'raw text input is kept as it is', index: 1 },
      ],
      stopReason: 'tool_use',
    })
  })

  it('string content or no stop reason: no calls, stop reason null', () => {
    expect(toolUsesOf({ role: 'assistant', content: 'just text' })).toEqual({ uses: [], stopReason: null })
    expect(toolUsesOf({ role: 'assistant', content: [], stop_reason: null })).toEqual({ uses: [], stopReason: null })
  })

  it('a malformed tool_use block is a TypeError naming its index in content', () => {
    const message = {
      role: 'assistant',
      content: [{ type: 'text', text: '' }, use('ok'), { type: 'tool_use', name: 'X' }],
    }
    expect(() => toolUsesOf(message)).toThrow(TypeError)
    expect(() => toolUsesOf(message)).toThrow(/^content\[2\] is a tool_use block the kernel cannot answer/)
    expect(() => toolUsesOf({ role: 'assistant', content: [use('')] })).toThrow(
      /content\[0\][^]*a tool_use id must not be empty/,
    )
    expect(() => toolUsesOf({ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 7 }] })).toThrow(
      /content\[0\]/,
    )
  })

  it('not an assistant message: a TypeError saying what is expected', () => {
    for (const bad of [
      null,
      'hi',
      { role: 'user', content: [] },
      { role: 'assistant' },
      { role: 'assistant', content: [1] },
    ])
      expect(() => toolUsesOf(bad)).toThrow(
        /runTurn expects an assistant message \{ role: 'assistant', content: \[...\] \}/,
      )
  })

  it('two calls with the same id: a TypeError naming the id', () => {
    expect(() => toolUsesOf({ role: 'assistant', content: [use('dup'), use('x'), use('dup')] })).toThrow(
      new TypeError('tool call id "dup" appears twice; each call needs its own id'),
    )
  })
})

describe('toolUsesOf: OpenAI messages', () => {
  it('tool_calls with arguments parsed; finish_reason mapped to a stop reason', () => {
    expect(
      toolUsesOf({
        role: 'assistant',
        content: null,
        finish_reason: 'tool_calls',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/a"}' } }],
      }),
    ).toEqual({ uses: [{ id: 'c1', name: 'Read', index: 0, input: { file_path: '/a' } }], stopReason: 'tool_use' })
    expect(toolUsesOf({ role: 'assistant', tool_calls: [] }).stopReason).toBeNull()
  })

  it('duplicate ids are refused in this format too', () => {
    const call = { id: 'same', function: { name: 'A', arguments: '{}' } }
    expect(() => toolUsesOf({ role: 'assistant', tool_calls: [call, call] })).toThrow(/"same" appears twice/)
  })
})
