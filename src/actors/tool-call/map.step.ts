/** The map step: tool output, or the reason a call ended early, becomes one `tool_result` block. */
import { ToolResultBlockSchema, toolResultBlock, type ToolResultBlock } from '../../events/event.schema.js'
import { failedBeforeCall, type CallState, type Failure } from '../../events/tool-call.steps.js'
import type { Tool } from '../../tools/tool.types.js'
import * as text from '../../tools/result-text.js'
import { defaultMapper } from '../../tools/build-tool.js'
import { idsOf, partialOutput, toolOf, withContext, type CallScope, type StepFn } from './call-scope.js'

/** The block from what the call step handed on (or its preview), or from the call's failure. */
export const mapStep: StepFn = (call, state, carry) => {
  const ids = idsOf(call)
  if (state.failure !== null) {
    const block = withContext(failureBlock(call, state, state.failure), state.contexts)
    return { events: [{ type: 'tool.mapped', ...ids, isError: true }], carry: { ...carry, block } }
  }
  const tool = toolOf(call, state)
  try {
    if ('mapError' in carry) throw carry.mapError
    const mapped = carry.block ?? mapOutput(tool, carry.output, call.toolUseId)
    const block = withContext(normalise(mapped, tool, call.toolUseId), state.contexts)
    return { events: [{ type: 'tool.mapped', ...ids, isError: block.is_error === true }], carry: { ...carry, block } }
  } catch (error) {
    const message = `${tool.name} ran, but its result could not be turned into text: ${text.describeError(error)}`
    const block = withContext(failureBlock(call, state, { step: 'map', code: 'tool_error', message }), state.contexts)
    return { events: [{ type: 'tool.mapped', ...ids, isError: true, failure: message }], carry: { ...carry, block } }
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

function failureBlock(call: CallScope, state: CallState, failure: Failure): ToolResultBlock {
  let content: string
  // A call that never ran answers in `<tool_use_error>` (docs/design.md §Results); the step table knows which.
  if (failedBeforeCall(failure.code)) content = `<tool_use_error>${failure.message}</tool_use_error>`
  else if (failure.code === 'cancelled') content = text.cancelledText(state.name, failure.message)
  else if (failure.code === 'interrupted')
    content = text.interruptedText(state.name, failure.message, partialOutput(call.io))
  else if (failure.code === 'timed_out')
    content = text.timedOutText(state.name, failure.message, partialOutput(call.io))
  else content = failure.message
  return toolResultBlock(call.toolUseId, content, true)
}
