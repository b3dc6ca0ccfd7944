/** The kernel's tools as an AI SDK tool set: descriptions and schemas, and no `execute`. */
import { jsonSchema, type Tool as AiTool, type ToolSet } from 'ai'
import type { Kernel } from '../kernel.js'

/**
 * The `tools` option of `generateText` / `streamText`: the kernel's tool pool for this step
 * (enabled tools, less those a rule denies outright), each with its model-facing description and
 * input JSON Schema, and without `execute` — the AI SDK hands the calls back to the app, which runs
 * them through the kernel as one turn (`runToolCalls`, `startToolCalls`).
 *
 * The pool is the OpenAI Chat plan (every offered tool in full, loaded ones appended), because the
 * AI SDK has no provider-neutral deferral; call it again each step so tools ToolSearch loaded
 * appear. `strict` is passed on only where the schema already fits a provider's strict mode. The
 * schemas carry no validator on purpose: the kernel validates every input and answers a bad one
 * with an error the model can act on.
 *
 * @example
 * const result = await generateText({ model, tools: aiSdkTools(kernel), messages })
 */
export function aiSdkTools(kernel: Pick<Kernel, 'apiTools'>): ToolSet {
  const tools: ToolSet = {}
  for (const { function: fn } of kernel.apiTools({ format: 'openai-chat' })) {
    const entry: AiTool = { description: fn.description, inputSchema: jsonSchema(fn.parameters) }
    if (fn.strict === true) entry.strict = true
    tools[fn.name] = entry
  }
  return tools
}
