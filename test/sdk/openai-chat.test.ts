/**
 * The official OpenAI SDK (Chat Completions) against the loopback server: the agent loop as the
 * README shows it, batch and streaming (with `stream_options.include_usage`, whose usage-only
 * chunk ends the stream), with the built-in tools on a real temp directory. No glue: the
 * completion goes straight into the kernel, `toOpenAIToolMessages(message)` straight back.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { toOpenAIToolMessages } from '../../src/index.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { expectLoopDone, makeProject, projectKernel, threeTurns, type Project } from './scenario.js'
import { openaiClient } from '../model-api/clients.js'

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

const toolTexts = (i: number) => JSON.stringify((api.requests[i]?.body.messages as unknown[]).slice(-3))

describe('OpenAI SDK, Chat Completions, three-turn loop', () => {
  it('batch: chat.completions.create → kernel.runTurn(completion) → toOpenAIToolMessages', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api)
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Make greet say hello.' }]
    for (let step = 0; step < 5; step++) {
      const completion = await client.chat.completions.create({
        model: 'gpt-4.1',
        messages,
        tools: kernel.apiTools({ format: 'openai-chat' }),
      })
      const [choice] = completion.choices
      if (choice === undefined) throw new Error('no choice')
      messages.push(choice.message)
      if (choice.finish_reason !== 'tool_calls') break
      const { message } = await kernel.runTurn(completion)
      messages.push(...toOpenAIToolMessages(message))
    }
    expectLoopDone(project, api, toolTexts)
    expect(messages).toHaveLength(1 + 1 + 3 + 1 + 3 + 1)
  })

  it('streaming: chat.completions.stream → turn.pushOpenAI(chunk) → turn.result()', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api)
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Make greet say hello.' }]
    for (let step = 0; step < 5; step++) {
      const turn = kernel.startTurn()
      const stream = client.chat.completions.stream({
        model: 'gpt-4.1',
        messages,
        tools: kernel.apiTools({ format: 'openai-chat' }),
        stream_options: { include_usage: true },
      })
      for await (const chunk of stream) turn.pushOpenAI(chunk)
      const completion = await stream.finalChatCompletion()
      const [choice] = completion.choices
      if (choice === undefined) throw new Error('no choice')
      messages.push(choice.message)
      const { message } = await turn.result()
      if (choice.finish_reason !== 'tool_calls') break
      messages.push(...toOpenAIToolMessages(message))
    }
    expectLoopDone(project, api, toolTexts)
    expect(api.requests[0]?.body.stream_options).toEqual({ include_usage: true })
  })
})
