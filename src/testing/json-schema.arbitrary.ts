/**
 * Values for a JSON Schema, drawn by fast-check: the valid inputs of a tool derived from the
 * schema the model sees (`inputJsonSchema`), and invalid ones made from valid ones by one
 * change a model really makes (a missing required key, a wrong type, not an object at all).
 *
 * Covers what tool schemas use: object (properties, required, additionalProperties), string
 * (length, enum, pattern, format-free), number and integer (bounds), boolean, null, array
 * (items, length), enum, const, anyOf/oneOf, type lists. What it does not understand it draws
 * as any JSON value, so a schema it cannot read makes inputs that may be invalid — the
 * kernel's validate step answers those, which is still a useful run.
 */
import fc from 'fast-check'

type Schema = Record<string, unknown>

const MAX_DEPTH = 4

/** Valid values of `schema` (as far as the keywords above go). */
export function arbitraryForSchema(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true || schema === undefined) return fc.jsonValue({ maxDepth: 2 })
  if (schema === null || typeof schema !== 'object') return fc.jsonValue({ maxDepth: 2 })
  const s = schema as Schema
  if ('const' in s) return fc.constant(s.const)
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]))
  const choices = (s.anyOf ?? s.oneOf) as unknown[] | undefined
  if (Array.isArray(choices) && choices.length > 0) return fc.oneof(...choices.map((c) => arbitraryForSchema(c, depth)))
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type) => arbitraryForSchema({ ...s, type }, depth)))
  switch (s.type) {
    case 'object':
      return objectArbitrary(s, depth)
    case 'string':
      return stringArbitrary(s)
    case 'integer':
      return fc.integer({ min: bound(s, 'minimum', -1_000), max: bound(s, 'maximum', 1_000) })
    case 'number':
      return fc.double({
        min: bound(s, 'minimum', -1_000),
        max: bound(s, 'maximum', 1_000),
        noNaN: true,
        noDefaultInfinity: true,
      })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return depth >= MAX_DEPTH
        ? fc.constant([])
        : fc.array(arbitraryForSchema(s.items, depth + 1), {
            minLength: bound(s, 'minItems', 0),
            maxLength: Math.min(bound(s, 'maxItems', 4), bound(s, 'minItems', 0) + 4),
          })
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

function bound(s: Schema, key: string, fallback: number): number {
  const value = s[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback
}

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern))
    } catch {
      // A pattern JavaScript cannot compile: draw plain strings, the validate step judges them.
    }
  }
  const minLength = bound(s, 'minLength', 0)
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(bound(s, 'maxLength', 24), minLength + 24)) })
}

function objectArbitrary(s: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Schema
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : [])
  if (depth >= MAX_DEPTH) return fc.constant({})
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [key, value] of Object.entries(properties)) model[key] = arbitraryForSchema(value, depth + 1)
  return fc.record(model, { requiredKeys: Object.keys(properties).filter((key) => required.has(key)) })
}

/** The one change that makes a valid input invalid, for a counterexample's description. */
export type InputMutation = 'missing-required' | 'wrong-type' | 'not-an-object'

/**
 * Invalid values made from valid ones: a required key removed, a property of the wrong type, or
 * not an object at all. For a schema with nothing required and no typed properties only the
 * last is certain to be invalid, so that is what it draws then.
 */
export function invalidForSchema(schema: unknown): fc.Arbitrary<unknown> {
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as Schema
  const required = Array.isArray(s.required) ? (s.required as string[]) : []
  const properties = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Schema
  const typed = Object.entries(properties).filter(([, p]) => typeof (p as Schema).type === 'string')
  const notAnObject = fc.constantFrom<unknown>('a string', 42, null, [], true)
  const options: Array<fc.Arbitrary<unknown>> = [notAnObject]
  const valid = arbitraryForSchema(schema) as fc.Arbitrary<Record<string, unknown>>
  if (required.length > 0) {
    options.push(
      fc.tuple(valid, fc.constantFrom(...required)).map(([value, key]) => {
        const copy = { ...value }
        delete copy[key]
        return copy
      }),
    )
  }
  if (typed.length > 0) {
    options.push(
      fc.tuple(valid, fc.constantFrom(...typed)).map(([value, [key, p]]) => ({
        ...value,
        [key]: wrongTypeFor((p as Schema).type as string),
      })),
    )
  }
  return fc.oneof(...options)
}

function wrongTypeFor(type: string): unknown {
  return type === 'string' ? 12345 : 'not-a-' + type
}
