/**
 * What the pre-hook and post-hook steps share: run the matching hooks and apply what they decided
 * together. Each step has its own file (pre-hook.step.ts, post-hook.step.ts).
 */
import type { ToolResultBlock } from '../../events/event.schema.js'
import type { Failure, ToolCallEvent } from '../../machines/tool-call.types.js'
import type { Tool } from '../../tools/tool.types.js'
import { attempt, controllerOf, type CallEnv, type ResolvedStepArgs } from './call-env.js'
import type { HookOutcome, HookRequest } from '../../hooks/hook-runner.js'
import { describeError, hookBlockedText } from '../../tools/result-text.js'
import { checkSchema } from './validate.step.js'

export function runHooksStep(phase: 'pre' | 'post') {
  return ({ context, self, env, tool }: ResolvedStepArgs): ToolCallEvent | undefined => {
    const request: HookRequest = {
      phase,
      turnId: env.turnId,
      toolUseId: env.toolUseId,
      tool,
      input: env.input ?? env.rawInput,
    }
    if (phase === 'post') {
      if (context.failure === null) request.response = env.output
      else {
        request.error = context.failure.message
        request.isInterrupt = context.failure.code === 'interrupted' || context.failure.code === 'cancelled'
      }
    }
    return attempt(
      self,
      () => env.services.hooks.run(request, controllerOf(env).signal),
      (outcome) => (phase === 'pre' ? applyPre(env, tool, outcome) : applyPost(env, outcome)),
      (error) => (phase === 'pre' ? runnerFailedBefore(env, tool, error) : runnerFailedAfter(env, error)),
    )
  }
}

/**
 * The hooks could not be run before the call: it does not run. Hooks are how an app checks calls,
 * and a check that did not happen is not a pass (fail closed).
 */
function runnerFailedBefore(env: CallEnv, tool: Tool, error: unknown): ToolCallEvent {
  const reason = `the hook runner failed (${describeError(error)}), so the hooks could not check the call and it did not run`
  env.hooks.pre = {
    outcome: 'block',
    reason,
    systemMessages: [],
    errors: [`the hook runner failed: ${describeError(error)}`],
  }
  return {
    type: 'preHook.done',
    failure: { step: 'preHook', code: 'hook_blocked', message: hookBlockedText(tool.name, reason) },
  }
}

/** After the call there is nothing left to block: the failure is noted and the result stands. */
function runnerFailedAfter(env: CallEnv, error: unknown): ToolCallEvent {
  env.hooks.post = {
    outcome: 'continue',
    systemMessages: [],
    errors: [`the hook runner failed: ${describeError(error)}`],
  }
  return { type: 'postHook.done' }
}

function applyPre(env: CallEnv, tool: Tool, outcome: HookOutcome): ToolCallEvent {
  env.hooks.pre = outcome
  if (outcome.outcome === 'block')
    return {
      type: 'preHook.done',
      failure: {
        step: 'preHook',
        code: 'hook_blocked',
        message: hookBlockedText(tool.name, outcome.reason ?? 'no reason given'),
      },
    }
  if (outcome.updatedInput !== undefined) {
    // A hook cannot smuggle in a field the schema forbids: rewritten input is validated again.
    const checked = checkSchema(tool, outcome.updatedInput)
    if (!checked.ok) {
      const failure: Failure = {
        ...checked.failure,
        step: 'preHook',
        message: `A PreToolUse hook rewrote the input into one ${tool.name} does not accept, so the call did not run. ${checked.failure.message}`,
      }
      return { type: 'preHook.done', failure }
    }
    env.input = checked.input
  }
  if (outcome.decision !== undefined)
    env.hookSay =
      outcome.reason === undefined
        ? { decision: outcome.decision }
        : { decision: outcome.decision, reason: outcome.reason }
  if (outcome.additionalContext !== undefined) env.contexts.push(outcome.additionalContext)
  return { type: 'preHook.done' }
}

function applyPost(env: CallEnv, outcome: HookOutcome): ToolCallEvent {
  env.hooks.post = outcome
  if (outcome.additionalContext !== undefined && env.block !== undefined)
    env.block = withContext(env.block, [outcome.additionalContext])
  return { type: 'postHook.done' }
}

/** The block with hook context added for the model, as text parts after the tool's own content. */
export function withContext(block: ToolResultBlock, contexts: readonly string[]): ToolResultBlock {
  if (contexts.length === 0) return block
  const parts =
    typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : [...block.content]
  for (const context of contexts) parts.push({ type: 'text', text: `Context from a hook:\n${context}` })
  return { ...block, content: parts }
}
