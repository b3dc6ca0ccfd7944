/**
 * The loopback model API refuses what the real APIs refuse, with their status, error shape and
 * wording — so a conversation the kernel got wrong fails the client's next request. Requests go
 * through the official SDKs (which surface the 400 as BadRequestError with the body) or raw fetch
 * where the SDK's types would not let the mistake be written.
 */
import Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startModelApi, type ModelApi } from './server.js'
import { anthropicClient, openaiClient } from './clients.js'

let api: ModelApi
beforeEach(async () => {
  api = await startModelApi({ turns: [{ text: 'hi' }, { text: 'hi' }] })
})
afterEach(() => api.close())

const post = async (path: string, body: unknown, headers: Record<string, string>) => {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as unknown }
}
const anthropicHeaders = { 'x-api-key': 'test', 'anthropic-version': '2023-06-01' }
const openaiHeaders = { authorization: 'Bearer test' }

const use = { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/x' } } as const
const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'ok' })
const anthropicError = (message: RegExp | string) => ({
  type: 'error',
  error: { type: 'invalid_request_error', message: expect.stringMatching(message) },
})

describe('Anthropic Messages API', () => {
  const anthropic = () => anthropicClient(api, { maxRetries: 0 })
  const ask = (messages: Anthropic.MessageParam[]) =>
    anthropic().messages.create({ model: 'claude', max_tokens: 10, messages })

  it('refuses a request without max_tokens', async () => {
    const res = await post('/v1/messages', { model: 'claude', messages: [] }, anthropicHeaders)
    expect(res).toEqual({ status: 400, body: anthropicError('max_tokens: Field required') })
  })

  it('refuses a tool_use without a tool_result in the next message', async () => {
    const error = await ask([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [use] },
      { role: 'user', content: 'and?' },
    ]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual(
      anthropicError(
        /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01\./,
      ),
    )
  })

  it('refuses a tool_result whose id matches no tool_use, and a second result for one call', async () => {
    await expect(
      ask([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use] },
        { role: 'user', content: [result('toolu_01'), result('toolu_02')] },
      ]),
    ).rejects.toThrow(/messages\.2\.content\.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_02/)
    await expect(
      ask([
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use] },
        { role: 'user', content: [result('toolu_01'), result('toolu_01')] },
      ]),
    ).rejects.toThrow(/Found multiple `tool_result` blocks with id: toolu_01/)
  })

  it('refuses an image whose media_type the API does not take', async () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'AA==' } }
    const body = {
      model: 'claude',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [image] }] },
      ],
    }
    const res = await post('/v1/messages', body, anthropicHeaders)
    expect(res.body).toEqual(anthropicError(/tool_result\.content\.0\.image\.source\.base64\.media_type/))
  })

  it('accepts a well-formed conversation and answers in the Message shape', async () => {
    const message = await ask([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [use] },
      { role: 'user', content: [result('toolu_01'), { type: 'text', text: 'more' }] },
    ])
    expect(message).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'hi' }] })
  })
})

describe('OpenAI Chat Completions', () => {
  const openai = () => openaiClient(api, { maxRetries: 0 })
  const calls = [{ id: 'call_1', type: 'function' as const, function: { name: 'Read', arguments: '{}' } }]

  it('refuses a tool message without tool_call_id', async () => {
    const body = {
      model: 'gpt',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: calls },
        { role: 'tool', content: 'ok' },
      ],
    }
    const res = await post('/v1/chat/completions', body, openaiHeaders)
    expect(res).toEqual({
      status: 400,
      body: {
        error: {
          message: "Missing required parameter: 'messages[2].tool_call_id'.",
          type: 'invalid_request_error',
          param: 'messages[2].tool_call_id',
          code: 'missing_required_parameter',
        },
      },
    })
  })

  it('refuses tool_calls left unanswered, and a tool message answering no call', async () => {
    const chat = (messages: OpenAI.Chat.ChatCompletionMessageParam[]) =>
      openai().chat.completions.create({ model: 'gpt', messages })
    await expect(
      chat([
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: calls },
      ]),
    ).rejects.toThrow(/The following tool_call_ids did not have response messages: call_1/)
    await expect(
      chat([
        { role: 'user', content: 'go' },
        { role: 'assistant', tool_calls: calls },
        { role: 'tool', tool_call_id: 'call_1', content: 'x' },
        { role: 'tool', tool_call_id: 'call_9', content: 'x' },
      ]),
    ).rejects.toThrow(/'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message/)
    await expect(
      chat([
        { role: 'user', content: 'go' },
        { role: 'tool', tool_call_id: 'call_1', content: 'x' },
      ]),
    ).rejects.toThrow(/messages with role 'tool' must be a response to a preceeding message with 'tool_calls'/)
  })

  it('refuses a strict function whose schema leaves the strict subset', async () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'Read', strict: true, parameters: { type: 'object', properties: { a: { type: 'string' } } } },
      },
    ]
    await expect(
      openai().chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'go' }], tools }),
    ).rejects.toThrow(
      /Invalid schema for function 'Read': In context=\(\), 'additionalProperties' is required to be supplied and to be false/,
    )
  })
})

describe('OpenAI Responses API', () => {
  const openai = () => openaiClient(api, { maxRetries: 0 })

  it('refuses a function_call_output with an unknown call_id', async () => {
    await expect(
      openai().responses.create({
        model: 'gpt',
        input: [{ type: 'function_call_output', call_id: 'call_x', output: 'ok' }],
      }),
    ).rejects.toThrow(/No tool call found for function call output with call_id call_x\./)
  })

  it('refuses a function_call of the previous response left without output', async () => {
    api.script({ calls: [{ name: 'Read', input: {} }] })
    await openai().responses.create({ model: 'gpt', input: 'go' }) // the two scripted 'hi' turns
    await openai().responses.create({ model: 'gpt', input: 'go' })
    const first = await openai().responses.create({ model: 'gpt', input: 'go' })
    const call = first.output.find((item) => item.type === 'function_call')
    expect(call).toBeDefined()
    await expect(
      openai().responses.create({
        model: 'gpt',
        previous_response_id: first.id,
        input: [{ role: 'user', content: 'and?' }],
      }),
    ).rejects.toThrow(/No tool output found for function call call_/)
  })
})

describe('replay', () => {
  it('says so when the script is exhausted, and records each rejection', async () => {
    await post('/v1/messages', { model: 'claude', max_tokens: 1, messages: [] }, anthropicHeaders)
    await post('/v1/messages', { model: 'claude', max_tokens: 1, messages: [] }, anthropicHeaders)
    const res = await post('/v1/messages', { model: 'claude', max_tokens: 1, messages: [] }, anthropicHeaders)
    expect(JSON.stringify(res.body)).toMatch(/no scripted turn left/)
    expect(api.rejected()).toHaveLength(1)
  })
})
