import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import {
  changeSnippet,
  editInputProblem,
  openForChange,
  replaceText,
  saveChange,
  writablePathCheck,
  type TextEdit,
} from './file-change.js'

/** Past this many edits in one call, MultiEdit asks for fewer (or a Write of the whole file). */
export const MULTI_EDIT_MAX_EDITS = 100

const inputSchema = lazySchema(() =>
  z.strictObject({
    file_path: z.string().describe('Absolute path of the file to change'),
    edits: z
      .array(
        z.strictObject({
          old_string: z
            .string()
            .describe(
              'The exact text to replace, as the file reads after the edits before this one; must occur exactly once unless replace_all',
            ),
          new_string: z.string().describe('The text to put in its place (empty to delete old_string)'),
          replace_all: z
            .boolean()
            .optional()
            .describe('Replace every occurrence of old_string instead of requiring exactly one'),
        }),
      )
      .min(1)
      .max(MULTI_EDIT_MAX_EDITS)
      .describe('The edits, applied one after another, each to the text the previous ones left'),
  }),
)

/**
 * MultiEdit: several Edit replacements in one file, all or none. Rules and hooks for Edit cover it
 * (`ruleNames`), as Claude Code's Edit permissions cover MultiEdit (docs/decisions/tools.md, 150).
 */
export const MultiEdit = Object.assign(
  buildTool({
    name: 'MultiEdit',
    searchHint: 'edit several replacements change modify file text at once',
    category: 'files',
    description: () => 'Makes several exact-text replacements in one file, all or none.',
    prompt: () =>
      [
        'Makes several replacements in one file at once: each edit replaces old_string with new_string exactly as Edit does, and the edits are applied in order, each to the text the edits before it left (so a later edit can match text an earlier one wrote).',
        'All edits apply or none does: if any edit fails (old_string not found, or found several times without replace_all), the file is left unchanged and the error names the edit (edits[i]) and why.',
        'Prefer it to several Edit calls on one file. Each old_string must match exactly (copy it from Read output without the line-number prefix), be non-empty and differ from its new_string.',
        'The file must have been Read in this session and be unchanged on disk since. Returns the changed lines with their numbers.',
      ].join(' '),
    inputSchema,
    getPath: (input) => input.file_path,
    activityDescription: (input) => `Editing ${input.file_path}`,
    isDestructive: () => true,
    // As Edit: changing files asks unless a rule allows it or the mode is acceptEdits.
    checkPermissions: (input) => ({ behavior: 'ask', message: `edit ${input.file_path}` }),
    validateInput: (input, context) => {
      const path = writablePathCheck(input.file_path, context)
      if (!path.result) return path
      for (const [i, edit] of input.edits.entries()) {
        const problem = editInputProblem(edit)
        if (problem !== undefined) return { result: false, message: `edits[${i}]: ${problem}` }
      }
      return { result: true }
    },
    async call({ file_path: path, edits }, context) {
      const { target, text } = await openForChange(context, path, 'edit')
      const { updated, replacements } = applyEdits(text, edits, path)
      await saveChange(context, path, target, updated)
      return `Applied ${edits.length} ${edits.length === 1 ? 'edit' : 'edits'} to ${path} (${replacements} ${replacements === 1 ? 'replacement' : 'replacements'}):\n${changeSnippet(text, updated)}`
    },
  }),
  { ruleNames: ['Edit'] as const },
)

/**
 * The edits applied in order to `text`, or a throw naming the first that fails (nothing is
 * written: the caller writes only what this returns).
 */
export function applyEdits(
  text: string,
  edits: readonly TextEdit[],
  path: string,
): { updated: string; replacements: number } {
  let updated = text
  let replacements = 0
  for (const [i, edit] of edits.entries()) {
    const done = replaceText(updated, edit, path)
    if (!done.ok) {
      const after =
        i === 0 ? '' : i === 1 ? ' (after edits[0] was applied)' : ` (after edits[0]..edits[${i - 1}] were applied)`
      throw new Error(`edits[${i}] failed${after}: ${done.message}. No edit was applied; ${path} is unchanged`)
    }
    updated = done.text
    replacements += done.count
  }
  return { updated, replacements }
}
