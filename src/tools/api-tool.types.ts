/**
 * The provider formats and the shapes of the `tools` request parameter the kernel produces in
 * each. It imports nothing of the tool contract: the contract (a child session's `apiTools`) and
 * the formatter (to-api-format.ts) both read it.
 */

/** A JSON Schema object, for tools (MCP ones, say) that describe their input without zod. */
export type JsonSchemaObject = { type: 'object'; [key: string]: unknown }

/** One entry of the Anthropic Messages API `tools` request parameter. */
export interface ApiTool {
  name: string
  description: string
  input_schema: JsonSchemaObject
}

/** The request formats `kernel.apiTools({ format })` produces. */
export const API_FORMATS = ['anthropic', 'openai-chat', 'openai-responses'] as const
export type ApiFormat = (typeof API_FORMATS)[number]

/** One Anthropic `tools` entry, as the kernel sends it (a subset of the SDK's `Tool`). */
export interface AnthropicApiTool extends ApiTool {
  /** Only the name is in the prompt until a `tool_reference` (ToolSearch's result) expands it. */
  defer_loading?: boolean
  input_examples?: Array<Record<string, unknown>>
}

/** One OpenAI Chat Completions `tools` entry (the SDK's `ChatCompletionFunctionTool`). */
export interface OpenAIChatApiTool {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean }
}

/** One OpenAI Responses function tool (the SDK's `FunctionTool`). */
export interface OpenAIResponsesFunctionTool {
  type: 'function'
  name: string
  description: string
  parameters: Record<string, unknown>
  strict: boolean
  defer_loading?: boolean
}

/** The Responses API's client-executed tool search (the SDK's `ToolSearchTool`). */
export interface OpenAIResponsesToolSearch {
  type: 'tool_search'
  execution: 'client'
  description: string
  parameters: Record<string, unknown>
}

export type OpenAIResponsesApiTool = OpenAIResponsesFunctionTool | OpenAIResponsesToolSearch

/** The `tools` parameter's entry type for each format. */
export interface ApiToolOf {
  anthropic: AnthropicApiTool
  'openai-chat': OpenAIChatApiTool
  'openai-responses': OpenAIResponsesApiTool
}
