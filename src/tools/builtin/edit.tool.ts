import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { editInputProblem, openForChange, replaceText, saveChange, snippet, writablePathCheck } from './file-change.js'

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
      'The file must have been Read in this session and be unchanged on disk since. To create a file, use Write; for several changes to one file, MultiEdit.',
    ].join(' '),
  inputSchema,
  getPath: (input) => input.file_path,
  activityDescription: (input) => `Editing ${input.file_path}`,
  isDestructive: () => true,
  // Changing files asks unless a rule allows it or the mode is acceptEdits (inside the working directory).
  checkPermissions: (input) => ({ behavior: 'ask', message: `edit ${input.file_path}` }),
  validateInput: (input, context) => {
    const path = writablePathCheck(input.file_path, context)
    if (!path.result) return path
    const problem = editInputProblem(input)
    return problem === undefined ? { result: true } : { result: false, message: problem }
  },
  async call(input, context) {
    const { file_path: path, new_string: newText } = input
    const { target, text } = await openForChange(context, path, 'edit')
    const edited = replaceText(text, input, path)
    if (!edited.ok) throw new Error(edited.message)
    await saveChange(context, path, target, edited.text)
    const count = input.replace_all === true ? `${edited.count} replacements` : '1 replacement'
    return `Edited ${path} (${count}):\n${snippet(edited.text, edited.at, newText)}`
  },
})
