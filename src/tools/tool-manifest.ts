/**
 * What a log records of each tool (session.configured): enough to replay the log without the
 * app's code — the name and aliases the registry resolved, a fingerprint of the schema the model
 * saw, the traits that do not depend on the input, whether the pool defers it, and the definition
 * the model was given (description, input JSON Schema, search hint, examples). A deferred pool's
 * `pool.assembled` hashes the definitions and ToolSearch ranks by them, so a stand-in must carry
 * them byte for byte for the log to replay.
 */
import { createHash } from 'node:crypto'
import { guarded } from '../util/guarded.js'
import { inputJsonSchema, textOf } from './to-api-format.js'
import type { Tool } from './tool.types.js'
import { canonicalJson } from '../util/canonical-json.js'

export interface ToolManifest {
  name: string
  aliases: string[]
  schema: string
  interrupt: 'cancel' | 'block'
  cascades: boolean
  validates: boolean
  /** null for Infinity (JSON has no Infinity). */
  maxResultSizeChars: number | null
  /** The pool defers it (`shouldDefer` and not `alwaysLoad`); absent otherwise. */
  defer?: true
  /** It needs a person's answer (`requiresUserInteraction`); absent otherwise. */
  person?: true
  /** What the model is sent of the tool. */
  definition?: ToolDefinition
}

export interface ToolDefinition {
  /** The description as sent (the tool's `prompt()`). */
  description: string
  /** The input JSON Schema as sent. */
  inputSchema: Record<string, unknown>
  searchHint?: string
  inputExamples?: Array<Record<string, unknown>>
}

/** The fingerprint of a tool's input schema: sha256 of its canonical JSON, 16 hex digits. */
export function schemaFingerprint(tool: Tool): string {
  const schema = guarded(() => canonicalJson(inputJsonSchema(tool)), 'unavailable')
  return createHash('sha256').update(schema).digest('hex').slice(0, 16)
}

export function toolManifest(tool: Tool): ToolManifest {
  const definition = definitionOf(tool)
  return {
    name: tool.name,
    aliases: [...tool.aliases],
    schema: schemaFingerprint(tool),
    interrupt: guarded(() => tool.interruptBehavior(), 'block') === 'cancel' ? 'cancel' : 'block',
    cascades: tool.cascadesOnFailure === true,
    validates: tool.validateInput !== undefined,
    maxResultSizeChars: Number.isFinite(tool.maxResultSizeChars) ? tool.maxResultSizeChars : null,
    ...(tool.shouldDefer === true && tool.alwaysLoad !== true && { defer: true as const }),
    ...(guarded(() => tool.requiresUserInteraction?.() === true, false) && { person: true as const }),
    ...(definition !== undefined && { definition }),
  }
}

/** The definition as the API formats build it; none when the tool cannot describe itself (nor be offered). */
function definitionOf(tool: Tool): ToolDefinition | undefined {
  const description = guarded(() => textOf(tool, 'prompt'), undefined)
  const inputSchema = guarded(() => inputJsonSchema(tool) as Record<string, unknown>, undefined)
  if (description === undefined || inputSchema === undefined) return undefined
  const examples = tool.inputExamples ?? []
  return {
    description,
    inputSchema,
    ...(tool.searchHint !== undefined && { searchHint: tool.searchHint }),
    ...(examples.length > 0 && { inputExamples: examples.map((example) => ({ ...example })) }),
  }
}
