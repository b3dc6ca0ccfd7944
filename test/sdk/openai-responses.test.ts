/**
 * The official OpenAI SDK (Responses API) against the loopback server: the agent loop as the
 * README shows it (batch and streaming, `previous_response_id` carrying the conversation),
 * with the built-in tools on a real temp directory. No glue: the Response (or each stream event)
 * goes straight into the kernel, `toResponsesInputItems(message)` straight back as `input`.
 */
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { toResponsesInputItems } from '../../src/index.js'
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

const toolTexts = (i: number) => JSON.stringify((api.requests[i]?.body.input as unknown[]).slice(-3))

describe('OpenAI SDK, Responses API, three-turn loop', () => {
  it('batch: responses.create → kernel.runTurn(response) → toResponsesInputItems', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api)
    let input: ResponseInputItem[] = [{ role: 'user', content: 'Make greet say hello.' }]
    let previous: string | undefined
    for (let step = 0; step < 5; step++) {
      const response = await client.responses.create({
        model: 'gpt-4.1',
        input,
        tools: kernel.apiTools({ format: 'openai-responses' }),
        ...(previous === undefined ? {} : { previous_response_id: previous }),
      })
      const { message } = await kernel.runTurn(response)
      if (message.content.length === 0) break
      input = toResponsesInputItems(message)
      previous = response.id
    }
    expectLoopDone(project, api, toolTexts)
    expect(api.requests[2]?.body.previous_response_id).toEqual(expect.stringMatching(/^resp_/))
  })

  it('streaming: responses.stream → turn.pushOpenAIResponses(event) → turn.result()', async () => {
    const kernel = projectKernel(project)
    const client = openaiClient(api)
    let input: ResponseInputItem[] = [{ role: 'user', content: 'Make greet say hello.' }]
    let previous: string | undefined
    for (let step = 0; step < 5; step++) {
      const turn = kernel.startTurn()
      const stream = client.responses.stream({
        model: 'gpt-4.1',
        input,
        tools: kernel.apiTools({ format: 'openai-responses' }),
        ...(previous === undefined ? {} : { previous_response_id: previous }),
      })
      for await (const event of stream) turn.pushOpenAIResponses(event)
      const response = await stream.finalResponse()
      const { message } = await turn.result()
      if (message.content.length === 0) break
      input = toResponsesInputItems(message)
      previous = response.id
    }
    expectLoopDone(project, api, toolTexts)
  })
})
