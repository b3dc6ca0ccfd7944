// The AI SDK adapter as the README shows it, from the subpath export.
import { generateText, streamText, type LanguageModel, type ModelMessage } from 'ai'
import { builtinTools, createKernel } from 'toolkernel'
import { aiSdkTools, runToolCalls, startToolCalls } from 'toolkernel/ai-sdk'

export async function agent(model: LanguageModel, messages: ModelMessage[]): Promise<void> {
  const kernel = createKernel({ tools: builtinTools, cwd: process.cwd() })
  const tools = aiSdkTools(kernel)
  for (let step = 0; step < 10; step++) {
    const result = await generateText({ model, tools, messages })
    const { messages: toolMessages } = await runToolCalls(kernel, result)
    messages.push(...result.response.messages, ...toolMessages)
    if (toolMessages.length === 0) break
  }
  const streamed = streamText({ model, tools, messages })
  const calls = startToolCalls(kernel)
  for await (const part of streamed.fullStream) calls.push(part)
  const { messages: toolMessages } = await calls.result()
  messages.push(...(await streamed.response).messages, ...toolMessages)
}
