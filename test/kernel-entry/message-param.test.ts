/**
 * The message a turn returns is what the Anthropic API takes back: an image is one of the four
 * media types the API accepts (another is replaced by a note, not sent to be refused), and the
 * OpenAI Chat projection carries text only.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, toOpenAIToolMessages } from '../../src/index.js'
import { IMAGE_MEDIA_TYPES, toMessageParam } from '../../src/intake/message-param.js'
import { assistant, testKernel } from '../helpers.js'

const imageTool = (mediaType: string) =>
  buildTool({
    name: 'Shot',
    description: () => 'Takes a screenshot.',
    inputSchema: z.object({}),
    async call() {
      return 'img'
    },
    mapToolResultToToolResultBlockParam: (_output, toolUseId) => ({
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: [
        { type: 'text', text: 'The screen:' },
        { type: 'image', source: { type: 'base64', media_type: mediaType, data: 'AAAA' } },
      ],
    }),
  })

describe('the returned message as a MessageParam', () => {
  it.each(IMAGE_MEDIA_TYPES)('an %s image goes back as it is', async (mediaType) => {
    const { message } = await testKernel([imageTool(mediaType)]).runTurn(assistant(['s', 'Shot', {}]))
    expect(message.content[0]?.content).toEqual([
      { type: 'text', text: 'The screen:' },
      { type: 'image', source: { type: 'base64', media_type: mediaType, data: 'AAAA' } },
    ])
  })

  it('an image of another type is left out with a note, instead of a request the API refuses', async () => {
    const { message, events } = await testKernel([imageTool('image/svg+xml')]).runTurn(assistant(['s', 'Shot', {}]))
    expect(message.content[0]?.content).toEqual([
      { type: 'text', text: 'The screen:' },
      {
        type: 'text',
        text: '[image (image/svg+xml) left out: the Messages API takes JPEG, PNG, GIF or WebP images only]',
      },
    ])
    // The log keeps what the tool answered.
    const result = events.find((e) => e.type === 'tool.result')
    expect(JSON.stringify(result)).toContain('image/svg+xml')
  })

  it('is_error is kept as the block had it, and absent when the block had none', () => {
    const param = toMessageParam({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'x', is_error: true },
        { type: 'tool_result', tool_use_id: 'b', content: 'y', is_error: false },
        { type: 'tool_result', tool_use_id: 'c', content: 'z' },
      ],
    })
    expect(param.content.map((b) => ('is_error' in b ? b.is_error : 'absent'))).toEqual([true, false, 'absent'])
  })

  it('OpenAI Chat tool messages carry text only: an image becomes a note', async () => {
    const { message } = await testKernel([imageTool('image/png')]).runTurn(assistant(['s', 'Shot', {}]))
    expect(toOpenAIToolMessages(message)).toEqual([
      {
        role: 'tool',
        tool_call_id: 's',
        content: 'The screen:\n[image (image/png) left out: OpenAI tool messages carry text only]',
      },
    ])
  })
})
