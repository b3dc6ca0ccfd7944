/** The map step: tool output, or the reason a call ended early, becomes one `tool_result` block. */
import { ToolResultBlockSchema, toolResultBlock, type ToolResultBlock } from '../../events/event.schema.js'
import type { Failure, ToolCallContext } from '../../machines/tool-call.types.js'
import type { Tool } from '../../tools/tool.types.js'
import { resolvedTool, type CallEnv, type StepArgs } from './call-env.js'
import * as text from '../../tools/result-text.js'
import { withContext } from './run-hooks.js'
import { failedBeforeCall } from '../../events/tool-call.steps.js'
import { defaultMapper } from '../../tools/build-tool.js'

/** Builds the block into the call's environment; changes the context only when the mapper fails. */
export function mapResultStep({ context, env }: StepArgs): Partial<ToolCallContext> | undefined {
  if (context.failure !== null) {
    env.block = withContext(failureBlock(context.failure, env), env.contexts)
    return undefined
  }
  const tool = resolvedTool(env)
  try {
    const mapped = env.mapped ?? {
      block: mapOutput(tool, env.output, env.toolUseId),
    }
    if ('error' in mapped) throw mapped.error
    env.block = withContext(normalise(mapped.block, tool, env.toolUseId), env.contexts)
    return undefined
  } catch (error) {
    const failure: Failure = {
      step: 'map',
      code: 'tool_error',
      message: `${tool.name} ran, but its result could not be turned into text: ${text.describeError(error)}`,
    }
    env.block = withContext(failureBlock(failure, env), env.contexts)
    return { failure }
  }
}

/**
 * The tool's output as its block: the mapper's answer, checked — unless the mapper is the
 * kernel's own default, which can only build a valid block (a string content), so checking it
 * would only parse again what the kernel just built.
 */
export function mapOutput(tool: Tool, output: unknown, toolUseId: string): ToolResultBlock {
  const mapper = tool.mapToolResultToToolResultBlockParam
  return mapper === defaultMapper ? defaultMapper(output, toolUseId) : checkBlock(mapper(output, toolUseId))
}

/** The mapper's block, checked: a mapper is the tool's code, and its answer a trust boundary. */
export function checkBlock(block: unknown): ToolResultBlock {
  const parsed = ToolResultBlockSchema.safeParse(block)
  if (!parsed.success)
    throw new Error(
      `its mapper returned something that is not a tool_result block (${parsed.error.issues[0]?.message ?? 'invalid'})`,
    )
  return parsed.data
}

function normalise(result: ToolResultBlock, tool: Tool, toolUseId: string): ToolResultBlock {
  const empty = result.content === '' || (Array.isArray(result.content) && result.content.length === 0)
  const content = empty ? text.emptyOutputText(tool.userFacingName()) : result.content
  return toolResultBlock(toolUseId, content, result.is_error === true)
}

function failureBlock(failure: Failure, env: CallEnv): ToolResultBlock {
  const name = env.tool?.name ?? env.name
  let content: string
  // A call that never ran answers in `<tool_use_error>` (DESIGN §6); the step table knows which.
  if (failedBeforeCall(failure.code)) content = `<tool_use_error>${failure.message}</tool_use_error>`
  else if (failure.code === 'cancelled') content = text.cancelledText(name, failure.message)
  else if (failure.code === 'interrupted') content = text.interruptedText(name, failure.message, partialOutput(env))
  else content = failure.message
  return toolResultBlock(env.toolUseId, content, true)
}

function partialOutput(env: CallEnv): string {
  return env.partialCut ? `…${env.partial}` : env.partial
}
