/**
 * OpenAI Responses client tool search: a `tool_search_call` item (execution: client) is a
 * ToolSearch call, in a whole Response and in its stream, and the Responses projection answers
 * it with a `tool_search_output` item carrying the function tools ToolSearch found.
 */
import type OpenAI from 'openai'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { OpenAIResponsesStreamIntake, outputCalls, responseCalls } from '../../src/intake/openai-responses.js'
import {
  toResponsesInputItems,
  type ResponsesFunctionToolParam,
  type ResponsesToolOutputItem,
  type ResponsesToolSearchOutput,
} from '../../src/projections/openai-responses.projection.js'
import { Echo, testKernel } from '../helpers.js'
import { syntheticTools } from '../tools/pool/synthetic.js'
import { recordingSink } from './sink.js'

const searchCall = (callId: string, args: unknown, execution: 'client' | 'server' = 'client') =>
  ({
    id: `tsc_${callId}`,
    type: 'tool_search_call',
    call_id: callId,
    execution,
    arguments: args,
    status: 'completed',
  }) satisfies OpenAI.Responses.ResponseToolSearchCall

const response = (...output: OpenAI.Responses.ResponseOutputItem[]) => ({
  object: 'response' as const,
  status: 'completed',
  output,
})

describe('tool_search_call in a Response', () => {
  it('a client tool_search_call is a ToolSearch call with its arguments as input', () => {
    const { uses, stopReason } = responseCalls(response(searchCall('call_s1', { query: 'select:A' })))
    expect(uses).toEqual([{ id: 'call_s1', name: 'ToolSearch', input: { query: 'select:A' }, index: 0 }])
    expect(stopReason).toBe('tool_use')
  })

  it('arguments given as JSON text are parsed; the API-executed (server) search is not the kernel’s', () => {
    const uses = outputCalls([
      searchCall('call_srv', { query: 'x' }, 'server'),
      searchCall('call_s2', '{"query":"slack"}'),
      { type: 'function_call', call_id: 'call_f', name: 'Echo', arguments: '{"text":"a"}' },
    ])
    expect(uses).toEqual([
      { id: 'call_s2', name: 'ToolSearch', input: { query: 'slack' }, index: 0 },
      { id: 'call_f', name: 'Echo', input: { text: 'a' }, index: 1 },
    ])
  })

  it('a client tool_search_call without a call_id cannot be answered: a TypeError says so', () => {
    expect(() => outputCalls([{ ...searchCall('x', {}), call_id: null }])).toThrow(/tool_search_call.*call_id/)
  })
})

describe('tool_search_call in a Responses stream', () => {
  it('is handed on at output_item.done, and once only when the terminal event repeats it', () => {
    const sink = recordingSink()
    const intake = new OpenAIResponsesStreamIntake(sink)
    const inProgress = { ...searchCall('call_s3', null), status: 'in_progress' }
    intake.push({ type: 'response.output_item.added', output_index: 0, item: inProgress, sequence_number: 1 })
    expect(sink.uses).toEqual([])
    const done = searchCall('call_s3', { query: 'github issue' })
    intake.push({ type: 'response.output_item.done', output_index: 0, item: done, sequence_number: 2 })
    intake.push({ type: 'response.completed', response: { output: [done] }, sequence_number: 3 })
    expect(sink.uses).toEqual([{ id: 'call_s3', name: 'ToolSearch', input: { query: 'github issue' }, index: 0 }])
    expect(sink.ends).toEqual([{ stopReason: 'tool_use' }])
  })

  it('a call only the terminal event shows is handed on then', () => {
    const sink = recordingSink()
    const intake = new OpenAIResponsesStreamIntake(sink)
    const done = searchCall('call_s4', { query: 'x' })
    intake.push({ type: 'response.completed', response: { output: [done] }, sequence_number: 1 })
    expect(sink.uses).toEqual([{ id: 'call_s4', name: 'ToolSearch', input: { query: 'x' }, index: 0 }])
  })
})

describe('the answer: a tool_search_output item', () => {
  const tools = syntheticTools(12)
  const kernel = () => testKernel([Echo, ...tools], { deferral: { mode: 'always' }, toolFormat: 'openai-responses' })

  it('carries the function tools ToolSearch found, as apiTools sends them, with execution: client', async () => {
    const k = kernel()
    const target = tools[3]?.name as string
    const result = await k.runTurn(
      response(searchCall('call_t1', { query: `select:${target}` }), {
        type: 'function_call',
        call_id: 'call_e1',
        name: 'Echo',
        arguments: '{"text":"hi"}',
        id: 'fc_1',
      }) as OpenAI.Responses.Response,
    )
    const items = toResponsesInputItems(result)
    const sent = k.apiTools({ format: 'openai-responses' }).find((t) => t.type === 'function' && t.name === target)
    expect(items).toEqual([
      {
        type: 'tool_search_output',
        call_id: 'call_t1',
        execution: 'client',
        tools: [{ ...sent, defer_loading: undefined }],
      },
      { type: 'function_call_output', call_id: 'call_e1', output: 'hi' },
    ])
    expect(JSON.parse(JSON.stringify(items[0]))).toEqual({
      type: 'tool_search_output',
      call_id: 'call_t1',
      execution: 'client',
      tools: [expect.objectContaining({ type: 'function', name: target, parameters: expect.any(Object) })],
    })
    // The turn overload: function_call_output and tool_search_output items, as the SDK types them.
    expectTypeOf(items).toExtend<OpenAI.Responses.ResponseInputItem[]>()
    expectTypeOf(items).toEqualTypeOf<ResponsesToolOutputItem[]>()
    const input: OpenAI.Responses.ResponseInput = items
    expect(input).toHaveLength(2)
  })

  it('a search that finds nothing, or fails, is still answered as a tool_search_output (with no tools)', async () => {
    const k = kernel()
    const result = await k.runTurn(
      response(searchCall('call_n', { query: 'zzzz-nothing' }), searchCall('call_bad', { query: '' })),
    )
    expect(result.message.content.find((b) => b.tool_use_id === 'call_bad')?.is_error).toBe(true)
    expect(toResponsesInputItems(result)).toEqual([
      { type: 'tool_search_output', call_id: 'call_n', execution: 'client', tools: [] },
      { type: 'tool_search_output', call_id: 'call_bad', execution: 'client', tools: [] },
    ])
  })

  it('the items type-check against the openai SDK', () => {
    expectTypeOf<ResponsesToolSearchOutput>().toExtend<OpenAI.Responses.ResponseToolSearchOutputItemParam>()
    expectTypeOf<ResponsesFunctionToolParam>().toExtend<OpenAI.Responses.FunctionTool>()
  })
})
