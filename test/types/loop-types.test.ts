/**
 * toolkernel/loop reads its types from the client the app passes: the SDK's own message and
 * response types come out, with no cast and no SDK imported by toolkernel. Checked by the
 * project's tsc (strict, exactOptionalPropertyTypes); a regression is a type error here.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { describe, expectTypeOf, it } from 'vitest'
import {
  anthropic,
  openaiChat,
  openaiResponses,
  runLoop,
  type AnthropicMessageOf,
  type AnthropicParams,
  type AnthropicResponseOf,
  type LoopModel,
  type LoopResult,
  type OpenAIChatMessageOf,
  type OpenAIChatResponseOf,
  type OpenAIResponsesItemOf,
  type OpenAIResponsesResponseOf,
} from '../../src/loop/index.js'

describe('the SDK types, read from the client', () => {
  it('Anthropic: MessageParam in and out, Message as the response', () => {
    expectTypeOf<AnthropicMessageOf<Anthropic>>().toEqualTypeOf<Anthropic.MessageParam>()
    // The response is what `await client.messages.create(…)` gives: the Message with the SDK request ids.
    expectTypeOf<AnthropicResponseOf<Anthropic>>().toExtend<Anthropic.Message>()
    expectTypeOf(anthropic<Anthropic>).returns.toEqualTypeOf<
      LoopModel<Anthropic.MessageParam, AnthropicResponseOf<Anthropic>>
    >()
    // model and max_tokens are required, as the SDK requires them.
    expectTypeOf<{ model: 'claude-sonnet-4-5' }>().not.toExtend<AnthropicParams<Anthropic>>()
    expectTypeOf<{ model: 'claude-sonnet-4-5'; max_tokens: 1024 }>().toExtend<AnthropicParams<Anthropic>>()
  })

  it('OpenAI Chat: ChatCompletionMessageParam, ChatCompletion', () => {
    expectTypeOf<OpenAIChatMessageOf<OpenAI>>().toEqualTypeOf<OpenAI.Chat.ChatCompletionMessageParam>()
    expectTypeOf<OpenAIChatResponseOf<OpenAI>>().toExtend<OpenAI.Chat.ChatCompletion>()
  })

  it('OpenAI Responses: ResponseInputItem, Response', () => {
    expectTypeOf<OpenAIResponsesItemOf<OpenAI>>().toEqualTypeOf<OpenAI.Responses.ResponseInputItem>()
    expectTypeOf<OpenAIResponsesResponseOf<OpenAI>>().toExtend<OpenAI.Responses.Response>()
  })

  it('runLoop gives back the conversation in the type it was given', () => {
    const loop = (client: OpenAI, messages: OpenAI.Chat.ChatCompletionMessageParam[]) =>
      runLoop({ model: openaiChat(client, { model: 'gpt-4.1' }), kernel: null as never, messages })
    expectTypeOf(loop).returns.resolves.toEqualTypeOf<
      LoopResult<OpenAI.Chat.ChatCompletionMessageParam, OpenAIChatResponseOf<OpenAI>>
    >()
    const responses = (client: OpenAI) => openaiResponses(client, { model: 'gpt-4.1' })
    expectTypeOf(responses).returns.toEqualTypeOf<
      LoopModel<OpenAI.Responses.ResponseInputItem, OpenAIResponsesResponseOf<OpenAI>>
    >()
    // A conversation of another provider's messages does not fit.
    type Options = Parameters<typeof runLoop<Anthropic.MessageParam, AnthropicResponseOf<Anthropic>>>[0]
    expectTypeOf<OpenAI.Chat.ChatCompletionMessageParam[]>().not.toExtend<Options['messages']>()
  })
})
