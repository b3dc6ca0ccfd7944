/**
 * `inputExamples` are checked when the tool is built: an example the schema rejects would teach
 * the model a call that fails, so it is the tool author's bug and throws at `buildTool`.
 */
import type { z } from 'zod'
import { describeIssues, parseInput } from '../input-errors.js'
import { describeError } from '../result-text.js'
import type { JsonSchemaObject, ToolDef } from '../tool.types.js'

/**
 * The examples, copied, once each one passes the input schema (zod `safeParse`, or the JSON
 * Schema's `required` and `additionalProperties: false` for tools described without zod).
 *
 * @throws TypeError naming the example and what is wrong with it.
 */
export function checkedExamples<I>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  def: Pick<ToolDef<I, any, any>, 'name' | 'inputExamples' | 'inputJSONSchema'>,
  schema: () => z.ZodType<I> | undefined,
): ReadonlyArray<Record<string, unknown>> {
  const examples = def.inputExamples
  if (examples === undefined) return []
  if (!Array.isArray(examples)) throw new TypeError(`buildTool(${def.name}): inputExamples must be an array of inputs`)
  examples.forEach((example: unknown, i) => {
    const problems = problemsOf(example, schema(), def.inputJSONSchema)
    if (problems.length > 0)
      throw new TypeError(
        `buildTool(${def.name}): inputExamples[${i}] does not match the input schema: ${problems.join('; ')}. ` +
          'Fix the example (the model would learn a call that fails) or the schema.',
      )
  })
  return examples.map((example) => ({ ...example }))
}

function problemsOf(example: unknown, zod: z.ZodType | undefined, json: JsonSchemaObject | undefined): string[] {
  if (example === null || typeof example !== 'object' || Array.isArray(example)) return ['it is not an object']
  if (zod !== undefined) {
    const parsed = parseInput(zod, example)
    if (parsed.ok) return []
    // A refinement's own code threw: said as such, not as the refinement's bare error.
    return 'threw' in parsed
      ? [`checking it, the schema threw (${describeError(parsed.threw)})`]
      : describeIssues(parsed.issues, example)
  }
  return jsonSchemaProblems(example as Record<string, unknown>, json ?? { type: 'object' })
}

/** The top-level checks a JSON Schema object makes (no validator is a runtime dependency). */
function jsonSchemaProblems(example: Record<string, unknown>, schema: JsonSchemaObject): string[] {
  const properties = (schema.properties ?? {}) as Record<string, unknown>
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : []
  const problems = required
    .filter((key): key is string => typeof key === 'string' && !(key in example))
    .map((key) => `missing required field \`${key}\``)
  if (schema.additionalProperties === false)
    for (const key of Object.keys(example))
      if (!Object.hasOwn(properties, key)) problems.push(`unexpected field \`${key}\``)
  return problems
}
