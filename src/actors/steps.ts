/**
 * The step implementations the kernel provides to the tool-call machine. Each reads the call's
 * environment (by actor) and either returns a context update (sync steps) or starts work that
 * answers with an event (async-capable steps).
 */
import type { Failure, PermissionDecision, ToolCallContext, ToolCallEvent } from '../machines/tool-call.types.js'
import { describeIssues, schemaHint } from '../tools/input-errors.js'
import { inputJsonSchema } from '../tools/to-api-format.js'
import { guarded } from '../tools/guarded.js'
import type { Tool } from '../tools/tool.types.js'
import { attempt, toolContextOf, type StepArgs } from './call-env.js'
import * as text from './result-text.js'

/**
 * Finds the tool and checks the input is an object. Changes the context only for what guards
 * must see: a failure, or steps that differ from the common case (hooks, validateInput, a tool
 * that cancels on interrupt).
 */
export function parseStep({ context, env }: StepArgs): Partial<ToolCallContext> | undefined {
  if (context.failure !== null) return undefined
  const { registry, hooks } = env.services
  const tool = registry.find(context.name)
  if (tool === undefined) return fail('parse', 'unknown_tool', text.unknownToolText(context.name, registry.tools.map((t) => t.name)))
  if (!guarded(() => tool.isEnabled(), false)) return fail('parse', 'tool_disabled', text.disabledToolText(tool.name))
  env.tool = tool
  if (env.inputError !== undefined) return fail('parse', 'invalid_json', text.invalidJsonText(tool.name, env.inputError))
  if (!isPlainObject(env.rawInput)) return fail('parse', 'not_an_object', text.notAnObjectText(tool.name, env.rawInput, hintFor(tool)))
  const steps = { customValidation: tool.validateInput !== undefined, preHooks: hooks.has('pre', tool, context.toolUseId), postHooks: hooks.has('post', tool, context.toolUseId) }
  const interrupt = guarded(() => tool.interruptBehavior(), 'block') === 'cancel' ? 'cancel' : 'block'
  if (!steps.customValidation && !steps.preHooks && !steps.postHooks && interrupt === context.interrupt) return undefined
  return { steps, interrupt }
}

/** Schema validation: changes the context only when the input is invalid. */
export function validateSchemaStep({ env }: StepArgs): Partial<ToolCallContext> | undefined {
  const checked = checkSchema(env.tool as Tool, env.rawInput)
  if (!checked.ok) return { failure: checked.failure }
  env.input = checked.input
  return undefined
}

/** Schema validation, shared by the validate step and input rewritten by permission or hooks. */
export function checkSchema(tool: Tool, input: unknown): { ok: true; input: unknown } | { ok: false; failure: Failure } {
  const schema = tool.inputSchema
  if (schema === undefined) return { ok: true, input }
  const result = schema.safeParse(input)
  if (result.success) return { ok: true, input: result.data }
  const problems = describeIssues(result.error.issues, input)
  return { ok: false, failure: { step: 'validate', code: 'invalid_input', message: text.invalidInputText(tool.name, problems, hintFor(tool)) } }
}

export function runValidateInputStep({ context, self, env }: StepArgs): ToolCallEvent | undefined {
  const tool = env.tool as Tool
  const reject = (message: string): ToolCallEvent => ({
    type: 'validateInput.done',
    failure: { step: 'validate', code: 'validate_input', message: text.validateInputText(tool.name, message) } satisfies Failure,
  })
  return attempt(
    self,
    () => tool.validateInput?.(env.input, toolContextOf(env, context.turnId, context.toolUseId)) ?? { result: true as const },
    (answer) => (answer.result ? { type: 'validateInput.done' } : reject(answer.message)),
    (error) => reject(`its validator failed (${text.describeError(error)})`),
  )
}

/**
 * The permission step. A synchronous verdict (the common case: the tool's own check) is
 * returned for the machine to raise at once; an asynchronous one (a prompt) is sent as
 * `permission.done` when it arrives.
 */
export function runPermissionStep({ context, self, env }: StepArgs): ToolCallEvent | undefined {
  const tool = env.tool as Tool
  return attempt(
    self,
    () => env.services.permissions.decide(tool, env.input, toolContextOf(env, context.turnId, context.toolUseId), env.hookSay),
    (verdict) => {
      const decision: PermissionDecision = { behavior: verdict.behavior, source: verdict.source }
      if (verdict.reason !== undefined) decision.reason = verdict.reason
      if (verdict.updatedInput !== undefined) decision.updatedInput = verdict.updatedInput
      if (verdict.behavior !== 'allow') {
        const reason = verdict.reason ?? 'no reason given'
        return { type: 'permission.done', decision, failure: { step: 'permission', code: 'permission_denied', message: text.permissionDeniedText(tool.name, reason) } }
      }
      if (verdict.updatedInput !== undefined) {
        const checked = checkSchema(tool, verdict.updatedInput)
        if (!checked.ok) return { type: 'permission.done', decision, failure: { ...checked.failure, step: 'permission' } }
        env.input = checked.input
      }
      return { type: 'permission.done', decision }
    },
    (error) => ({
      type: 'permission.done',
      decision: { behavior: 'deny', source: 'tool', reason: text.describeError(error) },
      failure: { step: 'permission', code: 'permission_denied', message: text.permissionDeniedText(tool.name, `the permission check failed (${text.describeError(error)})`) },
    }),
  )
}

function fail(step: Failure['step'], code: Failure['code'], message: string): { failure: Failure } {
  return { failure: { step, code, message } }
}

function hintFor(tool: Tool): string {
  return guarded(() => schemaHint(inputJsonSchema(tool) as Parameters<typeof schemaHint>[0]), '(see the tool description)')
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

