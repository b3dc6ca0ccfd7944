/**
 * The official Anthropic SDK against the loopback Messages API: the agent loop as the README shows
 * it, batch (`messages.create`) and streaming (`messages.stream`), with the built-in tools on a
 * real temp directory. No glue: the SDK's objects go straight into the kernel, its message straight
 * back into `messages`.
 */
import type Anthropic from '@anthropic-ai/sdk'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { expectLoopDone, makeProject, projectKernel, threeTurns, type Project } from './scenario.js'
import { anthropicClient } from '../model-api/clients.js'

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

const toolTexts = (i: number) => JSON.stringify((api.requests[i]?.body.messages as unknown[]).at(-1))

describe('Anthropic SDK, three-turn loop', () => {
  it('batch: messages.create → kernel.runTurn(response) → messages.push(message)', async () => {
    const kernel = projectKernel(project)
    const client = anthropicClient(api)
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Make greet say hello.' }]
    for (let step = 0; step < 5; step++) {
      const response = await client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        tools: kernel.apiTools(),
        messages,
      })
      messages.push({ role: 'assistant', content: response.content })
      if (response.stop_reason !== 'tool_use') break
      const { message } = await kernel.runTurn(response)
      messages.push(message)
    }
    expectLoopDone(project, api, toolTexts)
    expect(messages).toHaveLength(6)
  })

  it('streaming: messages.stream → turn.push(event) → turn.result()', async () => {
    const kernel = projectKernel(project)
    const client = anthropicClient(api)
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Make greet say hello.' }]
    for (let step = 0; step < 5; step++) {
      const turn = kernel.startTurn()
      const stream = client.messages.stream({
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        tools: kernel.apiTools(),
        messages,
      })
      for await (const event of stream) turn.push(event)
      const response = await stream.finalMessage()
      messages.push({ role: 'assistant', content: response.content })
      const { message } = await turn.result()
      if (response.stop_reason !== 'tool_use') break
      messages.push(message)
    }
    expectLoopDone(project, api, toolTexts)
  })
})
