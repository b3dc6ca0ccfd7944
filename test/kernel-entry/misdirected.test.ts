/**
 * Nothing accepted silently: a value handed to the wrong entry point throws a TypeError that
 * names what it got, what it takes, and the method to call instead. Before, each of these was
 * skipped as "not a tool call": the turn never ended, or ended with no results.
 */
import { describe, expect, it } from 'vitest'
import { testKernel } from '../helpers.js'
import { recordingTools } from './tools.js'

const kernel = () => testKernel(recordingTools().tools)
const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/a' } }
const anthropicMessage = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [toolUse],
  stop_reason: 'tool_use',
  stop_sequence: null,
}
const chatChunk = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4.1',
  choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }],
}
const responsesEvent = {
  type: 'response.output_item.added',
  output_index: 0,
  item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'Read', arguments: '' },
  sequence_number: 3,
}
const aiSdkMessage = {
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'Read', input: { file_path: '/a' } }],
}

describe('turn.push takes Anthropic stream events only', () => {
  it.each([
    [
      'a tool_use content block',
      toolUse,
      /turn.push got an Anthropic tool_use content block[^]*use turn.addToolUse\(block\)/,
    ],
    [
      'a text content block',
      { type: 'text', text: 'hi' },
      /turn.push got an Anthropic content block[^]*kernel.runTurn\(message\)/,
    ],
    ['a whole Message', anthropicMessage, /turn.push got a whole Anthropic message[^]*use kernel.runTurn\(message\)/],
    ['an OpenAI chunk', chatChunk, /turn.push got an OpenAI Chat Completions chunk[^]*use turn.pushOpenAI\(chunk\)/],
    [
      'an OpenAI assistant message',
      { role: 'assistant', content: null, tool_calls: [] },
      /turn.push got a whole assistant message[^]*use kernel.runTurn\(message\)/,
    ],
    [
      'a Responses event',
      responsesEvent,
      /turn.push got an OpenAI Responses stream event[^]*turn.pushOpenAIResponses\(event\)/,
    ],
    [
      'a Responses error event',
      { type: 'error', code: 'server_error', message: 'x', param: null, sequence_number: 9 },
      /pushOpenAIResponses/,
    ],
    [
      'an AI SDK stream part',
      { type: 'tool-call', toolCallId: 'c', toolName: 'Read', input: {} },
      /toolkernel\/ai-sdk/,
    ],
  ])('%s', (_what, value, error) => {
    const turn = kernel().startTurn()
    expect(() => turn.push(value)).toThrow(TypeError)
    expect(() => turn.push(value)).toThrow(error)
    expect(() => turn.push(value)).toThrow(/it takes an Anthropic stream event \(RawMessageStreamEvent\)/)
    turn.discard()
  })

  it('an unknown event type that could be a new Anthropic event is still skipped', async () => {
    const turn = kernel().startTurn()
    turn.push({ type: 'some_future_event' })
    turn.push({ type: 'message_stop' })
    expect((await turn.result()).message.content).toEqual([])
  })
})

describe('turn.pushOpenAI and turn.pushOpenAIResponses take their own format only', () => {
  it('pushOpenAI names the method for Anthropic events, Responses events and whole completions', () => {
    const turn = kernel().startTurn()
    expect(() => turn.pushOpenAI({ type: 'message_start', message: {} })).toThrow(
      /turn.pushOpenAI got an Anthropic stream event, but it takes an OpenAI ChatCompletionChunk: use turn.push\(event\)/,
    )
    expect(() => turn.pushOpenAI(responsesEvent)).toThrow(/use turn.pushOpenAIResponses\(event\)/)
    const completion = { object: 'chat.completion', choices: [{ index: 0, message: {}, finish_reason: 'stop' }] }
    expect(() => turn.pushOpenAI(completion)).toThrow(/a whole OpenAI ChatCompletion[^]*kernel.runTurn\(completion\)/)
    turn.discard()
  })

  it('pushOpenAIResponses names the method for Anthropic events, chunks and whole responses', () => {
    const turn = kernel().startTurn()
    expect(() => turn.pushOpenAIResponses({ type: 'content_block_stop', index: 0 })).toThrow(/use turn.push\(event\)/)
    expect(() => turn.pushOpenAIResponses(chatChunk)).toThrow(/use turn.pushOpenAI\(chunk\)/)
    expect(() => turn.pushOpenAIResponses({ id: 'r', object: 'response', output: [] })).toThrow(
      /a whole OpenAI Responses response[^]*use kernel.runTurn\(response\)/,
    )
    expect(() => turn.pushOpenAIResponses({ type: 'text', text: 'x' })).toThrow(/an Anthropic content block/)
    turn.discard()
  })
})

describe('kernel.runTurn takes whole messages only', () => {
  it.each([
    ['the AI SDK assistant message', aiSdkMessage, /kernel.runTurn got a Vercel AI SDK value[^]*'toolkernel\/ai-sdk'/],
    ['an AI SDK result with toolCalls', { text: '', toolCalls: [], steps: [] }, /toolkernel\/ai-sdk/],
    ['a single tool_use block', toolUse, /kernel.runTurn got an Anthropic tool_use content block[^]*turn.addToolUse/],
    ['a stream event', { type: 'message_start', message: anthropicMessage }, /an Anthropic stream event[^]*turn.push/],
    ['a chunk', chatChunk, /an OpenAI Chat Completions chunk[^]*turn.pushOpenAI\(chunk\)/],
    ['a Responses event', responsesEvent, /turn.pushOpenAIResponses\(event\)/],
    ['a function_call item alone', responsesEvent.item, /function_call item[^]*kernel.runTurn\(response\)/],
    [
      'message.content instead of the message',
      [toolUse],
      /array holding Anthropic content blocks[^]*not message.content/,
    ],
  ])('%s', async (_what, value, error) => {
    await expect(kernel().runTurn(value as never)).rejects.toThrow(TypeError)
    await expect(kernel().runTurn(value as never)).rejects.toThrow(error)
  })

  it('the SDK Message itself is fine (type: "message" is what runTurn takes)', async () => {
    const { message } = await kernel().runTurn(anthropicMessage as never)
    expect(message.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'contents of /a' }])
  })
})

describe('turn.addToolUse takes a tool_use block only', () => {
  it.each([
    [
      'an OpenAI tool call',
      { id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{}' } },
      /an OpenAI tool call/,
    ],
    ['a Responses function_call (its id is not call_id)', responsesEvent.item, /function_call item/],
    [
      'a server_tool_use block',
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      /server_tool_use/,
    ],
    ['a stream event', { type: 'content_block_start', index: 0, content_block: toolUse }, /use turn.push\(event\)/],
  ])('%s', (_what, value, error) => {
    const turn = kernel().startTurn()
    expect(() => turn.addToolUse(value as never)).toThrow(error)
    turn.discard()
  })
})
