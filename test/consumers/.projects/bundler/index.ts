// The README's examples as an app writes them (strict, exactOptionalPropertyTypes, no casts),
// type-checked against the packed tarball with skipLibCheck: false.
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { z } from 'zod'
import { buildTool, builtinTools, createKernel, toOpenAIToolMessages, toResponsesInputItems } from 'toolkernel'

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes text back.',
  prompt: () => 'Returns the given text unchanged. Use it to test tool calling; it has no effects.',
  inputSchema: z.object({ text: z.string().describe('The text to return') }),
  isConcurrencySafe: () => true,
  async call({ text }) {
    return text
  },
})

export const kernel = createKernel({ tools: [...builtinTools, Echo], cwd: process.cwd() })

export async function anthropicStep(client: Anthropic, messages: Anthropic.MessageParam[]): Promise<boolean> {
  const response = await client.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    tools: kernel.apiTools(),
    messages,
  })
  messages.push({ role: 'assistant', content: response.content })
  if (response.stop_reason !== 'tool_use') return false
  const { message } = await kernel.runTurn(response)
  messages.push(message)
  return true
}

export async function anthropicStreamStep(client: Anthropic, messages: Anthropic.MessageParam[]): Promise<void> {
  const turn = kernel.startTurn()
  const stream = client.messages.stream({
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    tools: kernel.apiTools(),
    messages,
  })
  try {
    for await (const event of stream) turn.push(event)
  } catch (error) {
    turn.fail(error)
  }
  const { message } = await turn.result()
  messages.push({ role: 'assistant', content: (await stream.finalMessage()).content }, message)
}

export async function chatStep(client: OpenAI, messages: ChatCompletionMessageParam[]): Promise<void> {
  const completion = await client.chat.completions.create({
    model: 'gpt-4.1',
    messages,
    tools: kernel.apiTools({ format: 'openai-chat' }),
  })
  const [choice] = completion.choices
  if (choice === undefined) return
  messages.push(choice.message)
  const { message } = await kernel.runTurn(completion)
  messages.push(...toOpenAIToolMessages(message))
}

export async function responsesStep(client: OpenAI, input: ResponseInputItem[], previous?: string): Promise<string> {
  const response = await client.responses.create({
    model: 'gpt-4.1',
    input,
    tools: kernel.apiTools({ format: 'openai-responses' }),
    ...(previous === undefined ? {} : { previous_response_id: previous }),
  })
  const { message } = await kernel.runTurn(response)
  input.splice(0, input.length, ...toResponsesInputItems(message))
  return response.id
}
