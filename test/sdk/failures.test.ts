/**
 * What goes wrong in a real conversation, through the official SDKs and the loopback server: a
 * turn cut off by the token limit runs nothing (and still answers each call, so the next request
 * is accepted), a stream that fails mid-way (an `error` event, a dropped connection) is closed with
 * `turn.fail(error)` in the catch the README shows, and recorded streams replay through the SDKs.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { toOpenAIToolMessages } from '../../src/index.js'
import { anthropicStream } from '../model-api/anthropic.js'
import { Ids, type ScriptedTurn } from '../model-api/script.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { makeProject, projectKernel, type Project } from './scenario.js'
import { anthropicClient, openaiClient } from '../model-api/clients.js'

let project: Project
let api: ModelApi
beforeEach(async () => {
  project = makeProject()
  api = await startModelApi({ vars: { ROOT: project.dir } })
})
afterEach(async () => {
  await api.close()
  project.cleanup()
})

const MODEL = { model: 'claude-sonnet-4-5', max_tokens: 1024 } as const
const anthropic = () => anthropicClient(api, { maxRetries: 0 })
const openai = () => openaiClient(api, { maxRetries: 0 })
const cutOffWrite = (): ScriptedTurn => ({
  calls: [{ name: 'Write', input: { file_path: project.notes, content: 'half' } }],
  stop: 'max_tokens',
})

describe('a turn cut off by the token limit runs nothing', () => {
  it('Anthropic, streamed (recorded max_tokens stream): the call is voided and the next request accepted', async () => {
    api.script({ fixture: 'anthropic-max-tokens-truncated.sse' }, { text: 'ok' })
    const kernel = projectKernel(project)
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Write the cache.' }]
    const turn = kernel.startTurn()
    const stream = anthropic().messages.stream({ ...MODEL, tools: kernel.apiTools(), messages })
    for await (const event of stream) turn.push(event)
    const response = await stream.finalMessage()
    const { message, events } = await turn.result()
    expect(response.stop_reason).toBe('max_tokens')
    expect(events.some((e) => e.type === 'tool.started')).toBe(false)
    expect(message.content).toEqual([expect.objectContaining({ is_error: true })])
    messages.push({ role: 'assistant', content: response.content }, message)
    await anthropic().messages.create({ ...MODEL, messages })
    expect(api.rejected()).toEqual([])
  })

  it('OpenAI Chat, batch and streamed: finish_reason length voids the Write', async () => {
    api.script(cutOffWrite(), cutOffWrite())
    const kernel = projectKernel(project)
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Write notes.' }]
    const tools = kernel.apiTools({ format: 'openai-chat' })
    const completion = await openai().chat.completions.create({ model: 'gpt-4.1', messages, tools })
    expect(completion.choices[0]?.finish_reason).toBe('length')
    const batch = await kernel.runTurn(completion)
    const turn = kernel.startTurn()
    for await (const chunk of await openai().chat.completions.create({
      model: 'gpt-4.1',
      messages,
      tools,
      stream: true,
    }))
      turn.pushOpenAI(chunk)
    const streamed = await turn.result()
    for (const { message } of [batch, streamed]) {
      expect(toOpenAIToolMessages(message)).toEqual([
        expect.objectContaining({ role: 'tool', content: expect.stringMatching(/max_tokens|length|cut off/) }),
      ])
    }
    expect(existsSync(project.notes)).toBe(false)
  })

  it('OpenAI Responses: an incomplete response voids the Write', async () => {
    api.script(cutOffWrite())
    const kernel = projectKernel(project)
    const response = await openai().responses.create({
      model: 'gpt-4.1',
      input: 'Write notes.',
      tools: kernel.apiTools({ format: 'openai-responses' }),
    })
    expect(response.status).toBe('incomplete')
    const { message, events } = await kernel.runTurn(response)
    expect(events.some((e) => e.type === 'tool.started')).toBe(false)
    expect(message.content).toHaveLength(1)
    expect(existsSync(project.notes)).toBe(false)
  })
})

describe('a stream that fails mid-way: turn.fail(error) in the catch', () => {
  it('an error event (recorded overloaded_error): the SDK throws; every call pushed is answered', async () => {
    api.script({ fixture: 'anthropic-overloaded-midstream.sse' })
    const kernel = projectKernel(project)
    const turn = kernel.startTurn()
    let thrown: unknown
    try {
      const stream = anthropic().messages.stream({ ...MODEL, messages: [{ role: 'user', content: 'go' }] })
      for await (const event of stream) turn.push(event)
    } catch (error) {
      thrown = error
      turn.fail(error)
    }
    expect(thrown).toBeInstanceOf(Anthropic.APIError)
    const { message } = await turn.result()
    expect(message.content.map((b) => b.tool_use_id)).toEqual([
      'toolu_01G3hJ4kLmN5oPqR6sTu7VwX',
      'toolu_01K8lM9nOpQ1rStU2vWx3YzA',
    ])
    expect(message.content[1]).toMatchObject({ is_error: true })
  })

  it('a dropped connection: the SDK throws; the complete call keeps its result, the cut one is answered', async () => {
    const turnScript: ScriptedTurn = {
      calls: [
        { name: 'Glob', input: { pattern: '**/*.ts', path: project.dir } },
        { name: 'Write', input: { file_path: project.notes, content: 'never' } },
      ],
    }
    // Cut the connection inside the second block, after the first one stopped.
    const blocks = anthropicStream(turnScript, new Ids())
    const dropAfter = blocks.findIndex((b) => b.includes('"index":1') && b.includes('content_block_delta')) + 2
    api.script({ ...turnScript, dropAfter })
    const kernel = projectKernel(project)
    const turn = kernel.startTurn()
    let thrown: unknown
    try {
      const stream = anthropic().messages.stream({
        ...MODEL,
        tools: kernel.apiTools(),
        messages: [{ role: 'user', content: 'go' }],
      })
      for await (const event of stream) turn.push(event)
    } catch (error) {
      thrown = error
      turn.fail(error)
    }
    expect(thrown).toBeInstanceOf(Error)
    const { message } = await turn.result()
    expect(message.content).toHaveLength(2)
    expect(JSON.stringify(message.content[0])).toContain('app.ts')
    expect(message.content[1]).toMatchObject({ is_error: true })
    expect(existsSync(project.notes)).toBe(false)
  })
})

