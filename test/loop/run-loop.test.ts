/**
 * toolkernel/loop against the loopback model API with the official SDKs: the same three-turn
 * scenario as test/sdk, each provider batch and streaming, in the few lines an app writes. The
 * server refuses a malformed conversation as the real API would, so an unanswered call or an
 * answer to no call fails the next request.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { anthropic, openaiChat, openaiResponses, runLoop } from '../../src/loop/index.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { expectLoopDone, makeProject, projectKernel, threeTurns, type Project } from '../sdk/scenario.js'
import { anthropicClient, openaiClient } from '../model-api/clients.js'

let project: Project
let api: ModelApi
beforeEach(async () => {
  project = makeProject()
  api = await startModelApi({ turns: threeTurns(project) })
})
afterEach(async () => {
  await api.close()
  project.cleanup()
})

const lastOf = (key: string, n: number) => (i: number) =>
  JSON.stringify((api.requests[i]?.body[key] as unknown[]).slice(-n))

describe.each([false, true])('runLoop, stream: %s', (stream) => {
  it('Anthropic Messages: three turns, the conversation in MessageParam', async () => {
    const kernel = projectKernel(project)
    const client = anthropicClient(api)
    const model = anthropic(client, { model: 'claude-sonnet-4-5', max_tokens: 1024 })
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Make greet say hello.' }]
    const result = await runLoop({ model, kernel, messages, stream })
    const next: Anthropic.MessageParam[] = result.messages
    expectLoopDone(project, api, lastOf('messages', 1))
    expect(result.stopped).toBe('done')
    expect(next).toHaveLength(6)
    expect(result.steps.map((step) => step.turn?.message.content.length)).toEqual([3, 3, undefined])
    expect(messages).toHaveLength(1) // the given array is left as it was
    expect(api.requests.every((r) => r.body.stream === (stream ? true : undefined))).toBe(true)
  })

  it('OpenAI Chat Completions: three turns, the conversation in ChatCompletionMessageParam', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api)
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Make greet say hello.' }]
    const result = await runLoop({ model: openaiChat(client, { model: 'gpt-4.1' }), kernel, messages, stream })
    const next: OpenAI.Chat.ChatCompletionMessageParam[] = result.messages
    expectLoopDone(project, api, lastOf('messages', 3))
    expect(result.stopped).toBe('done')
    expect(next).toHaveLength(1 + 1 + 3 + 1 + 3 + 1)
  })

  it('OpenAI Responses: three turns, the conversation in ResponseInputItem, sent whole', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api)
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Make greet say hello.' }]
    const result = await runLoop({
      model: openaiResponses(client, { model: 'gpt-4.1' }),
      kernel,
      messages: input,
      stream,
    })
    const next: OpenAI.Responses.ResponseInputItem[] = result.messages
    expectLoopDone(project, api, lastOf('input', 3))
    expect(result.stopped).toBe('done')
    expect(next.filter((item) => 'type' in item && item.type === 'function_call_output')).toHaveLength(6)
    expect(api.requests.every((r) => r.body.previous_response_id === undefined)).toBe(true)
  })
})

describe('runLoop stops', () => {
  it('at maxSteps, the conversation ending with the last step results (ready to continue)', async () => {
    const kernel = projectKernel(project)
    const client = anthropicClient(api)
    const model = anthropic(client, { model: 'claude-sonnet-4-5', max_tokens: 1024 })
    const result = await runLoop({ model, kernel, messages: [{ role: 'user', content: 'go' }], maxSteps: 1 })
    expect(result.stopped).toBe('maxSteps')
    expect(result.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result' }, {}, {}] })
    expect(api.remaining()).toBe(2)
  })

  it('when stopWhen says so, after onStep saw the step', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api)
    const seen: number[] = []
    const result = await runLoop({
      model: openaiChat(client, { model: 'gpt-4.1' }),
      kernel,
      messages: [{ role: 'user', content: 'go' }],
      onStep: (step) => void seen.push(step.index),
      stopWhen: (step) => step.turn?.events.some((e) => e.type === 'tool.completed') === true,
    })
    expect(result.stopped).toBe('stopWhen')
    expect(seen).toEqual([0])
    expect(result.steps[0]?.response.choices[0]?.finish_reason).toBe('tool_calls')
  })

  it('when the signal aborts: no further request, the steps so far kept', async () => {
    const kernel = projectKernel(project)
    const client = anthropicClient(api)
    const controller = new AbortController()
    const result = await runLoop({
      model: anthropic(client, { model: 'claude-sonnet-4-5', max_tokens: 1024 }),
      kernel,
      messages: [{ role: 'user', content: 'go' }],
      signal: controller.signal,
      onStep: () => controller.abort(),
    })
    expect(result.stopped).toBe('aborted')
    expect(result.messages).toHaveLength(3)
    expect(api.requests).toHaveLength(1)
  })
  // A call that waits for approval, for real (a rule asks, the call parks): test/loop/approvals.test.ts.
})

describe('runLoop refuses what it cannot use', () => {
  const kernel = () => projectKernel(project)
  const client = () => anthropicClient(api)

  it('an unknown option, naming the ones it takes', async () => {
    const model = anthropic(client(), { model: 'm', max_tokens: 1 })
    await expect(
      runLoop({ model, kernel: kernel(), messages: [], maxTurns: 3 } as unknown as Parameters<typeof runLoop>[0]),
    ).rejects.toThrow(/runLoop: unknown option "maxTurns" \(it takes: model, kernel, messages, stream/)
  })

  it('the conversation or streaming in the request parameters', () => {
    const params = { model: 'm', max_tokens: 1, messages: [] } as unknown as Anthropic.MessageCreateParams
    expect(() => anthropic(client(), params)).toThrow(/anthropic\(\): messages is the loop's/)
  })

  it('streaming through a bare create function', async () => {
    const sdk = client()
    const model = anthropic((body: Anthropic.MessageCreateParamsNonStreaming) => sdk.messages.create(body), {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
    })
    await expect(runLoop({ model, kernel: kernel(), messages: [], stream: true })).rejects.toThrow(
      /streaming needs the SDK client/,
    )
  })

  it('a bad maxSteps', async () => {
    const model = anthropic(client(), { model: 'm', max_tokens: 1 })
    await expect(runLoop({ model, kernel: kernel(), messages: [], maxSteps: 0 })).rejects.toThrow(
      'runLoop: maxSteps must be a positive integer, got 0',
    )
  })
})
