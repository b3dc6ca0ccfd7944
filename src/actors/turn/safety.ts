/**
 * Decides whether a call may run beside others. Fail-closed: unknown tool, input that does not
 * parse, or a predicate that throws or answers anything but `true` all mean "unsafe".
 */
import { parseInput } from '../../tools/input-errors.js'
import type { ToolRegistry } from '../../tools/tool-registry.js'
import type { PredicateContext, Tool } from '../../tools/tool.types.js'

export interface Safety {
  safe: boolean
  /** Why a call counts as unsafe when it is not the tool's own plain answer. */
  reason?: string
}

export interface Classified {
  safety: Safety
  /** The tool and its validated input, when both exist (what early start looks at). */
  tool?: Tool
  input?: unknown
}

export function classifySafety(
  registry: ToolRegistry,
  name: string,
  input: unknown,
  inputError: string | undefined,
  context: PredicateContext,
): Classified {
  const tool = registry.find(name)
  if (tool === undefined) return { safety: { safe: false, reason: 'unknown tool' } }
  if (inputError !== undefined) return { safety: { safe: false, reason: 'input is not valid JSON' } }
  const checked = parseInput(tool.inputSchema, input)
  if (!checked.ok) return { safety: { safe: false, reason: 'input does not validate' } }
  const parsed = checked.value
  try {
    return { safety: tool.isConcurrencySafe(parsed, context) === true ? SAFE : UNSAFE, tool, input: parsed }
  } catch {
    return { safety: { safe: false, reason: 'isConcurrencySafe threw' }, tool, input: parsed }
  }
}

const SAFE: Safety = Object.freeze({ safe: true })
const UNSAFE: Safety = Object.freeze({ safe: false })
