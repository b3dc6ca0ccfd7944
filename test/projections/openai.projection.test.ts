/** toOpenAIToolMessages alone: one text-only `role: 'tool'` message per block, in order. */
import { describe, expect, it } from 'vitest'
import { toOpenAIToolMessages } from '../../src/projections/openai.projection.js'

describe('toOpenAIToolMessages', () => {
  it('one tool message per block, in the message order, errors keeping their text', () => {
    expect(
      toOpenAIToolMessages({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_2', content: 'second' },
          {
            type: 'tool_result',
            tool_use_id: 'call_1',
            content: '<tool_use_error>bad</tool_use_error>',
            is_error: true,
          },
        ],
      }),
    ).toEqual([
      { role: 'tool', tool_call_id: 'call_2', content: 'second' },
      { role: 'tool', tool_call_id: 'call_1', content: '<tool_use_error>bad</tool_use_error>' },
    ])
  })

  it('joins text parts with newlines and replaces an image by a note naming its type', () => {
    const [message] = toOpenAIToolMessages({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c',
          content: [
            { type: 'text', text: 'before' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            { type: 'text', text: 'after' },
          ],
        },
      ],
    })
    expect(message).toEqual({
      role: 'tool',
      tool_call_id: 'c',
      content: 'before\n[image (image/png) left out: OpenAI tool messages carry text only]\nafter',
    })
    expect(message?.content).not.toContain('AAAA')
  })

  it('an empty message gives no tool messages; an empty content array gives an empty text', () => {
    expect(toOpenAIToolMessages({ role: 'user', content: [] })).toEqual([])
    expect(
      toOpenAIToolMessages({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'e', content: [] }] }),
    ).toEqual([{ role: 'tool', tool_call_id: 'e', content: '' }])
  })
})
