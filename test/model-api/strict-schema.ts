/**
 * OpenAI's checks on a function tool (Chat `tools[i].function`, Responses `tools[i]`): the name
 * pattern, and under `strict: true` the Structured Outputs subset — every object closed
 * (`additionalProperties: false`) and every property listed in `required` — with the API's words.
 */
import { ApiError } from './http.js'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

function error(message: string, param: string, code: string): ApiError {
  return new ApiError(400, { error: { message, type: 'invalid_request_error', param, code } })
}

/** Checks one function definition; `strictByDefault` is the Responses API's default. */
export function checkFunctionTool(fn: Json, at: string, strictByDefault = false): void {
  if (typeof fn.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name))
    throw error(
      `Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      `${at}.name`,
      'invalid_value',
    )
  const parameters = fn.parameters
  if (parameters === undefined || parameters === null) return
  if (!isObject(parameters) || parameters.type !== 'object')
    throw error(
      `Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(isObject(parameters) ? parameters.type : parameters)}"'.`,
      `${at}.parameters`,
      'invalid_function_parameters',
    )
  const strict = fn.strict ?? strictByDefault
  if (strict !== true) return
  const problem = strictProblem(parameters, [])
  if (problem !== undefined)
    throw error(
      `Invalid schema for function '${fn.name}': ${problem}`,
      `${at}.parameters`,
      'invalid_function_parameters',
    )
}

/** The first place a schema leaves the strict subset, in the API's words, or undefined. */
function strictProblem(schema: Json, path: readonly string[]): string | undefined {
  const context = `In context=(${path.map((p) => `'${p}'`).join(', ')})`
  if (schema.type === 'object' || isObject(schema.properties)) {
    if (schema.additionalProperties !== false)
      return `${context}, 'additionalProperties' is required to be supplied and to be false.`
    const keys = Object.keys(isObject(schema.properties) ? schema.properties : {})
    const required = Array.isArray(schema.required) ? schema.required : []
    const missing = keys.find((key) => !required.includes(key))
    if (missing !== undefined)
      return `${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`
    for (const key of keys) {
      const child = (schema.properties as Json)[key]
      const inner = isObject(child) ? strictProblem(child, [...path, 'properties', key]) : undefined
      if (inner !== undefined) return inner
    }
  }
  if (isObject(schema.items)) return strictProblem(schema.items, [...path, 'items'])
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key]
    if (!Array.isArray(options)) continue
    for (const [i, option] of options.entries()) {
      const inner = isObject(option) ? strictProblem(option, [...path, key, String(i)]) : undefined
      if (inner !== undefined) return inner
    }
  }
  return undefined
}
