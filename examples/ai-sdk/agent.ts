/**
 * The Vercel AI SDK (v6) with toolkernel running its tool calls: an agent loop over the built-in
 * tools, batch (`generateText`) and streaming (`streamText`). The AI SDK gets the tools without
 * `execute`, so each step stops at the model's calls; toolkernel runs them as one turn — batches,
 * order, permissions, hooks, budget, log — and hands back the tool message to append.
 *
 * In an app the imports are `toolkernel` and `toolkernel/ai-sdk`; this file sits in the repo and
 * imports the sources. test/sdk/ai-sdk-example.test.ts runs it against the loopback model API.
 * With a real provider: `agent(openai('gpt-4.1'), process.cwd(), 'Fix the failing test')`.
 */
import { generateText, streamText, type LanguageModel, type ModelMessage } from 'ai'
import { builtinTools, createKernel } from '../../src/index.js'
import { aiSdkTools, runToolCalls, startToolCalls } from '../../src/ai-sdk/index.js'

/** Runs the model until it stops calling tools; returns the conversation. */
export async function agent(model: LanguageModel, cwd: string, prompt: string): Promise<ModelMessage[]> {
  const kernel = createKernel({ tools: builtinTools, cwd, permissions: { mode: 'acceptEdits' } })
  const messages: ModelMessage[] = [{ role: 'user', content: prompt }]
  for (let step = 0; step < 20; step++) {
    // Each step: the pool can change (a tool ToolSearch loaded, a grant), so the tools are rebuilt.
    const result = await generateText({ model, tools: aiSdkTools(kernel), messages })
    const { messages: toolMessages } = await runToolCalls(kernel, result)
    messages.push(...result.response.messages, ...toolMessages)
    if (toolMessages.length === 0) break
  }
  return messages
}

/** The same loop streaming: safe calls start while the model is still talking. */
export async function streamingAgent(
  model: LanguageModel,
  cwd: string,
  prompt: string,
  onText: (text: string) => void = () => {},
): Promise<ModelMessage[]> {
  const kernel = createKernel({ tools: builtinTools, cwd, permissions: { mode: 'acceptEdits' } })
  const messages: ModelMessage[] = [{ role: 'user', content: prompt }]
  for (let step = 0; step < 20; step++) {
    const result = streamText({ model, tools: aiSdkTools(kernel), messages })
    const calls = startToolCalls(kernel)
    try {
      for await (const part of result.fullStream) {
        calls.push(part)
        if (part.type === 'text-delta') onText(part.text)
      }
    } catch (error) {
      // The model's stream failed: what runs keeps its result, the rest is voided.
      calls.fail(error)
    }
    const { messages: toolMessages } = await calls.result()
    messages.push(...(await result.response).messages, ...toolMessages)
    if (toolMessages.length === 0) break
  }
  return messages
}
