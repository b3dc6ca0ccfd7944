/** The validate step: the tool's zod schema (strict objects), then its own validateInput. */
import type { Failure, ToolCallContext, ToolCallEvent } from '../../machines/tool-call.types.js'
import { describeIssues, schemaHint } from '../../tools/input-errors.js'
import * as text from '../../tools/result-text.js'
import { inputJsonSchema } from '../../tools/to-api-format.js'
import type { Tool } from '../../tools/tool.types.js'
import { guarded } from '../../util/guarded.js'
import { attempt, toolContextOf, type ResolvedStepArgs } from './call-env.js'

/** Schema validation: changes the context only when the input is invalid. */
export function validateSchemaStep({ env, tool }: ResolvedStepArgs): Partial<ToolCallContext> | undefined {
  const checked = checkSchema(tool, env.rawInput)
  if (!checked.ok) return { failure: checked.failure }
  env.input = checked.input
  return undefined
}

/** Schema validation, shared by the validate step and input rewritten by permission or hooks. */
export function checkSchema(
  tool: Tool,
  input: unknown,
): { ok: true; input: unknown } | { ok: false; failure: Failure } {
  const schema = tool.inputSchema
  if (schema === undefined) return { ok: true, input }
  const result = schema.safeParse(input)
  if (result.success) return { ok: true, input: result.data }
  const problems = describeIssues(result.error.issues, input)
  return {
    ok: false,
    failure: {
      step: 'validate',
      code: 'invalid_input',
      message: text.invalidInputText(tool.name, problems, hintFor(tool)),
    },
  }
}

export function runValidateInputStep({ context, self, env, tool }: ResolvedStepArgs): ToolCallEvent | undefined {
  const reject = (message: string): ToolCallEvent => ({
    type: 'validateInput.done',
    failure: {
      step: 'validate',
      code: 'validate_input',
      message: text.validateInputText(tool.name, message),
    } satisfies Failure,
  })
  return attempt(
    self,
    () =>
      tool.validateInput?.(env.input, toolContextOf(env, context.turnId, context.toolUseId)) ?? {
        result: true as const,
      },
    (answer) => (answer.result ? { type: 'validateInput.done' } : reject(answer.message)),
    (error) => reject(`its validator failed (${text.describeError(error)})`),
  )
}

/** A short description of the schema for error texts. */
export function hintFor(tool: Tool): string {
  return guarded(
    () => schemaHint(inputJsonSchema(tool) as Parameters<typeof schemaHint>[0]),
    '(see the tool description)',
  )
}
