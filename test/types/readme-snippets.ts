/**
 * The README's agent loops, exactly as /work/tmp/readme-wire.md shows them, compiled by the
 * project's tsc (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess): the proof that
 * they need no cast. Not a vitest file: the loops run against a model API server on loopback in
 * test/sdk/; here only the types are at stake.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import {
  toOpenAIToolMessages,
  toResponsesInputItems,
  type ApprovalAnswer,
  type Kernel,
  type PendingApproval,
} from '../../src/index.js'

// --- Anthropic Messages API, batch -----------------------------------------------------------
export async function anthropicBatch(
  kernel: Kernel,
  client: Anthropic,
  prompt: string,
  askPerson: (call: PendingApproval) => Promise<ApprovalAnswer>,
) {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }]
  for (;;) {
    const response = await client.messages.create({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      tools: kernel.apiTools(),
      messages,
    })
    messages.push({ role: 'assistant', content: response.content })
    if (response.stop_reason !== 'tool_use') return response
    let result = await kernel.runTurn(response)
    // A call that asks with nobody to answer now parks; a person answers it, now or in another process.
    for (const call of result.pending) result = await kernel.answer(call.toolUseId, await askPerson(call))
    messages.push(result.message)
  }
}

// --- Anthropic Messages API, streaming, with the one path for a stream that fails ------------
export async function anthropicStreaming(kernel: Kernel, client: Anthropic, messages: Anthropic.MessageParam[]) {
  for (;;) {
    const turn = kernel.startTurn()
    const stream = client.messages.stream({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      tools: kernel.apiTools(),
      messages,
    })
    try {
      for await (const event of stream) turn.push(event)
    } catch (error) {
      turn.fail(error) // running calls finish, the rest are answered as not run
      await turn.result() // nothing of this turn is left running
      throw error // or retry the request: the model will issue its calls again
    }
    const response = await stream.finalMessage()
    const { message } = await turn.result()
    messages.push({ role: 'assistant', content: response.content })
    if (response.stop_reason !== 'tool_use') return response
    messages.push(message)
  }
}

// --- OpenAI Chat Completions, batch ----------------------------------------------------------
export async function openAIChatBatch(kernel: Kernel, client: OpenAI, prompt: string) {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }]
  for (;;) {
    const completion = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages,
      tools: kernel.apiTools({ format: 'openai-chat' }),
    })
    const choice = completion.choices[0]
    if (choice === undefined) throw new Error('no choice')
    messages.push(choice.message)
    if (choice.finish_reason !== 'tool_calls') return choice.message
    const { message } = await kernel.runTurn(choice) // a choice cut off by `length` would run nothing
    messages.push(...toOpenAIToolMessages(message))
  }
}

// --- OpenAI Chat Completions, streaming --------------------------------------------------------
export async function openAIChatStreaming(
  kernel: Kernel,
  client: OpenAI,
  messages: OpenAI.Chat.ChatCompletionMessageParam[],
) {
  for (;;) {
    const turn = kernel.startTurn()
    const stream = client.chat.completions.stream({
      model: 'gpt-4.1',
      messages,
      tools: kernel.apiTools({ format: 'openai-chat' }),
      stream_options: { include_usage: true },
    })
    try {
      for await (const chunk of stream) turn.pushOpenAI(chunk)
    } catch (error) {
      turn.fail(error)
      await turn.result()
      throw error
    }
    const completion = await stream.finalChatCompletion()
    const { message } = await turn.result()
    const choice = completion.choices[0]
    if (choice === undefined) throw new Error('no choice')
    messages.push(choice.message)
    if (choice.finish_reason !== 'tool_calls') return choice.message
    messages.push(...toOpenAIToolMessages(message))
  }
}

// --- OpenAI Responses API, batch --------------------------------------------------------------
export async function openAIResponsesBatch(kernel: Kernel, client: OpenAI, prompt: string) {
  const tools = kernel.apiTools({ format: 'openai-responses' })
  let response = await client.responses.create({ model: 'gpt-4.1', input: prompt, tools })
  for (;;) {
    const { message } = await kernel.runTurn(response)
    if (message.content.length === 0) return response
    response = await client.responses.create({
      model: 'gpt-4.1',
      previous_response_id: response.id,
      input: toResponsesInputItems(message),
      tools,
    })
  }
}

// --- OpenAI Responses API, streaming ------------------------------------------------------------
export async function openAIResponsesStreaming(kernel: Kernel, client: OpenAI, prompt: string) {
  const tools = kernel.apiTools({ format: 'openai-responses' })
  let input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: prompt }]
  let previous: string | undefined
  for (;;) {
    const turn = kernel.startTurn()
    const stream = client.responses.stream({
      model: 'gpt-4.1',
      input,
      tools,
      ...(previous !== undefined ? { previous_response_id: previous } : {}),
    })
    try {
      for await (const event of stream) turn.pushOpenAIResponses(event)
    } catch (error) {
      turn.fail(error)
      await turn.result()
      throw error
    }
    const response = await stream.finalResponse()
    const { message } = await turn.result()
    if (message.content.length === 0) return response
    input = toResponsesInputItems(message)
    previous = response.id
  }
}

// --- kernel.callTool ---------------------------------------------------------------------------
export async function callToolYourself(
  kernel: Kernel,
  signal: AbortSignal,
  askPerson: (call: PendingApproval) => Promise<ApprovalAnswer>,
) {
  const { result, output, pending } = await kernel.callTool('Read', { file_path: '/repo/README.md' }, { signal })
  for (const call of pending) await kernel.answer(call.toolUseId, await askPerson(call)) // an ask nobody answered parks
  if (result?.is_error) console.error(result.content)
  else if (result) console.log(output) // result is absent while the call was pending
}
