/**
 * A small AI SDK provider (LanguageModelV3) for tests: it speaks OpenAI Chat Completions over
 * HTTP to the loopback model API, through the official `openai` client — so the AI SDK's prompt,
 * tool calls and tool results make a real round trip and a malformed conversation is refused by
 * the server as the API would refuse it. It stands in for `@ai-sdk/openai`, which is not
 * installed here; it maps only what these tests use (text, function tools, tool results).
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from '@ai-sdk/provider'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'

const FINISH: Record<string, LanguageModelV3FinishReason['unified']> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  length: 'length',
  content_filter: 'content-filter',
}

const finishOf = (raw: string | null | undefined): LanguageModelV3FinishReason => ({
  unified: FINISH[raw ?? ''] ?? 'other',
  raw: raw ?? undefined,
})

const usageOf = (
  usage: { prompt_tokens: number; completion_tokens: number } | null | undefined,
): LanguageModelV3Usage => ({
  inputTokens: { total: usage?.prompt_tokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: usage?.completion_tokens, text: undefined, reasoning: undefined },
})

/** A model on the loopback server: `baseURL` is the server's OpenAI URL. */
export function loopbackModel(baseURL: string, modelId = 'gpt-4.1'): LanguageModelV3 {
  const client = new OpenAI({ baseURL, apiKey: 'test', maxRetries: 0 })
  const request = (options: LanguageModelV3CallOptions) => ({
    model: modelId,
    messages: toChatMessages(options.prompt),
    ...(options.tools === undefined ? {} : { tools: toChatTools(options.tools) }),
  })
  return {
    specificationVersion: 'v3',
    provider: 'loopback.chat',
    modelId,
    supportedUrls: {},
    async doGenerate(options) {
      const completion = await client.chat.completions.create(request(options), { signal: options.abortSignal ?? null })
      const choice = completion.choices[0]
      const content: LanguageModelV3Content[] = []
      if (typeof choice?.message.content === 'string' && choice.message.content !== '')
        content.push({ type: 'text', text: choice.message.content })
      for (const call of choice?.message.tool_calls ?? [])
        if (call.type === 'function')
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.function.name,
            input: call.function.arguments,
          })
      return { content, finishReason: finishOf(choice?.finish_reason), usage: usageOf(completion.usage), warnings: [] }
    },
    async doStream(options) {
      const stream = await client.chat.completions.create(
        { ...request(options), stream: true, stream_options: { include_usage: true } },
        { signal: options.abortSignal ?? null },
      )
      return { stream: toV3Stream(stream) }
    },
  }
}

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk

/** Chat chunks as V3 stream parts; a call's `tool-call` goes out as soon as the next call begins. */
function toV3Stream(chunks: AsyncIterable<Chunk>): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream<LanguageModelV3StreamPart>({
    async start(controller) {
      const calls = new Map<number, { id: string; name: string; args: string }>()
      const flush = (index: number): void => {
        const call = calls.get(index)
        if (call === undefined) return
        calls.delete(index)
        controller.enqueue({ type: 'tool-input-end', id: call.id })
        controller.enqueue({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.args })
      }
      let finish: LanguageModelV3FinishReason = finishOf(undefined)
      let usage = usageOf(undefined)
      let text = false
      controller.enqueue({ type: 'stream-start', warnings: [] })
      for await (const chunk of chunks) {
        if (chunk.usage) usage = usageOf(chunk.usage)
        const choice = chunk.choices[0]
        if (choice === undefined) continue
        const content = choice.delta.content
        if (typeof content === 'string' && content !== '') {
          if (!text) controller.enqueue({ type: 'text-start', id: 'text-0' })
          text = true
          controller.enqueue({ type: 'text-delta', id: 'text-0', delta: content })
        }
        for (const delta of choice.delta.tool_calls ?? []) {
          if (delta.id !== undefined) {
            for (const index of [...calls.keys()]) if (index < delta.index) flush(index)
            calls.set(delta.index, { id: delta.id, name: delta.function?.name ?? '', args: '' })
            controller.enqueue({ type: 'tool-input-start', id: delta.id, toolName: delta.function?.name ?? '' })
          }
          const call = calls.get(delta.index)
          const piece = delta.function?.arguments ?? ''
          if (call === undefined || piece === '') continue
          call.args += piece
          controller.enqueue({ type: 'tool-input-delta', id: call.id, delta: piece })
        }
        if (choice.finish_reason !== null) finish = finishOf(choice.finish_reason)
      }
      if (text) controller.enqueue({ type: 'text-end', id: 'text-0' })
      for (const index of [...calls.keys()].sort((a, b) => a - b)) flush(index)
      controller.enqueue({ type: 'finish', finishReason: finish, usage })
      controller.close()
    },
  })
}

function toChatTools(tools: NonNullable<LanguageModelV3CallOptions['tools']>): ChatCompletionTool[] {
  return tools.flatMap((tool) =>
    tool.type === 'function'
      ? [
          {
            type: 'function' as const,
            function: {
              name: tool.name,
              description: tool.description ?? '',
              parameters: tool.inputSchema as Record<string, unknown>,
            },
          },
        ]
      : [],
  )
}

/** The AI SDK's prompt as Chat Completions messages. */
function toChatMessages(prompt: LanguageModelV3Prompt): ChatCompletionMessageParam[] {
  return prompt.flatMap((message): ChatCompletionMessageParam[] => {
    if (message.role === 'system') return [{ role: 'system', content: message.content }]
    if (message.role === 'user')
      return [
        { role: 'user', content: message.content.map((part) => (part.type === 'text' ? part.text : '')).join('') },
      ]
    if (message.role === 'assistant') {
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
      const calls = message.content.flatMap((part) =>
        part.type === 'tool-call'
          ? [
              {
                id: part.toolCallId,
                type: 'function' as const,
                function: { name: part.toolName, arguments: JSON.stringify(part.input) },
              },
            ]
          : [],
      )
      return [
        { role: 'assistant', content: text === '' ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
      ]
    }
    return message.content.flatMap((part) =>
      part.type === 'tool-result'
        ? [{ role: 'tool' as const, tool_call_id: part.toolCallId, content: outputText(part.output) }]
        : [],
    )
  })
}

type Output = Extract<
  Extract<LanguageModelV3Prompt[number], { role: 'tool' }>['content'][number],
  { type: 'tool-result' }
>['output']

/** Tool messages carry text: what the AI SDK's OpenAI provider sends for each output type. */
function outputText(output: Output): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value)
    case 'execution-denied':
      return output.reason ?? 'Tool execution denied.'
    case 'content':
      return output.value.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n')
  }
}
