import { extname } from 'node:path'
import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { openForChange, saveChange, writablePathCheck } from './file-change.js'
import { editNotebook, findCell, parseNotebook, serializeNotebook } from './notebook.js'

const inputSchema = lazySchema(() =>
  z.strictObject({
    notebook_path: z.string().describe('Absolute path of the Jupyter notebook (.ipynb) to change'),
    cell_id: z
      .string()
      .optional()
      .describe(
        'The id of the cell to change, as Read shows it (cell-N for a cell without an id). With edit_mode insert, the new cell goes after it (at the start when omitted)',
      ),
    new_source: z.string().describe('The new source of the cell (ignored by delete)'),
    cell_type: z
      .enum(['code', 'markdown'])
      .optional()
      .describe('The type of the cell: required for insert; for replace, changes the type (default: keep it)'),
    edit_mode: z
      .enum(['replace', 'insert', 'delete'])
      .optional()
      .describe('replace (default) the cell source, insert a new cell, or delete the cell'),
  }),
)

/**
 * NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook the model has read.
 * Rules and hooks for Edit cover it (`ruleNames`; docs/decisions/tools.md, 151).
 */
export const NotebookEdit = Object.assign(
  buildTool({
    name: 'NotebookEdit',
    searchHint: 'jupyter notebook ipynb cell edit insert delete',
    category: 'files',
    description: () => 'Replaces, inserts or deletes a cell of a Jupyter notebook.',
    prompt: () =>
      [
        'Changes one cell of a Jupyter notebook (.ipynb) at the given absolute path. Read the notebook first: it shows each cell with its id.',
        'edit_mode replace (the default) sets the source of the cell cell_id to new_source (give cell_type to change its type too); a code cell changed this way loses its outputs and execution count, which no longer match it.',
        'insert adds a new cell with new_source after cell_id, or at the start without cell_id; cell_type is required.',
        'delete removes the cell cell_id (new_source is ignored).',
        'The rest of the notebook is kept as it is. Use this, not Edit, for notebooks. The notebook must have been Read in this session and be unchanged on disk since.',
      ].join(' '),
    inputSchema,
    getPath: (input) => input.notebook_path,
    activityDescription: (input) => `Editing ${input.notebook_path}`,
    isDestructive: () => true,
    // As Edit: changing files asks unless a rule allows it or the mode is acceptEdits.
    checkPermissions: (input) => ({ behavior: 'ask', message: `edit ${input.notebook_path}` }),
    validateInput: (input, context) => {
      const path = writablePathCheck(input.notebook_path, context, 'notebook_path')
      if (!path.result) return path
      if (extname(input.notebook_path).toLowerCase() !== '.ipynb')
        return {
          result: false,
          message: `${input.notebook_path} is not a Jupyter notebook (.ipynb); use Edit for other files`,
        }
      const mode = input.edit_mode ?? 'replace'
      if (mode === 'insert' && input.cell_type === undefined)
        return { result: false, message: 'cell_type is required to insert a cell: give code or markdown' }
      if (mode !== 'insert' && input.cell_id === undefined)
        return { result: false, message: `cell_id is required to ${mode} a cell: give the id Read shows for it` }
      return { result: true }
    },
    async call(input, context) {
      const path = input.notebook_path
      const mode = input.edit_mode ?? 'replace'
      const { target, text } = await openForChange(context, path, 'edit')
      const notebook = parseNotebook(text, path)
      const index = input.cell_id === undefined ? undefined : findCell(notebook, input.cell_id, path)
      const name = editNotebook(notebook, {
        mode,
        index,
        source: input.new_source,
        cellType: input.cell_type,
        newId: context.ports.ids.next('cell'),
      })
      await saveChange(context, path, target, serializeNotebook(notebook))
      if (mode === 'delete') return `Deleted cell ${name} of ${path}`
      if (mode === 'insert')
        return `Inserted ${input.cell_type} cell ${name} ${index === undefined ? 'at the start' : `after ${input.cell_id}`} of ${path}`
      return `Replaced the source of cell ${name} of ${path}${input.cell_type === undefined ? '' : ` (now a ${input.cell_type} cell)`}`
    },
  }),
  { ruleNames: ['Edit'] as const },
)
