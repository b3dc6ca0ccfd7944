/**
 * The OpenAI Responses API through the kernel: `function_call` items in (whole, or streamed as
 * `response.*` events), `function_call_output` items out, paired by call_id; a response that did
 * not complete runs nothing that had not started.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, parseSSE } from '../../src/index.js'
import { toResponsesInputItems } from '../../src/projections/openai-responses.projection.js'
import { testKernel } from '../helpers.js'
import { recordingTools } from './tools.js'

const fixture = (name: string) =>
  parseSSE(readFileSync(new URL(`../fixtures/streams/${name}`, import.meta.url), 'utf8'))
const fn = (callId: string, name: string, args: unknown, status: 'completed' | 'incomplete' = 'completed') => ({
  id: `fc_${callId}`,
  type: 'function_call' as const,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
  status,
})
const response = (status: string, output: object[], extra: object = {}) => ({
  id: 'resp_1',
  object: 'response' as const,
  status,
  error: null,
  incomplete_details: null,
  output,
  ...extra,
})

describe('runTurn: a Response, or its output array', () => {
  it('runs the function calls and answers each with a function_call_output by call_id', async () => {
    const { ran, tools } = recordingTools()
    const kernel = testKernel(tools)
    const output = [
      { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [] },
      fn('call_r', 'Read', { file_path: '/a' }),
      fn('call_w', 'Write', { file_path: '/b', content: 'x' }),
    ]
    const { message } = await kernel.runTurn(response('completed', output))
    expect(ran).toEqual(['Read /a', 'Write /b'])
    expect(toResponsesInputItems(message)).toEqual([
      { type: 'function_call_output', call_id: 'call_r', output: 'contents of /a' },
      { type: 'function_call_output', call_id: 'call_w', output: 'wrote /b' },
    ])
    const again = await kernel.runTurn(
      output.map((item) => ('call_id' in item ? { ...item, call_id: `${item.call_id}2` } : item)),
    )
    expect(toResponsesInputItems(again.message).map((item) => item.call_id)).toEqual(['call_r2', 'call_w2'])
  })

  it('an incomplete response runs nothing: each call is voided naming the reason', async () => {
    const { ran, tools } = recordingTools()
    const cut = response('incomplete', [fn('call_r', 'Read', { file_path: '/a' })], {
      incomplete_details: { reason: 'max_output_tokens' },
    })
    const { message } = await testKernel(tools).runTurn(cut)
    expect(ran).toEqual([])
    expect(message.content[0]?.content).toMatch(/stop reason "max_tokens" instead of tool use/)
  })

  it('a failed response voids its calls with the response error', async () => {
    const { ran, tools } = recordingTools()
    const failed = response('failed', [fn('call_r', 'Read', { file_path: '/a' })], {
      error: { code: 'server_error', message: 'The server had an error' },
    })
    const { message } = await testKernel(tools).runTurn(failed)
    expect(ran).toEqual([])
    expect(message.content[0]?.content).toMatch(/the response failed: server_error \(The server had an error\)/)
  })

  it('bad JSON arguments are the model’s mistake: answered as an error result, the turn goes on', async () => {
    const { ran, tools } = recordingTools()
    const bad = { ...fn('call_x', 'Read', {}), arguments: '{"file_path": nope}' }
    const { message } = await testKernel(tools).runTurn(
      response('completed', [bad, fn('call_g', 'Glob', { pattern: '*' })]),
    )
    expect(ran).toEqual(['Glob *'])
    expect(message.content[0]).toMatchObject({ tool_use_id: 'call_x', is_error: true })
    expect(message.content[0]?.content).toMatch(/not valid JSON/)
  })

  it('images in a result become input_image parts with a data URL', async () => {
    const Shot = buildTool({
      name: 'Shot',
      description: () => 'Takes a screenshot.',
      inputSchema: z.object({}),
      async call() {
        return 'png'
      },
      mapToolResultToToolResultBlockParam: (_output, toolUseId) => ({
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: [
          { type: 'text', text: 'The screen:' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      }),
    })
    const { message } = await testKernel([Shot]).runTurn(response('completed', [fn('call_s', 'Shot', {})]))
    expect(toResponsesInputItems(message)).toEqual([
      {
        type: 'function_call_output',
        call_id: 'call_s',
        output: [
          { type: 'input_text', text: 'The screen:' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
        ],
      },
    ])
  })
})

describe('pushOpenAIResponses: recorded streams', () => {
  it('text and two calls: both run, the results pair by call_id, the turn ends in tool use', async () => {
    const { ran, tools } = recordingTools()
    const turn = testKernel(tools).startTurn()
    for (const event of fixture('openai-responses-parallel-calls.sse')) turn.pushOpenAIResponses(event)
    const { message, events } = await turn.result()
    expect(ran).toEqual(['Read /project/Résumé.md', 'Grep TODO'])
    expect(toResponsesInputItems(message).map((item) => item.call_id)).toEqual([
      'call_Rq7mZ2xK9pL4nB8vT1wY6cD3',
      'call_Gh3tY8uI2oP5aS9dF4gH7jK1',
    ])
    expect(events.find((e) => e.type === 'turn.ended')).toMatchObject({ stopReason: 'tool_use' })
  })

  it('response.incomplete: the safe Glob started early keeps its result; the cut-off Write never runs', async () => {
    const { ran, tools } = recordingTools()
    const turn = testKernel(tools).startTurn()
    for (const event of fixture('openai-responses-incomplete.sse')) turn.pushOpenAIResponses(event)
    const { message } = await turn.result()
    expect(ran).toEqual(['Glob src/**/*.ts'])
    expect(message.content[0]).toMatchObject({
      tool_use_id: 'call_Gb5nM1qW8eR3tY6uI9oP2aS4',
      content: 'matches of src/**/*.ts',
    })
    expect(message.content[1]).toMatchObject({ tool_use_id: 'call_Wz2xC6vB9nM3qW7eR1tY5uI8', is_error: true })
  })

  it('an error event mid-stream: the turn ends (no hang), the cut-off Read is answered as cut off', async () => {
    const { ran, tools } = recordingTools()
    const turn = testKernel(tools).startTurn()
    for (const event of fixture('openai-responses-error-midstream.sse')) turn.pushOpenAIResponses(event)
    const { message } = await turn.result()
    expect(ran).toEqual(['Glob **/*.md'])
    expect(message.content).toHaveLength(2)
    expect(message.content[1]?.content).toMatch(
      /cut off before the JSON was complete — the stream failed: server_error/,
    )
  })
})
