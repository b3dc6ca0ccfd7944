import { z } from 'zod'
import { guarded } from '../util/guarded.js'
import type { JsonSchemaObject, Tool } from './tool.types.js'

/** One entry of the Anthropic Messages API `tools` request parameter. */
export interface ApiTool {
  name: string
  description: string
  input_schema: JsonSchemaObject
}

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
 * own contract (safety flags, budgets, hints) is exposed.
 *
 * @example
 * await anthropic.messages.create({ model, messages, tools: toAPIFormat([Read, Bash]) })
 */
export function toAPIFormat(tools: readonly Tool[]): ApiTool[] {
  return tools
    .filter((tool) => guarded(() => tool.isEnabled(), false))
    .map((tool) => ({ name: tool.name, description: tool.prompt(), input_schema: inputJsonSchema(tool) }))
}
