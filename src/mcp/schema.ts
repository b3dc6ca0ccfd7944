/**
 * A server's input schema: kept as sent and validated with ajv (draft-07, or 2020-12 when the
 * schema says so), and normalised for the model APIs, which accept only a plain object schema at
 * the top: a schema with a top-level `oneOf`/`anyOf`/`allOf`/`not`, or one that is not an
 * object schema at all, is sent wrapped under one property and unwrapped before the call.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { JsonSchemaObject } from '../tools/tool.types.js'
import { article, typeName as namedType, valueAt } from '../tools/input-errors.js'

/** The property a wrapped schema puts the server's own input under. */
export const WRAPPED_PROPERTY = 'input'
/** A schema past this many characters of JSON is withheld: it would take most of the model's context. */
export const MAX_SCHEMA_CHARS = 64_000
const COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else'] as const
const DEFINITIONS = ['$defs', 'definitions'] as const

/** A schema ready for use: what is sent, how input is unwrapped, and a validator for the raw schema. */
export interface PreparedSchema {
  /** The schema as the server sent it. */
  readonly raw: Readonly<Record<string, unknown>>
  /** The schema sent to the model (a plain object schema). */
  readonly sent: JsonSchemaObject
  /** Whether the model's input is `{ input: <server input> }`. */
  readonly wrapped: boolean
  /** Problems with the model's input (wrapped or not), in words, fields named as the model sent them. */
  validate(modelInput: unknown): string[]
}

export type SchemaVerdict = { ok: true; schema: PreparedSchema } | { ok: false; reason: string }

const draft07 = new Ajv({ strict: false, allErrors: true, validateFormats: false })
const draft2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })

/**
 * Prepares a server's input schema, or says why it cannot be sent: not a JSON object, an
 * unsupported dialect, a reference outside the schema, too large, or one ajv cannot compile.
 */
export function prepareSchema(schema: unknown): SchemaVerdict {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return { ok: false, reason: 'its inputSchema is not a JSON object' }
  const raw = schema as Record<string, unknown>
  const size = JSON.stringify(raw).length
  if (size > MAX_SCHEMA_CHARS)
    return { ok: false, reason: `its inputSchema is ${size} characters of JSON, more than ${MAX_SCHEMA_CHARS}` }
  const remote = remoteRef(raw)
  if (remote !== undefined)
    return { ok: false, reason: `its inputSchema refers to ${remote} outside itself, which cannot be sent or checked` }
  const compiled = compile(raw)
  if (typeof compiled === 'string') return { ok: false, reason: compiled }
  const wrapped = needsWrapping(raw)
  const sent = wrapped ? wrap(raw) : plain(raw)
  const validate = wrapped
    ? (input: unknown) => wrappedProblems(input) ?? describeErrors(compiled, serverInputOf(input), [WRAPPED_PROPERTY])
    : (input: unknown) => describeErrors(compiled, input, [])
  return { ok: true, schema: { raw, sent, wrapped, validate } }
}

/**
 * A validator for a schema as it is (an output schema, an elicitation form): problems in words,
 * or why the schema cannot be used.
 */
export function rawValidator(
  schema: unknown,
): { ok: true; validate(value: unknown): string[] } | { ok: false; reason: string } {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return { ok: false, reason: 'the schema is not a JSON object' }
  const compiled = compile(schema as Record<string, unknown>)
  if (typeof compiled === 'string') return { ok: false, reason: compiled }
  return { ok: true, validate: (value) => describeErrors(compiled, value, []) }
}

/** The server's input from the model's: unwrapped when the schema was sent wrapped. */
export function serverInput(schema: PreparedSchema, modelInput: unknown): unknown {
  return schema.wrapped ? serverInputOf(modelInput) : modelInput
}

function serverInputOf(modelInput: unknown): unknown {
  return modelInput !== null && typeof modelInput === 'object'
    ? (modelInput as Record<string, unknown>)[WRAPPED_PROPERTY]
    : undefined
}

/** The wrapper's own rules: one field, `input`, and nothing else. */
function wrappedProblems(modelInput: unknown): string[] | undefined {
  if (modelInput === null || typeof modelInput !== 'object') return undefined
  const problems = Object.keys(modelInput)
    .filter((key) => key !== WRAPPED_PROPERTY)
    .map((key) => `unexpected field \`${key}\` (put the whole input in \`${WRAPPED_PROPERTY}\`)`)
  if (!(WRAPPED_PROPERTY in modelInput)) problems.push(`missing required field \`${WRAPPED_PROPERTY}\``)
  return problems.length > 0 ? problems : undefined
}

