/**
 * Input checks a replay cannot make. A tool replayed without its schema (a stand-in built from
 * the log, see the CLI's `--tools`) can say which inputs the log shows rejected, but not in the
 * schema's words: the rejection's text is the log's, taken as given and reported, not compared.
 * Everything else about the call — that it was rejected, where, what ran around it — is compared.
 */
import type { EventOf, KernelEvent, KernelEventInput, Step } from '../events/event.schema.js'

/** An input check the replay left to the log. */
export interface NotChecked {
  turnId: string
  toolUseId: string
  tool: string
  /** Position (seq) in the recorded log of the rejection. */
  position: number
  /** The step whose check it was: `validate`, or a hook's or a permission's rewritten input. */
  step: Step
  /** What the log says the check found. */
  message: string
}

/**
 * The input rejections (`invalid_input`) a turn recorded for calls of `tools`, in log order.
 *
 * @example
 * inputRejections(turnEvents, new Set(['AddNote'])) // [{ toolUseId: 'toolu_1', step: 'validate', … }]
 */
export function inputRejections(turn: readonly KernelEvent[], tools: ReadonlySet<string>): NotChecked[] {
  if (tools.size === 0) return []
  const toolOf = new Map<string, string>()
  const found: NotChecked[] = []
  for (const event of turn) {
    if (event.type === 'tool.parsed') toolOf.set(event.toolUseId, event.tool)
    if (event.type !== 'tool.rejected' || event.code !== 'invalid_input') continue
    const tool = toolOf.get(event.toolUseId)
    if (tool === undefined || !tools.has(tool)) continue
    const { turnId, toolUseId, seq: position, step, message } = event
    found.push({ turnId, toolUseId, tool, position, step, message })
  }
  return found
}

/**
 * `event` without the texts a not-checked rejection gave it (the rejection's message and the
 * result block that carries it), so that both sides of the comparison leave them out alike.
 */
export function withoutGivenText(event: KernelEventInput, given: ReadonlySet<string>): KernelEventInput {
  if (!('toolUseId' in event) || !given.has(event.toolUseId)) return event
  if (event.type === 'tool.rejected' && event.code === 'invalid_input') {
    const { message: _message, ...rest } = event
    return rest as KernelEventInput
  }
  if (event.type === 'tool.result') {
    const { content: _content, ...block } = (event as EventOf<'tool.result'>).block
    return { ...event, block } as KernelEventInput
  }
  return event
}
