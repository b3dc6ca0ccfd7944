import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { recordRead, staleReason } from './file-ledger.js'
import { absolutePathCheck, missingFileMessage, numberLines, pinRealPath, writeTarget } from './paths.js'

/** Lines of context shown around an edit. */
const SNIPPET_CONTEXT = 3

const inputSchema = lazySchema(() =>
  z.strictObject({
    file_path: z.string().describe('Absolute path of the file to change'),
    old_string: z
      .string()
      .describe(
        'The exact text to replace, whitespace and indentation included; must occur exactly once unless replace_all',
      ),
    new_string: z.string().describe('The text to put in its place (empty to delete old_string)'),
    replace_all: z
      .boolean()
      .optional()
      .describe('Replace every occurrence of old_string instead of requiring exactly one'),
  }),
)

/** Edit: replaces exact text in a file the model has read. */
export const Edit = buildTool({
  name: 'Edit',
  aliases: ['EditFile'],
  searchHint: 'edit replace change modify file text',
  category: 'files',
  description: () => 'Replaces exact text in a file.',
  prompt: () =>
    [
      'Replaces old_string with new_string in the file at the given absolute path, and returns the changed lines with their numbers.',
      'old_string must match the file exactly (copy it from Read output without the line-number prefix) and occur exactly once; include a few surrounding lines to make it unique, or set replace_all to change every occurrence.',
      'An empty new_string deletes old_string. old_string and new_string must differ.',
      'The file must have been Read in this session and be unchanged on disk since. To create a file, use Write.',
    ].join(' '),
  inputSchema,
  getPath: (input) => input.file_path,
  activityDescription: (input) => `Editing ${input.file_path}`,
  isDestructive: () => true,
  // Changing files asks unless a rule allows it or the mode is acceptEdits (inside the working directory).
  checkPermissions: (input) => ({ behavior: 'ask', message: `edit ${input.file_path}` }),
  validateInput: (input, context) => {
    const path = absolutePathCheck(input.file_path, context.cwd)
    if (!path.result) return path
    pinRealPath(context, input.file_path)
    if (input.old_string === '')
      return {
        result: false,
        message: 'old_string is empty; give the exact text to replace (to create a file, use Write)',
      }
    if (input.old_string === input.new_string)
      return { result: false, message: 'old_string and new_string are the same, so the edit would change nothing' }
    return { result: true }
  },
  async call({ file_path: path, old_string: oldText, new_string: newText, replace_all: all }, context) {
    const { ports } = context
    const stat = await ports.fs.stat(path)
    if (stat === undefined) throw new Error(await missingFileMessage(ports.fs, path))
    // The real path approved, checked again now: a link swapped in since throws (check-then-use).
    const target = writeTarget(context, path)
    const stale = await staleReason(ports, path, 'edit')
    if (stale !== undefined) throw new Error(stale)
    const text = Buffer.from(await ports.fs.readFile(target)).toString('utf8')
    const count = text.split(oldText).length - 1
    if (count === 0)
      throw new Error(
        `old_string was not found in ${path}; check whitespace and indentation, or Read the file again to see its current text`,
      )
    if (count > 1 && all !== true) {
      throw new Error(
        `old_string occurs ${count} times in ${path}; include more surrounding lines to make it unique, or set replace_all to change all ${count}`,
      )
    }
    const at = text.indexOf(oldText)
    const updated =
      all === true ? text.split(oldText).join(newText) : text.slice(0, at) + newText + text.slice(at + oldText.length)
    await ports.fs.writeFile(target, updated, { approvedRealPath: target })
    const after = await ports.fs.stat(path)
    if (after !== undefined) recordRead(ports, path, after.mtimeMs, 'all')
    return `Edited ${path} (${all === true ? `${count} replacements` : '1 replacement'}):\n${snippet(updated, at, newText)}`
  },
})

/** Numbered lines around the (first) change in the new text. */
function snippet(updated: string, at: number, inserted: string): string {
  const lines = updated.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const startLine = updated.slice(0, at).split('\n').length
  const endLine = startLine + Math.max(0, inserted.split('\n').length - 1)
  const from = Math.max(1, startLine - SNIPPET_CONTEXT)
  const to = Math.min(lines.length, endLine + SNIPPET_CONTEXT)
  return numberLines(lines.slice(from - 1, to), from)
}
