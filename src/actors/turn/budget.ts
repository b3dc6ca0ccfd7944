/**
 * The budget step: output too large for the conversation is saved to the result store, and the
 * model gets a preview with its head and tail (errors sit at the end), the sizes and the path.
 *
 * Two limits: the tool's own `maxResultSizeChars` (Infinity: never persisted, e.g. Read), and
 * the turn's message budget, shared by its calls. Results are final once emitted, so the message
 * budget is applied as results arrive: a result that would take the message past its budget is
 * persisted (see docs/decisions.md, 15).
 */
import type { ToolResultBlock } from '../../events/event.schema.js'

export const DEFAULT_MESSAGE_BUDGET_CHARS = 200_000
/** Characters of the head and of the tail kept in a preview. */
export const PREVIEW_CHARS = 2_000

/** What a turn's calls have put into its message so far. */
export interface TurnBudget {
  readonly limit: number
  used: number
}

/** The text a block puts into the conversation. */
export function textOf(block: ToolResultBlock): string {
  return typeof block.content === 'string'
    ? block.content
    : block.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n')
}

/** Whether this output must be persisted; reserves its room in the message when it need not. */
export function claimBudget(budget: TurnBudget, chars: number, maxResultSizeChars: number): boolean {
  if (maxResultSizeChars === Infinity) {
    budget.used += chars
    return false
  }
  if (chars > maxResultSizeChars || budget.used + chars > budget.limit) return true
  budget.used += chars
  return false
}

/** The preview the model gets instead of the whole output. */
export function previewOf(text: string, path: string | undefined, saveError?: string): string {
  const lines = text.split('\n').length
  const where =
    path !== undefined
      ? `the full output is saved to ${path} — read parts of it with Read (offset and limit) or search it with Grep`
      : `it could not be saved (${saveError ?? 'no result store'}), so only its beginning and end are shown`
  const head = text.slice(0, PREVIEW_CHARS)
  // Never overlapping the head: a text shorter than both is shown once.
  const tail = text.slice(Math.max(head.length, text.length - PREVIEW_CHARS))
  const omitted = text.length - head.length - tail.length
  return [
    `Output too large to show whole (${text.length} characters, ${lines} lines); ${where}.`,
    '',
    `First ${head.length} characters:`,
    head,
    `[… ${omitted} characters omitted …]`,
    `Last ${tail.length} characters:`,
    tail,
  ].join('\n')
}
