/** The validate step: the tool's zod schema (strict objects), then its own validateInput. */
import type { Failure, ToolCallContext, ToolCallEvent } from '../../machines/tool-call.types.js'
import { describeIssues, parseInput, schemaHint } from '../../tools/input-errors.js'
import * as text from '../../tools/result-text.js'
import { inputJsonSchema } from '../../tools/to-api-format.js'
import { outOfModeText, unloadedToolText } from '../../tools/builtin/tool-search.tool.js'
import type { Tool } from '../../tools/tool.types.js'
import { guarded } from '../../util/guarded.js'
import { attempt, toolContextOf, type ResolvedStepArgs } from './call-env.js'

/**
 * Schema validation: changes the context only when the input is invalid. A deferred tool called
 * before it was loaded is checked against its full schema all the same: a valid call runs, an
 * invalid one is told to load the tool first — and either way the tool is loaded (`tool.loaded`,
 * how: call), so the next request carries its schema.
 */
export function validateSchemaStep({ env, tool }: ResolvedStepArgs): Partial<ToolCallContext> | undefined {
  const loader = env.services.registry.loader
  const mode = loader?.outOfMode(tool.name)
  if (mode !== undefined)
    return { failure: { step: 'validate', code: 'tool_disabled', message: outOfModeText(tool.name, mode) } }
  const unloaded = loader?.isUnloaded(tool.name) === true
  if (unloaded) loader?.load(tool.name, { turnId: env.turnId, toolUseId: env.toolUseId })
  const checked = checkSchema(tool, env.rawInput)
  if (!checked.ok) {
    if (!unloaded) return { failure: checked.failure }
    return { failure: { ...checked.failure, message: `${checked.failure.message}\n\n${unloadedToolText(tool.name)}` } }
  }
  env.input = checked.input
  return undefined
}

/** Schema validation, shared by the validate step and input rewritten by permission or hooks. */
export function checkSchema(
  tool: Tool,
  input: unknown,
): { ok: true; input: unknown } | { ok: false; failure: Failure } {
  const parsed = parseInput(tool.inputSchema, input)
  if (parsed.ok) return { ok: true, input: parsed.value }
  if ('threw' in parsed) {
    // The tool's own code failed (a refinement that throws); the call does not run.
    const message = text.schemaThrewText(tool.name, text.describeError(parsed.threw))
    return { ok: false, failure: { step: 'validate', code: 'invalid_input', message } }
  }
  const problems = describeIssues(parsed.issues, input)
  return {
    ok: false,
    failure: {
      step: 'validate',
      code: 'invalid_input',
      message: text.invalidInputText(tool.name, problems, hintFor(tool)),
    },
  }
}

export function runValidateInputStep({ self, env, tool }: ResolvedStepArgs): ToolCallEvent | undefined {
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
      tool.validateInput?.(env.input, toolContextOf(env, env.turnId, env.toolUseId)) ?? {
        result: true as const,
      },
    (answer) =>
      answer.result
        ? { type: 'validateInput.done' }
        : reject(loadedByThisCall(env) ? `${answer.message}\n\n${unloadedToolText(tool.name)}` : answer.message),
    (error) => reject(`its validator failed (${text.describeError(error)})`),
  )
}

/**
 * This call loaded its tool (it was deferred and unloaded, see validateSchemaStep): a
 * `validateInput` rejection then gets the same `select:` hint as a schema failure. The log says
 * so; read only on a rejection, back to this turn's start.
 */
function loadedByThisCall(env: ResolvedStepArgs['env']): boolean {
  const events = env.services.log.read()
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]
    if (e === undefined || e.turnId !== env.turnId) continue
    if (e.type === 'tool.loaded' && e.how === 'call' && e.loadedBy === env.toolUseId) return true
    if (e.type === 'turn.started') return false
  }
  return false
}

/** A short description of the schema for error texts. */
export function hintFor(tool: Tool): string {
  return guarded(
    () => schemaHint(inputJsonSchema(tool) as Parameters<typeof schemaHint>[0]),
    '(see the tool description)',
  )
}
