/**
 * Decides whether a call may run beside others. Fail-closed: unknown tool, input that does not
 * parse, or a predicate that throws or answers anything but `true` all mean "unsafe".
 */
import type { ToolRegistry } from '../tools/tool-registry.js'

export interface Safety {
  safe: boolean
  /** Why a call counts as unsafe when it is not the tool's own plain answer. */
  reason?: string
}

export function classifySafety(registry: ToolRegistry, name: string, input: unknown, inputError: string | undefined): Safety {
  const tool = registry.find(name)
  if (tool === undefined) return { safe: false, reason: 'unknown tool' }
  if (inputError !== undefined) return { safe: false, reason: 'input is not valid JSON' }
  let parsed = input
  if (tool.inputSchema !== undefined) {
    const result = tool.inputSchema.safeParse(input)
    if (!result.success) return { safe: false, reason: 'input does not validate' }
    parsed = result.data
  }
  try {
    return tool.isConcurrencySafe(parsed) === true ? SAFE : UNSAFE
  } catch {
    return { safe: false, reason: 'isConcurrencySafe threw' }
  }
}

const SAFE: Safety = Object.freeze({ safe: true })
const UNSAFE: Safety = Object.freeze({ safe: false })