describe('recorded Responses streams that end badly', () => {
  it('an incomplete response: every call answered, the Write never started', async () => {
    api.script({ fixture: 'openai-responses-incomplete.sse' })
    const kernel = projectKernel(project)
    const turn = kernel.startTurn()
    for await (const event of openai().responses.stream({ model: 'gpt-4.1', input: 'go' }))
      turn.pushOpenAIResponses(event)
    const { message, events } = await turn.result()
    const requested = events.filter((e) => e.type === 'tool.requested')
    expect(message.content.map((b) => b.tool_use_id)).toEqual(requested.map((e) => e.toolUseId))
    const write = requested.find((e) => e.type === 'tool.requested' && e.name === 'Write')
    expect(write).toBeDefined()
    expect(events.some((e) => e.type === 'tool.started' && e.toolUseId === write?.toolUseId)).toBe(false)
  })

  it('an error event mid-stream: the SDK yields it, the turn ends on it and answers every call', async () => {
    api.script({ fixture: 'openai-responses-error-midstream.sse' })
    const kernel = projectKernel(project)
    const turn = kernel.startTurn()
    let thrown: unknown
    try {
      for await (const event of openai().responses.stream({ model: 'gpt-4.1', input: 'go' }))
        turn.pushOpenAIResponses(event)
    } catch (error) {
      thrown = error
      turn.fail(error)
    }
    // The openai SDK hands the Responses `error` event over as an event (ResponseErrorEvent).
    expect(thrown).toBeUndefined()
    const { message, events } = await turn.result()
    const requested = events.filter((e) => e.type === 'tool.requested').map((e) => e.toolUseId)
    expect(requested.length).toBeGreaterThan(0)
    expect(message.content.map((b) => b.tool_use_id)).toEqual(requested)
  })
})

describe('recorded streams replay through the SDKs', () => {
  it('Anthropic and OpenAI parallel calls: every call answered, next request accepted', async () => {
    api.script(
      { fixture: 'anthropic-parallel-reads.sse' },
      { text: 'ok' },
      { fixture: 'openai-parallel-tool-calls.sse' },
      { text: 'ok' },
    )
    const kernel = projectKernel(project)
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'go' }]
    const turn = kernel.startTurn()
    const stream = anthropic().messages.stream({ ...MODEL, tools: kernel.apiTools(), messages })
    for await (const event of stream) turn.push(event)
    const { message } = await turn.result()
    expect(message.content).toHaveLength(3)
    messages.push({ role: 'assistant', content: (await stream.finalMessage()).content }, message)
    await anthropic().messages.create({ ...MODEL, messages })

    const chat: ChatCompletionMessageParam[] = [{ role: 'user', content: 'go' }]
    const chatTurn = kernel.startTurn()
    const chatStream = openai().chat.completions.stream({ model: 'gpt-4.1', messages: chat })
    for await (const chunk of chatStream) chatTurn.pushOpenAI(chunk)
    const choice = (await chatStream.finalChatCompletion()).choices[0]
    if (choice === undefined) throw new Error('no choice')
    chat.push(choice.message, ...toOpenAIToolMessages((await chatTurn.result()).message))
    await openai().chat.completions.create({ model: 'gpt-4.1', messages: chat })
    expect(api.rejected()).toEqual([])
  })

  it('OpenAI Responses function calls (recorded, ROOT = the project): Read and Grep see real files', async () => {
    writeFileSync(join(project.dir, 'src', 'café.ts'), 'export const config = loadConfig()\n')
    api.script({ fixture: 'openai-responses-function-calls.sse' })
    const kernel = projectKernel(project)
    const turn = kernel.startTurn()
    const stream = openai().responses.stream({ model: 'gpt-4.1', input: 'go' })
    for await (const event of stream) turn.pushOpenAIResponses(event)
    const { message } = await turn.result()
    expect(message.content.map((b) => b.is_error)).toEqual([undefined, undefined])
    expect(JSON.stringify(message.content[0])).toContain('loadConfig()')
    expect(JSON.stringify(message.content[1])).toContain('café.ts')
  })
})
