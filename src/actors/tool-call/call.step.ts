/**
 * The call step: runs the tool itself, outside XState's actor machinery (one promise, no child
 * actor). Its `call.done` says whether the budget step follows, which the budget step measures.
 */
import type { Tool, ToolContext } from '../../tools/tool.types.js'
import { callDone } from './budget.step.js'
import { controllerOf, sendIfActive, toolContextOf, type ResolvedStepArgs, type StepArgs } from './call-env.js'
import { toolErrorText } from '../../tools/result-text.js'
import { classifyToolError } from '../../events/error-class.js'

export function runCallStep(args: ResolvedStepArgs): void {
  const { log } = args.env.services
  if (log.fence === undefined) return startTool(args)
  // Write-ahead: what led to this side effect is durable before the side effect starts.
  log.fence().then(
    () => {
      const snapshot = args.self.getSnapshot() as { status: string; matches(state: string): boolean }
      if (snapshot.status !== 'active' || !snapshot.matches('call')) return
      // Interrupted while it waited for the fence: even a 'block' tool has not started, so it never does.
      const reason = args.env.abortRequested
      if (reason === undefined) return startTool(args)
      sendIfActive(args.self, { type: 'call.failed', failure: { step: 'call', code: 'cancelled', message: reason } })
    },
    (error: unknown) =>
      sendIfActive(args.self, {
        type: 'call.failed',
        failure: { step: 'call', code: 'cancelled', message: fenceFailedText(args.tool.name, error) },
      }),
  )
}

function fenceFailedText(name: string, error: unknown): string {
  const why = error instanceof Error ? error.message : String(error)
  return `${name} was not run: the event log could not store the call before it ran (${why}), and a tool runs only once its call is recorded. Start a new session over a working log.`
}

function startTool({ self, env, tool }: ResolvedStepArgs): void {
  env.started = true
  invokeTool(tool, env.input, toolContextOf(env, env.turnId, env.toolUseId)).then(
    (output) => {
      env.output = output
      sendIfActive(self, callDone(env, tool, env.toolUseId))
    },
    (error: unknown) => {
      sendIfActive(self, {
        type: 'call.failed',
        failure: {
          step: 'call',
          code: 'tool_error',
          message: toolErrorText(tool.name, error),
          errorClass: classifyToolError(error),
        },
      })
    },
  )
}

/**
 * Aborts the call's signal: a running 'cancel' tool stops, hook processes are killed, a pending
 * permission prompt learns it is no longer wanted.
 */
export function abortCallStep({ context, env }: StepArgs): void {
  controllerOf(env).abort(context.failure?.message ?? 'interrupted')
}

/** Runs `tool.call`, draining an async generator's yields as progress. */
export async function invokeTool(tool: Tool, input: unknown, context: ToolContext): Promise<unknown> {
  const result = tool.call(input, context)
  if (isAsyncGenerator(result)) {
    for (;;) {
      const step = await result.next()
      if (step.done === true) return step.value
      context.onProgress(step.value)
    }
  }
  return await result
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, unknown, void> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as AsyncGenerator).next === 'function' &&
    Symbol.asyncIterator in value
  )
}