function compile(raw: Record<string, unknown>): ValidateFunction | string {
  const dialect = typeof raw.$schema === 'string' ? raw.$schema : undefined
  const ajv = dialect !== undefined && /2020-12|2019-09/.test(dialect) ? draft2020 : draft07
  const { $schema: _, $id: __, ...rest } = raw
  try {
    return ajv.compile(rest)
  } catch (error) {
    return `its schema is not a valid JSON Schema (${error instanceof Error ? error.message : String(error)})`
  }
}

function needsWrapping(raw: Record<string, unknown>): boolean {
  // A schema without `type` but with properties is an object schema in practice (many servers send one).
  return (raw.type !== undefined && raw.type !== 'object') || COMBINATORS.some((key) => key in raw)
}

/** The schema minus `$schema`/`$id`, which the model APIs ignore or reject. */
function plain(raw: Record<string, unknown>): JsonSchemaObject {
  const { $schema: _, $id: __, ...rest } = raw
  return { ...rest, type: 'object' }
}

function wrap(raw: Record<string, unknown>): JsonSchemaObject {
  const { $schema: _, $id: __, ...inner } = raw
  // Definitions stay at the root, so `#/$defs/…` references still resolve.
  const definitions: Record<string, unknown> = {}
  for (const key of DEFINITIONS) {
    if (key in inner) {
      definitions[key] = inner[key]
      delete inner[key]
    }
  }
  return {
    type: 'object',
    properties: { [WRAPPED_PROPERTY]: { ...inner, description: wrappedDescription(inner) } },
    required: [WRAPPED_PROPERTY],
    additionalProperties: false,
    ...definitions,
  }
}

function wrappedDescription(inner: Record<string, unknown>): string {
  const own = typeof inner.description === 'string' ? `${inner.description} ` : ''
  return `${own}(The tool's whole input goes in this field.)`
}

/** The first `$ref` that points outside the schema (a URL or another file), if any. */
function remoteRef(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = remoteRef(item)
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const [key, item] of Object.entries(value)) {
    if (key === '$ref' && typeof item === 'string' && !item.startsWith('#')) return item
    const found = remoteRef(item)
    if (found !== undefined) return found
  }
  return undefined
}

const MAX_PROBLEMS = 8

/** ajv's errors in the words the zod errors use: the field, what was wrong, what was expected. */
function describeErrors(validate: ValidateFunction, input: unknown, prefix: readonly string[]): string[] {
  if (validate(input)) return []
  const lines = (validate.errors ?? []).filter(isUseful).map((error) => describeError(error, input, prefix))
  const unique = [...new Set(lines)]
  if (unique.length === 0) return ['the input does not match the schema']
  return unique.length > MAX_PROBLEMS
    ? [...unique.slice(0, MAX_PROBLEMS), `… and ${unique.length - MAX_PROBLEMS} more`]
    : unique
}

/** ajv's "must match the then schema" adds nothing to the error inside that branch. */
function isUseful(error: ErrorObject): boolean {
  return error.keyword !== 'if'
}

function describeError(error: ErrorObject, input: unknown, prefix: readonly string[]): string {
  const path = error.instancePath.split('/').slice(1).map(unescapePointer)
  const shown = [...prefix, ...path]
  const field = shown.length > 0 ? `\`${shown.join('.')}\`` : 'the input'
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return `missing required field \`${[...shown, String(params.missingProperty)].join('.')}\``
    case 'additionalProperties':
      return `unexpected field \`${[...shown, String(params.additionalProperty)].join('.')}\``
    case 'type':
      return `${field} must be ${article(String(params.type))}, got ${typeName(valueAt(input, path))}`
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')
      return `${field} must be one of ${allowed}, got ${JSON.stringify(valueAt(input, path))}`
    }
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}, got ${JSON.stringify(valueAt(input, path))}`
    case 'oneOf':
    case 'anyOf':
      return `${field} must match one of the alternatives the schema allows (${error.keyword})`
    default:
      return `${field} ${error.message ?? 'is invalid'}`
  }
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}

function typeName(value: unknown): string {
  return value === undefined ? 'nothing' : namedType(value)
}
