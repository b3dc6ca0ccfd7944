import { z } from 'zod'
import { guarded } from '../util/guarded.js'
import { isThenable } from '../util/is-thenable.js'
import { DescriptionError, viewTexts } from './describe.js'
import type { DescribeContext, JsonSchemaObject, Tool } from './tool.types.js'
import type {
  AnthropicApiTool,
  ApiTool,
  OpenAIChatApiTool,
  OpenAIResponsesFunctionTool,
  OpenAIResponsesToolSearch,
} from './api-tool.types.js'

export {
  API_FORMATS,
  type AnthropicApiTool,
  type ApiFormat,
  type ApiTool,
  type ApiToolOf,
  type OpenAIChatApiTool,
  type OpenAIResponsesApiTool,
  type OpenAIResponsesFunctionTool,
  type OpenAIResponsesToolSearch,
} from './api-tool.types.js'

const jsonSchemas = new WeakMap<Tool, JsonSchemaObject>()

/**
 * The JSON Schema of a tool's input, as sent to the model: field descriptions kept, zod's
 * ±MAX_SAFE_INTEGER bounds for `.int()` and the `$schema` key dropped (tool APIs reject or
 * ignore them). Cached per tool.
 */
export function inputJsonSchema(tool: Tool): JsonSchemaObject {
  let schema = jsonSchemas.get(tool)
  if (schema === undefined) {
    schema = tool.inputSchema !== undefined ? fromZod(tool.inputSchema) : (tool.inputJSONSchema ?? { type: 'object' })
    jsonSchemas.set(tool, schema)
  }
  return schema
}

function fromZod(schema: z.ZodType): JsonSchemaObject {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum
    },
  }) as Record<string, unknown>
  delete json.$schema
  return { ...json, type: 'object' }
}

/**
 * The tools as the Anthropic `tools` request parameter: name, the model-facing description
 * (`prompt()`), and the input JSON Schema. Disabled tools are left out; nothing of the kernel's
 * own contract (safety flags, budgets, hints) is exposed. No pool: every tool is sent in full
 * (`kernel.apiTools({ format })` is the one that defers).
 *
 * @example
 * await anthropic.messages.create({ model, messages, tools: toAPIFormat([Read, Bash]) })
 */
export function toAPIFormat(tools: readonly Tool[]): ApiTool[] {
  const enabled = tools.filter((tool) => guarded(() => tool.isEnabled(), false))
  const names = enabled.map((tool) => tool.name)
  return enabled.map((tool) => anthropicTool({ tool, deferred: false, prompt: textOf(tool, 'prompt', names) }))
}

/** A tool as the pool hands it to a format: deferred or sent in full, and its text when already asked. */
export interface PlannedTool {
  tool: Tool
  deferred: boolean
  prompt?: string
}

/**
 * A tool's text as it is sent: the one its kernel's pool resolved (the tool is the pool's view of
 * it), or, outside a kernel, its `description()` / `prompt()` asked now with a context of `names`
 * (default: the tool alone) in mode 'default' at the process's working directory.
 *
 * @throws TypeError for an asynchronous text outside a kernel (a kernel resolves it when it
 * assembles its pool); DescriptionError naming the tool for one that fails.
 */
