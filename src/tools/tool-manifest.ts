/**
 * What a log records of each tool (session.configured): enough to replay the log without the
 * app's code — the name and aliases the registry resolved, a fingerprint of the schema the model
 * saw, and the traits that do not depend on the input.
 */
import { createHash } from 'node:crypto'
import { guarded } from '../util/guarded.js'
import { inputJsonSchema } from './to-api-format.js'
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
}

/** The fingerprint of a tool's input schema: sha256 of its canonical JSON, 16 hex digits. */
export function schemaFingerprint(tool: Tool): string {
  const schema = guarded(() => canonicalJson(inputJsonSchema(tool)), 'unavailable')
  return createHash('sha256').update(schema).digest('hex').slice(0, 16)
}

export function toolManifest(tool: Tool): ToolManifest {
  return {
    name: tool.name,
    aliases: [...tool.aliases],
    schema: schemaFingerprint(tool),
    interrupt: guarded(() => tool.interruptBehavior(), 'block') === 'cancel' ? 'cancel' : 'block',
    cascades: tool.cascadesOnFailure === true,
    validates: tool.validateInput !== undefined,
    maxResultSizeChars: Number.isFinite(tool.maxResultSizeChars) ? tool.maxResultSizeChars : null,
  }
}
