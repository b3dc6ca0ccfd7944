/**
 * Checks a replay cannot make, left to the log and reported, never compared:
 * - Input checks. A tool replayed without its schema (a stand-in built from the log, see the CLI's
 *   `--tools`) can say which inputs the log shows rejected, but not in the schema's words: the
 *   rejection's text is the log's, taken as given. Everything else about the call — that it was
 *   rejected, where, what ran around it — is compared.
 * - The preview of output the recording saved to the result store, when the saved text cannot be
 *   read back (another machine, a cleaned directory, an app's own store): the budget step gets a
 *   stand-in of the recorded size, so the engine decides as it did, and only the preview, which
 *   quotes the text, is the log's.
 */
import type { EventOf, KernelEvent, KernelEventInput, Step } from '../events/event.schema.js'
import type { Recording } from './recorded.js'

/** A check the replay left to the log. */
export interface NotChecked {
  turnId: string
  toolUseId: string
  tool: string
  /** Position (seq) in the recorded log of the rejection, or of the saved output's `tool.budgeted`. */
  position: number
  /**
   * The step whose check it was: `validate`, or a hook's or a permission's rewritten input; or
   * `budget`, for the preview of a saved output replay could not read back.
   */
  step: Step
  /** What the log says the check found, or why the preview could not be rebuilt. */
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
 * `event` without the texts a check left to the log gave it (a rejection's message, the result
 * block that carries it or a preview), so that both sides of the comparison leave them out alike.
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

/**
 * The text of each output the turn saved to the result store, read back with `readResult`. A text
 * that cannot be read back, or that is no longer as long as the log says it was, is stood in for
 * by one of its characters and lines (the preview's length, which the turn's budget counts,
 * depends on both), and its call is listed in `unread`: its preview is left to the log. A call
 * whose `tool.budgeted` is missing has no size to stand in with: its text is empty (and replay
 * shows the difference).
 *
 * @example
 * savedOutputs('turn_1', indexRecording(turnEvents), readSavedResult)
 * // { texts: Map { 'toolu_1' => 'the saved text' }, unread: [] }
 */
export function savedOutputs(
  turnId: string,
  recording: Recording,
  readResult: (path: string) => string | undefined,
): { texts: Map<string, string>; unread: NotChecked[] } {
  const texts = new Map<string, string>()
  const unread: NotChecked[] = []
  for (const [toolUseId, call] of recording.calls) {
    if (call.completion === undefined || !('persisted' in call.completion)) continue
    const { budgeted } = call
    if (budgeted === undefined) {
      texts.set(toolUseId, '')
      continue
    }
    const text = budgeted.path === undefined ? undefined : readResult(budgeted.path)
    if (text?.length === budgeted.chars) {
      texts.set(toolUseId, text)
      continue
    }
    texts.set(toolUseId, standInText(budgeted.chars, budgeted.lines ?? 1))
    const why =
      budgeted.path === undefined
        ? `the output was not saved (${budgeted.error ?? 'no reason recorded'})`
        : text === undefined
          ? `the saved output ${budgeted.path} is not there to read`
          : `the saved output ${budgeted.path} has changed since (${text.length} characters, not ${budgeted.chars})`
    const message = `${why}, so its preview, which quotes it, is the log's`
    unread.push({ turnId, toolUseId, tool: call.tool ?? '', position: budgeted.position, step: 'budget', message })
  }
  return { texts, unread }
}

/** A text of `chars` characters over `lines` lines: its line breaks, then `…`. */
function standInText(chars: number, lines: number): string {
  const breaks = Math.min(Math.max(lines - 1, 0), chars)
  return '\n'.repeat(breaks) + '…'.repeat(chars - breaks)
}
