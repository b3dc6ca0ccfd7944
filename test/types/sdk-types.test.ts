/**
 * The kernel's entry points take the SDKs' own types with no cast, and what it returns is
 * assignable to the SDKs' request types. Checked by the project's tsc (`npm run typecheck`
 * covers test/, strict with exactOptionalPropertyTypes): a regression is a type error here.
 * The runtime half only confirms the values used are the shapes the types claim.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { describe, expectTypeOf, it } from 'vitest'
import type { Kernel, Turn, TurnResult } from '../../src/index.js'
import { toOpenAIToolMessages } from '../../src/projections/openai.projection.js'
import { toResponsesInputItems } from '../../src/projections/openai-responses.projection.js'

type RunTurnInput = Parameters<Kernel['runTurn']>[0]
type Message = TurnResult['message']

describe('what the kernel takes', () => {
  it('runTurn: the Anthropic Message, and every OpenAI shape of a finished assistant turn', () => {
    expectTypeOf<Anthropic.Message>().toExtend<RunTurnInput>()
    expectTypeOf<OpenAI.Chat.Completions.ChatCompletionMessage>().toExtend<RunTurnInput>()
    expectTypeOf<OpenAI.Chat.Completions.ChatCompletion.Choice>().toExtend<RunTurnInput>()
    expectTypeOf<OpenAI.Chat.Completions.ChatCompletion>().toExtend<RunTurnInput>()
    expectTypeOf<OpenAI.Responses.Response>().toExtend<RunTurnInput>()
    expectTypeOf<OpenAI.Responses.Response['output']>().toExtend<RunTurnInput>()
    expectTypeOf<OpenAI.Responses.ResponseOutputItem[]>().toExtend<RunTurnInput>()
    // What an app writes by hand still fits: a literal message with text and tool_use blocks.
    expectTypeOf({
      role: 'assistant' as const,
      content: [
        { type: 'text', text: 'Reading it.' },
        { type: 'tool_use' as const, id: 'toolu_1', name: 'Read', input: { file_path: '/a' } },
      ],
      stop_reason: 'tool_use',
    }).toExtend<RunTurnInput>()
  })

  it('runTurn: not just anything', () => {
    expectTypeOf<{ role: 'user'; content: string }>().not.toExtend<RunTurnInput>()
    expectTypeOf<string>().not.toExtend<RunTurnInput>()
    expectTypeOf<OpenAI.Chat.Completions.ChatCompletionChunk>().not.toExtend<RunTurnInput>()
  })

  it('the stream methods take the SDKs stream types', () => {
    expectTypeOf<Anthropic.RawMessageStreamEvent>().toExtend<Parameters<Turn['push']>[0]>()
    expectTypeOf<Anthropic.MessageStreamEvent>().toExtend<Parameters<Turn['push']>[0]>()
    expectTypeOf<OpenAI.Chat.Completions.ChatCompletionChunk>().toExtend<Parameters<Turn['pushOpenAI']>[0]>()
    expectTypeOf<OpenAI.Responses.ResponseStreamEvent>().toExtend<Parameters<Turn['pushOpenAIResponses']>[0]>()
    expectTypeOf<Anthropic.ToolUseBlock>().toExtend<Parameters<Turn['addToolUse']>[0]>()
    expectTypeOf<Turn['fail']>().parameter(0).toEqualTypeOf<unknown>()
  })
})

describe('what the kernel returns fits the next request', () => {
  it('the message is an Anthropic MessageParam (images with the four media types)', () => {
    expectTypeOf<Message>().toExtend<Anthropic.MessageParam>()
    expectTypeOf<Message['content'][number]>().toExtend<Anthropic.ToolResultBlockParam>()
    type Part = Exclude<Message['content'][number]['content'], string>[number]
    type Image = Extract<Part, { type: 'image' }>
    expectTypeOf<Image['source']['media_type']>().toEqualTypeOf<Anthropic.Base64ImageSource['media_type']>()
  })

  it('the OpenAI projections are the SDKs request items', () => {
    expectTypeOf(toOpenAIToolMessages).returns.toExtend<OpenAI.Chat.Completions.ChatCompletionToolMessageParam[]>()
    expectTypeOf(toOpenAIToolMessages).returns.toExtend<OpenAI.Chat.Completions.ChatCompletionMessageParam[]>()
    expectTypeOf(toResponsesInputItems).returns.toExtend<
      Array<OpenAI.Responses.ResponseInputItem.FunctionCallOutput | OpenAI.Responses.ResponseToolSearchOutputItemParam>
    >()
    expectTypeOf(toResponsesInputItems).returns.toExtend<OpenAI.Responses.ResponseInput>()
    // The message the kernel returns is what the projections take.
    expectTypeOf<Message>().toExtend<Parameters<typeof toOpenAIToolMessages>[0]>()
    expectTypeOf<Message>().toExtend<Parameters<typeof toResponsesInputItems>[0]>()
  })
})
