/** Runs a tool once: its `call`, with an async generator's yields drained as progress. */
import type { Tool, ToolContext } from '../../tools/tool.types.js'

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
