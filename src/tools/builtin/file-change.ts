/**
 * What every tool that changes an existing file does around its change (Edit, MultiEdit,
 * NotebookEdit): the path is pinned where it was approved, the file must have been read and be
 * unchanged since, the new text goes to the approved real path, and the write counts as a read.
 * docs/decisions/tools.md (125, 150).
 */
import type { ToolContext, ValidationResult } from '../tool.types.js'
import { recordRead, staleReason } from './file-ledger.js'
import { absolutePathCheck, missingFileMessage, numberLines, pinRealPath, writeTarget } from './paths.js'

/** Lines of context shown around a change. */
const SNIPPET_CONTEXT = 3

/** validateInput for a path a tool will write: absolute, and its real path noted for the write. */
export function writablePathCheck(path: string, context: ToolContext, field = 'file_path'): ValidationResult {
  const check = absolutePathCheck(path, context.cwd, field)
  if (check.result) pinRealPath(context, path)
  return check
}

/** A file opened for a change: where it will be written, and its text as read now. */
export interface OpenedFile {
  target: string
  text: string
}

/**
 * The file's text, once it is known to exist, to lead where it led when the call was approved,
 * and to be unchanged since the model read it; otherwise throws the reason (nothing is written).
 */
export async function openForChange(context: ToolContext, path: string, verb: string): Promise<OpenedFile> {
  const { ports } = context
  const stat = await ports.fs.stat(path)
  if (stat === undefined) throw new Error(await missingFileMessage(ports.fs, path))
  // The real path approved, checked again now: a link swapped in since throws (check-then-use).
  const target = writeTarget(context, path)
  const stale = await staleReason(ports, path, verb)
  if (stale !== undefined) throw new Error(stale)
  return { target, text: Buffer.from(await ports.fs.readFile(target)).toString('utf8') }
}

/** Writes the changed text where the call was approved, and records it as read (the model knows it). */
export async function saveChange(context: ToolContext, path: string, target: string, text: string): Promise<void> {
  const { ports } = context
  await ports.fs.writeFile(target, text, { approvedRealPath: target })
  const after = await ports.fs.stat(path)
  if (after !== undefined) recordRead(ports, path, after.mtimeMs, 'all')
}

/** One replacement, as Edit and each of MultiEdit's edits take it. */
export interface TextEdit {
  old_string: string
  new_string: string
  replace_all?: boolean | undefined
}

/** Why an edit can never apply, whatever the file holds; undefined when it may. */
export function editInputProblem(edit: TextEdit): string | undefined {
  if (edit.old_string === '') return 'old_string is empty; give the exact text to replace (to create a file, use Write)'
  if (edit.old_string === edit.new_string)
    return 'old_string and new_string are the same, so the edit would change nothing'
  return undefined
}

/** An edit applied: the new text, where the first replacement starts, and how many were made. */
export type Replaced = { ok: true; text: string; at: number; count: number } | { ok: false; message: string }

/**
 * Applies one edit to `text`: old_string must occur exactly once, or any number of times with
 * replace_all. A failure is the reason, in words that name `path`.
 */
export function replaceText(text: string, edit: TextEdit, path: string): Replaced {
  const { old_string: oldText, new_string: newText } = edit
  const parts = text.split(oldText)
  const count = parts.length - 1
  if (count === 0)
    return {
      ok: false,
      message: `old_string was not found in ${path}; check whitespace and indentation, or Read the file again to see its current text`,
    }
  if (count > 1 && edit.replace_all !== true) {
    return {
      ok: false,
      message: `old_string occurs ${count} times in ${path}; include more surrounding lines to make it unique, or set replace_all to change all ${count}`,
    }
  }
  const at = text.indexOf(oldText)
  // split and join, not String.replace: new_string's `$&` and `$1` stay text.
  return { ok: true, text: parts.join(newText), at, count }
}

/** Numbered lines around the text `inserted` at offset `at` of `updated`, with a few lines of context. */
export function snippet(updated: string, at: number, inserted: string): string {
  const lines = updated.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const startLine = updated.slice(0, at).split('\n').length
  const endLine = startLine + Math.max(0, inserted.split('\n').length - 1)
  const from = Math.max(1, startLine - SNIPPET_CONTEXT)
  const to = Math.min(lines.length, endLine + SNIPPET_CONTEXT)
  return numberLines(lines.slice(from - 1, to), from)
}

/** Numbered lines around everything that differs between `before` and `after` (one span). */
export function changeSnippet(before: string, after: string): string {
  let start = 0
  const shortest = Math.min(before.length, after.length)
  while (start < shortest && before[start] === after[start]) start++
  let end = 0
  while (end < shortest - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++
  return snippet(after, start, after.slice(start, after.length - end))
}
