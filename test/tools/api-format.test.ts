/** apiTools({ format }): each provider's request shape, checked against the real SDK types and at run time. */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { buildTool, type Kernel } from '../../src/index.js'
import {
  strictCompatible,
  type AnthropicApiTool,
  type OpenAIChatApiTool,
  type OpenAIResponsesApiTool,
} from '../../src/tools/to-api-format.js'
import { Echo, testKernel } from '../helpers.js'
import { syntheticTools } from './pool/synthetic.js'

const Strict = buildTool({
  name: 'Strict',
  description: () => 'All fields required.',
  inputSchema: z.strictObject({ path: z.string().describe('A path'), depth: z.number().int() }),
  inputExamples: [{ path: '/tmp', depth: 2 }],
  async call() {
    return ''
  },
})

describe('request shapes against the SDK types', () => {
  it('Anthropic entries are SDK Tools; the parameter is a ToolUnion[]', () => {
    expectTypeOf<AnthropicApiTool>().toExtend<Anthropic.Messages.Tool>()
    const kernel: Kernel = testKernel([Echo])
    expectTypeOf(kernel.apiTools()).toExtend<Anthropic.Messages.ToolUnion[]>()
    expectTypeOf(kernel.apiTools({ format: 'anthropic' })).toExtend<
      NonNullable<Anthropic.Messages.MessageCreateParamsNonStreaming['tools']>
    >()
    expectTypeOf<{ type: 'tool_reference'; tool_name: string }>().toExtend<Anthropic.Messages.ToolReferenceBlockParam>()
  })

  it('OpenAI Chat entries are ChatCompletionTools; Responses entries are Responses Tools', () => {
    expectTypeOf<OpenAIChatApiTool>().toExtend<OpenAI.Chat.Completions.ChatCompletionTool>()
    expectTypeOf<OpenAIResponsesApiTool>().toExtend<OpenAI.Responses.Tool>()
    const kernel = testKernel([Echo])
    expectTypeOf(kernel.apiTools({ format: 'openai-chat' })).toExtend<OpenAI.Chat.Completions.ChatCompletionTool[]>()
    expectTypeOf(kernel.apiTools({ format: 'openai-responses' })).toExtend<OpenAI.Responses.Tool[]>()
  })
})

describe('apiTools at run time', () => {
  it('strict where the schema allows it: every field required and the object closed', () => {
    const chat = testKernel([Echo, Strict]).apiTools({ format: 'openai-chat' })
    expect(chat.map((t) => [t.function.name, t.function.strict])).toEqual([
      ['Echo', undefined],
      ['Strict', true],
    ])
    const responses = testKernel([Echo, Strict]).apiTools({ format: 'openai-responses' })
    expect(responses).toEqual([
      expect.objectContaining({ type: 'function', name: 'Echo', strict: false }),
      expect.objectContaining({ type: 'function', name: 'Strict', strict: true }),
    ])
    expect(
      strictCompatible({
        type: 'object',
        properties: { default: { type: 'string' } },
        required: ['default'],
        additionalProperties: false,
      }),
    ).toBe(true)
    expect(
      strictCompatible({
        type: 'object',
        properties: { a: { type: 'string', default: 'x' } },
        required: ['a'],
        additionalProperties: false,
      }),
    ).toBe(false)
    expect(
      strictCompatible({
        type: 'object',
        properties: { a: { type: 'object', properties: {} } },
        required: ['a'],
        additionalProperties: false,
      }),
    ).toBe(false)
  })

  it('input_examples go to Anthropic; a bad example is refused by buildTool', () => {
    expect(testKernel([Strict]).apiTools()[0]?.input_examples).toEqual([{ path: '/tmp', depth: 2 }])
    expect(() =>
      buildTool({
        name: 'Bad',
        description: () => 'b',
        inputSchema: z.strictObject({ path: z.string(), depth: z.number().int() }),
        inputExamples: [{ path: 3 }],
        call: async () => '',
      }),
    ).toThrow(
      /^buildTool\(Bad\): inputExamples\[0\] does not match the input schema: `path` must be a string.*missing required field `depth`/,
    )
    expect(() =>
      buildTool({
        name: 'Json',
        description: () => 'j',
        inputJSONSchema: { type: 'object', properties: { a: {} }, required: ['a'], additionalProperties: false },
        inputExamples: [{ b: 1 }],
        call: async () => '',
      }),
    ).toThrow(/missing required field `a`; unexpected field `b`/)
    // A schema whose refinement throws on the example: the same error, saying so (decision 93).
    expect(() =>
      buildTool({
        name: 'Refined',
        description: () => 'r',
        inputSchema: z.object({ a: z.string() }).refine(() => {
          throw new Error('refine boom')
        }),
        inputExamples: [{ a: 'x' }],
        call: async () => '',
      }),
    ).toThrow(
      /^buildTool\(Refined\): inputExamples\[0\] does not match the input schema: checking it, the schema threw \(refine boom\)\. Fix/,
    )
  })

  it('an unknown format is a TypeError naming the formats', () => {
    const kernel = testKernel([Echo])
    expect(() => kernel.apiTools({ format: 'gemini' as 'anthropic' })).toThrow(
      /^apiTools: format must be one of anthropic, openai-chat, openai-responses, got "gemini"/,
    )
  })

  it('the order is stable across turns and loads for Anthropic (the prompt-cache prefix holds)', async () => {
    const kernel = testKernel([Echo, ...syntheticTools(30)], { deferral: { mode: 'always' } })
    const before = JSON.stringify(kernel.apiTools())
    await kernel.runTurn({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 's', name: 'ToolSearch', input: { query: 'create issue' } }],
    })
    expect(JSON.stringify(kernel.apiTools())).toBe(before)
  })
})