export function textOf(tool: Tool, which: 'description' | 'prompt', names?: readonly string[]): string {
  const resolved = viewTexts(tool)
  if (resolved !== undefined) return resolved[which]
  let answer: unknown
  try {
    answer = tool[which](outsideContext(tool, names))
  } catch (error) {
    throw new DescriptionError(tool.name, which, `failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
  if (typeof answer === 'string') return answer
  if (isThenable(answer)) {
    Promise.resolve(answer).catch(() => undefined)
    throw new TypeError(
      `tool "${tool.name}": ${which}() is asynchronous, so only a kernel can send it (it resolves it when it assembles its pool): use kernel.apiTools() after await kernel.ready()`,
    )
  }
  throw new DescriptionError(tool.name, which, `answered ${answer === null ? 'null' : typeof answer}, not a string`)
}

/** A zero-argument text never reads its context: it gets this one instead of a schema built for nothing. */
const UNREAD: DescribeContext = Object.freeze({
  tools: [],
  mode: 'default',
  cwd: '',
  inputSchema: { type: 'object' as const },
})

function outsideContext(tool: Tool, names: readonly string[] | undefined): DescribeContext {
  if (tool.description.length === 0 && tool.prompt.length === 0) return UNREAD
  return { tools: names ?? [tool.name], mode: 'default', cwd: process.cwd(), inputSchema: inputJsonSchema(tool) }
}

export function anthropicTool({ tool, deferred, prompt }: PlannedTool): AnthropicApiTool {
  const description = prompt ?? textOf(tool, 'prompt')
  const entry: AnthropicApiTool = { name: tool.name, description, input_schema: inputJsonSchema(tool) }
  if (deferred) entry.defer_loading = true
  const examples = tool.inputExamples ?? []
  if (examples.length > 0) entry.input_examples = examples.map((example) => ({ ...example }))
  return entry
}

export function openAIChatTool({ tool, prompt }: PlannedTool): OpenAIChatApiTool {
  const parameters = inputJsonSchema(tool)
  const description = prompt ?? textOf(tool, 'prompt')
  const fn: OpenAIChatApiTool['function'] = { name: tool.name, description, parameters }
  if (strictCompatible(parameters)) fn.strict = true
  return { type: 'function', function: fn }
}

export function openAIResponsesTool({ tool, deferred, prompt }: PlannedTool): OpenAIResponsesFunctionTool {
  const parameters = inputJsonSchema(tool)
  const entry: OpenAIResponsesFunctionTool = {
    type: 'function',
    name: tool.name,
    description: prompt ?? textOf(tool, 'prompt'),
    parameters,
    strict: strictCompatible(parameters),
  }
  if (deferred) entry.defer_loading = true
  return entry
}

/** The characters `jsonInMarkup` escapes; outside JSON strings a definition has none of them. */
const MARKUP = /[<>&\u2028\u2029]/g

/**
 * JSON for a tool definition framed in text (`<function>…</function>` in ToolSearch's OpenAI Chat
 * answer): `<`, `>` and `&`, and the line separators U+2028/U+2029, are written as `\u` escapes,
 * so a description a server wrote cannot close the frame and put its own text outside it. The
 * JSON means exactly the same (`JSON.parse` gives the same value).
 *
 * @example
 * jsonInMarkup({ d: '</function>' }) // '{"d":"\u003c/function\u003e"}'
 */
export function jsonInMarkup(value: unknown): string {
  return JSON.stringify(value).replace(MARKUP, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** ToolSearch as the Responses API's client-executed `tool_search`: its description and parameters. */
export function openAIResponsesToolSearch(toolSearch: Tool): OpenAIResponsesToolSearch {
  return {
    type: 'tool_search',
    execution: 'client',
    description: textOf(toolSearch, 'prompt'),
    parameters: inputJsonSchema(toolSearch),
  }
}

// Keywords OpenAI's strict mode does not take: a schema using one is sent without `strict`.
const NOT_STRICT = ['default', 'not', 'if', 'then', 'else', 'patternProperties', 'propertyNames', 'dependentRequired']

/**
 * Whether OpenAI's strict mode can take the schema as it is: every object closed
 * (`additionalProperties: false`) with every property required, and no keyword strict mode
 * rejects. An optional field makes it non-strict: rewriting optionals into nullables would change
 * what the tool receives, so the kernel sends such a tool without `strict` instead.
 */
export function strictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(strictCompatible)
  if (schema === null || typeof schema !== 'object') return true
  const node = schema as Record<string, unknown>
  if (NOT_STRICT.some((key) => key in node)) return false
  if (node.type === 'object' || 'properties' in node) {
    const properties = (node.properties ?? {}) as Record<string, unknown>
    const required = Array.isArray(node.required) ? node.required : []
    if (node.additionalProperties !== false) return false
    if (!Object.keys(properties).every((key) => required.includes(key))) return false
  }
  const children = Object.entries(node).filter(([key]) => !['const', 'enum', 'properties', 'required'].includes(key))
  const properties = Object.values((node.properties ?? {}) as Record<string, unknown>)
  return children.every(([, value]) => strictCompatible(value)) && properties.every(strictCompatible)
}
