/** The validate step: the tool's zod schema (strict objects), then its own validateInput. */
import type { CallState, Failure } from '../../events/tool-call.steps.js'
import type { Carry } from '../../machines/tool-call.types.js'
import { describeIssues, parseInput, schemaHint } from '../../tools/input-errors.js'
import * as text from '../../tools/result-text.js'
import { inputJsonSchema } from '../../tools/to-api-format.js'
import { outOfModeText, unloadedToolText } from '../../tools/builtin/tool-search.tool.js'
import type { Tool } from '../../tools/tool.types.js'
import { guarded } from '../../util/guarded.js'
import { attempt, idsOf, toolContextOf, toolOf, type CallScope, type Decided, type StepFn } from './call-scope.js'

/**
 * Schema validation, then the tool's own `validateInput` (which may be async). A deferred tool
 * called before it was loaded is checked against its full schema all the same: a valid call runs,
 * an invalid one is told to load the tool first — and either way the tool is loaded
 * (`tool.loaded`, how: call), so the next request carries its schema.
 */
export const validateStep: StepFn = (call, state) => {
  const tool = toolOf(call, state)
  const loader = call.services.registry.loader
  const mode = loader?.outOfMode(tool.name)
  if (mode !== undefined)
    return rejected(call, { step: 'validate', code: 'tool_disabled', message: outOfModeText(tool.name, mode) })
  const unloaded = loader?.isUnloaded(tool.name) === true
  if (unloaded) loader?.load(tool.name, idsOf(call))
  const withHint = (message: string) => (unloaded ? `${message}\n\n${unloadedToolText(tool.name)}` : message)
  // The turn already ran this tool's schema on this input (for its safety check): not twice.
  const checked =
    call.validated?.tool === tool ? { ok: true as const, input: call.validated.input } : checkSchema(tool, state.input)
  if (!checked.ok) return rejected(call, { ...checked.failure, message: withHint(checked.failure.message) })
  const valid: Decided = { events: [{ type: 'tool.validated', ...idsOf(call) }], carry: { input: checked.input } }
  if (tool.validateInput === undefined) return valid
  const reject = (message: string): Decided =>
    rejected(call, { step: 'validate', code: 'validate_input', message: text.validateInputText(tool.name, message) })
  return attempt(
    () => tool.validateInput?.(checked.input, toolContextOf(call)) ?? { result: true as const },
    (answer) => (answer.result ? valid : reject(withHint(answer.message))),
    (error) => reject(`its validator failed (${text.describeError(error)})`),
  )
}

/** A failure before the call ran, as the log records it. */
export function rejected(call: CallScope, failure: Failure): Decided {
  const { step, code, message } = failure
  return { events: [{ type: 'tool.rejected', ...idsOf(call), step, code, message }] }
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

/**
 * The input as the schema accepted it: what the previous step handed on, else the state's input
 * parsed again (the same answer: a schema is a pure function). The state's input passed the
 * schema before any step after validate ran, so a failure here is a bug.
 */
export function acceptedInput(call: CallScope, tool: Tool, state: CallState, carry: Carry): unknown {
  if ('input' in carry) return carry.input
  const checked = checkSchema(tool, state.input)
  if (!checked.ok) throw new Error(`tool call ${call.toolUseId}: its input no longer passes the schema after validate`)
  return checked.input
}

/** A short description of the schema for error texts. */
export function hintFor(tool: Tool): string {
  return guarded(
    () => schemaHint(inputJsonSchema(tool) as Parameters<typeof schemaHint>[0]),
    '(see the tool description)',
  )
}
