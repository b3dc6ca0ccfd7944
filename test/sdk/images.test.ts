/**
 * An image result (Read of a PNG) in each provider's format, accepted by the loopback server on the
 * next request: Anthropic `image` blocks with one of the four media types, an OpenAI Chat tool
 * message as text (the API refuses images there), a Responses `function_call_output`, an AI SDK
 * `content` output with `image-data`.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type Anthropic from '@anthropic-ai/sdk'
import { generateText, type ModelMessage } from 'ai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { toOpenAIToolMessages, toResponsesInputItems } from '../../src/index.js'
import { aiSdkTools, runToolCalls } from '../../src/ai-sdk/index.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { loopbackModel } from './loopback-model.js'
import { makeProject, projectKernel, type Project } from './scenario.js'
import { anthropicClient, openaiClient } from '../model-api/clients.js'

// A 1×1 transparent PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
)

let project: Project
let api: ModelApi
let png: string
beforeEach(async () => {
  project = makeProject()
  png = join(project.dir, 'pixel.png')
  writeFileSync(png, PNG)
  api = await startModelApi({ turns: [{ calls: [{ name: 'Read', input: { file_path: png } }] }, { text: 'ok' }] })
})
afterEach(async () => {
  await api.close()
  project.cleanup()
})

describe('an image result, each provider', () => {
  it('Anthropic: an image block the API takes', async () => {
    const kernel = projectKernel(project)
    const client = anthropicClient(api, { maxRetries: 0 })
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'look' }]
    const response = await client.messages.create({
      model: 'claude',
      max_tokens: 100,
      tools: kernel.apiTools(),
      messages,
    })
    const { message } = await kernel.runTurn(response)
    messages.push({ role: 'assistant', content: response.content }, message)
    await client.messages.create({ model: 'claude', max_tokens: 100, messages })
    expect(api.rejected()).toEqual([])
    expect(JSON.stringify(message)).toContain('"media_type":"image/png"')
  })

  it('OpenAI Chat: the tool message carries text, which the API takes', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api, { maxRetries: 0 })
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'look' }]
    const completion = await client.chat.completions.create({
      model: 'gpt',
      messages,
      tools: kernel.apiTools({ format: 'openai-chat' }),
    })
    const choice = completion.choices[0]
    if (choice === undefined) throw new Error('no choice')
    messages.push(choice.message, ...toOpenAIToolMessages((await kernel.runTurn(completion)).message))
    await client.chat.completions.create({ model: 'gpt', messages })
    expect(api.rejected()).toEqual([])
  })

  it('OpenAI Responses: a function_call_output the API takes', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api, { maxRetries: 0 })
    const response = await client.responses.create({
      model: 'gpt',
      input: 'look',
      tools: kernel.apiTools({ format: 'openai-responses' }),
    })
    const input = toResponsesInputItems((await kernel.runTurn(response)).message)
    await client.responses.create({ model: 'gpt', previous_response_id: response.id, input })
    expect(api.rejected()).toEqual([])
    expect(JSON.stringify(input)).toContain('image/png')
  })

  it('AI SDK: a content output with an image-data part', async () => {
    const kernel = projectKernel(project)
    const model = loopbackModel(api.openaiURL)
    const messages: ModelMessage[] = [{ role: 'user', content: 'look' }]
    const step = await generateText({ model, tools: aiSdkTools(kernel), messages })
    const { messages: toolMessages } = await runToolCalls(kernel, step)
    expect(toolMessages[0]?.content[0]).toMatchObject({
      type: 'tool-result',
      toolName: 'Read',
      output: {
        type: 'content',
        value: [{ type: 'image-data', mediaType: 'image/png', data: PNG.toString('base64') }],
      },
    })
    messages.push(...step.response.messages, ...toolMessages)
    await generateText({ model, tools: aiSdkTools(kernel), messages })
    expect(api.rejected()).toEqual([])
  })
})
