/**
 * The budget step: output too large for the conversation is saved to the result store, and the
 * model gets a preview with its head and tail (errors sit at the end), the sizes and the path.
 *
 * Two limits: the tool's own `maxResultSizeChars` (Infinity: never persisted, e.g. Read), and
 * the turn's message budget, shared by its calls. A result that arrives while no sibling runs is
 * claimed at once (docs/decisions/results.md, 16); results that arrive together are decided
 * together, the largest persisted first (docs/decisions/results.md, 154; budget-groups.ts).
 */
import type { ToolResultBlock } from '../../events/event.schema.js'

export const DEFAULT_MESSAGE_BUDGET_CHARS = 200_000
/** Characters of the head and of the tail kept in a preview, at most. */
export const PREVIEW_CHARS = 2_000
/**
 * Output this short is never persisted for the message budget: its preview (a notice of some 250
 * characters, then its ends) would hardly be shorter than the output. The tool's own limit holds.
 */
export const KEEP_WHOLE_CHARS = 1_000

/** What a turn's calls have put into its message so far. */
export interface TurnBudget {
  readonly limit: number
  used: number
  /** Results that arrive together wait for each other (absent: each is claimed as it arrives). */
  readonly groups?: ResultGroups
}

/** What the call step tells the turn's budget groups (budget-groups.ts), and asks them. */
export interface ResultGroups {
  /** The call's tool starts. */
  started(toolUseId: string): void
  /** The tool returned this output: whether it is persisted, at once or once its group is decided. */
  arrived(fresh: Fresh): boolean | Promise<boolean>
  /** The tool answered with nothing to claim for (it failed). */
  answered(toolUseId: string): void
  /** A held call is interrupted: whether its output is persisted, now. */
  claimNow(toolUseId: string): boolean
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
  if (chars > maxResultSizeChars) return true
  if (budget.used + chars > budget.limit && chars > KEEP_WHOLE_CHARS) return true
  budget.used += chars
  return false
}

/** A fresh result, measured: what the message budget decides on. */
export interface Fresh {
  readonly toolUseId: string
  /** Its tool_use order in the turn (ties go to the earlier). */
  readonly index: number
  readonly chars: number
  readonly maxResultSizeChars: number
}

/**
 * Which of the results decided together are persisted, and their room reserved for the rest:
 * output over its tool's own limit always; then, while what is left would take the message past
 * its budget, the largest first (never output of KEEP_WHOLE_CHARS or less, never a tool's whose
 * limit is Infinity). For one result this is `claimBudget`.
 */
export function claimTogether(budget: TurnBudget, fresh: readonly Fresh[]): Set<string> {
  const persisted = new Set<string>()
  const candidates: Fresh[] = []
  let total = 0
  for (const result of fresh) {
    if (result.maxResultSizeChars !== Infinity && result.chars > result.maxResultSizeChars) {
      persisted.add(result.toolUseId)
      continue
    }
    total += result.chars
    if (result.maxResultSizeChars !== Infinity && result.chars > KEEP_WHOLE_CHARS) candidates.push(result)
  }
  candidates.sort((a, b) => b.chars - a.chars || a.index - b.index)
  for (const result of candidates) {
    if (budget.used + total <= budget.limit) break
    persisted.add(result.toolUseId)
    total -= result.chars
  }
  budget.used += total
  return persisted
}

/** What a preview adds around the output's ends, past its first line: headings and the omitted count. */
const FRAME_CHARS = 100

/** How a preview opens: the output was too large for the message, or over its tool's own limit. */
const TOO_LARGE = 'Output too large to show whole'
const OVER_LIMIT = 'Output over its size limit'
const PREVIEW_SIZES = new RegExp(`^(?:${TOO_LARGE}|${OVER_LIMIT}) \\(\\d+ characters, (\\d+) lines\\)`)

/**
 * The output's line count a preview's notice gives, when `text` is a preview (previewOf); replay
 * stands in for a saved output it cannot read with one of the same size.
 *
 * @example
 * previewLineCount('Output too large to show whole (60 characters, 12 lines); …') // 12
 */
export function previewLineCount(text: string): number | undefined {
  const found = PREVIEW_SIZES.exec(text)
  return found === null ? undefined : Number(found[1])
}

/**
 * The preview the model gets instead of the whole output: its first and last PREVIEW_CHARS, fewer
 * when that would make the preview as long as the output, and, when the output was saved, fewer
 * when the preview would take more than `room` characters of the message (down to the notice
 * alone). Output that could not be saved shows its ends whatever the room: it is nowhere else.
 * Output shorter than a preview's frame (a tool's own small limit) is shown whole after the notice.
 */
export function previewOf(text: string, path: string | undefined, saveError?: string, room = Infinity): string {
  const lines = text.split('\n').length
  const where =
    path !== undefined
      ? `the full output is saved to ${path} — read parts of it with Read (offset and limit) or search it with Grep`
      : `it could not be saved (${saveError ?? 'no result store'})`
  const sizes = `(${text.length} characters, ${lines} lines); ${where}`
  const notice = `${TOO_LARGE} ${sizes}${path === undefined ? ', so only its beginning and end are shown' : ''}`
  // the characters of each end that keep the preview within `chars`
  const within = (chars: number): number => Math.floor((chars - notice.length - FRAME_CHARS) / 2)
  const ends = Math.min(PREVIEW_CHARS, within(text.length))
  if (ends <= 0) return `${OVER_LIMIT} ${sizes}. It is short enough to show whole:\n\n${text}`
  const side = path === undefined ? ends : Math.min(ends, within(room))
  if (side <= 0) return `${notice}; this message has no room left to show any of it.`
  return [
    `${notice}.`,
    '',
    `First ${side} characters:`,
    text.slice(0, side),
    `[… ${text.length - 2 * side} characters omitted …]`,
    `Last ${side} characters:`,
    text.slice(text.length - side),
  ].join('\n')
}
