/**
 * Jupyter notebooks (nbformat 4 JSON), for Read and NotebookEdit: the file is checked against the
 * shape both need, shown as cells, and changed in place so the rest of the JSON — key order,
 * metadata, other cells — stays as Jupyter wrote it (docs/decisions/tools.md, 151).
 */
import { z } from 'zod'

/** Past this many characters of one cell's outputs, Read cuts them with a note. */
export const NOTEBOOK_OUTPUT_CHARS = 2000
/** Notebooks past this size are not parsed whole; Read asks for a range of the JSON instead. */
export const NOTEBOOK_MAX_BYTES = 32 * 1024 * 1024

export type CellType = 'code' | 'markdown' | 'raw'

const source = z.union([z.string(), z.array(z.string())])
const cellSchema = z.looseObject({
  cell_type: z.enum(['code', 'markdown', 'raw']),
  id: z.string().optional(),
  source,
  outputs: z.array(z.looseObject({ output_type: z.string() })).optional(),
  execution_count: z.number().nullable().optional(),
})
const notebookSchema = z.looseObject({
  nbformat: z.literal(4),
  nbformat_minor: z.number().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  cells: z.array(cellSchema),
})

type Cell = z.infer<typeof cellSchema>
type NotebookJson = z.infer<typeof notebookSchema>

/** A notebook as read: its JSON (edited in place) and how the file spelled it. */
export interface Notebook {
  json: NotebookJson
  indent: string
  finalNewline: boolean
}

/** The notebook in `text`, or a throw saying what about the file is not an nbformat 4 notebook. */
export function parseNotebook(text: string, path: string): Notebook {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new Error(`${path} is not valid JSON (${(error as Error).message}), so it cannot be read as a notebook`)
  }
  // Checked, then kept as parsed: zod's copy would not keep the file's key order.
  const checked = notebookSchema.safeParse(raw)
  if (!checked.success) {
    const issue = checked.error.issues[0]
    const where = issue === undefined || issue.path.length === 0 ? '' : ` at ${issue.path.join('.')}`
    throw new Error(
      `${path} is not an nbformat 4 notebook (${issue?.message ?? 'unexpected shape'}${where}); Read it with offset and limit to see its JSON`,
    )
  }
  // The file's indentation; a file on one line stays on one line.
  const indent = /^\s*\{\r?\n([ \t]+)"/.exec(text)?.[1] ?? (/^\s*\{\s*"/.test(text) ? '' : ' ')
  return { json: raw as NotebookJson, indent, finalNewline: text.endsWith('\n') }
}

/** The notebook as JSON text again, in the file's own indentation (Jupyter's is one space). */
export function serializeNotebook(notebook: Notebook): string {
  const body = JSON.stringify(notebook.json, null, notebook.indent)
  return notebook.finalNewline ? `${body}\n` : body
}

const text = (value: string | readonly string[]): string => (typeof value === 'string' ? value : value.join(''))

/** The name NotebookEdit takes for the cell at `index`: its id, or `cell-N` when it has none. */
export const cellName = (cell: Cell, index: number): string => cell.id ?? `cell-${index}`

/** The index of the cell a cell_id names (its id, or `cell-N` for a cell without one), or a throw listing them. */
export function findCell(notebook: Notebook, cellId: string, path: string): number {
  const cells = notebook.json.cells
  const byId = cells.findIndex((cell) => cell.id === cellId)
  if (byId !== -1) return byId
  const index = /^cell-(\d+)$/.exec(cellId)?.[1]
  if (index !== undefined && Number(index) < cells.length) return Number(index)
  const names = cells.slice(0, 20).map(cellName)
  const more = cells.length > names.length ? `, … (${cells.length} cells)` : ''
  throw new Error(
    `${path} has no cell ${JSON.stringify(cellId)}; its cells are ${names.join(', ') || 'none (the notebook is empty)'}${more}. Read the notebook to see them`,
  )
}

/** What NotebookEdit asks for, its fields checked. */
export interface CellEdit {
  mode: 'replace' | 'insert' | 'delete'
  /** The cell to change, or to insert after (undefined: insert at the start). */
  index: number | undefined
  source: string
  cellType: CellType | undefined
  /** An id for an inserted cell (nbformat 4.5 gives every cell one). */
  newId: string
}

/** Applies the edit to the notebook's JSON; returns the changed cell's name, for the answer. */
export function editNotebook(notebook: Notebook, edit: CellEdit): string {
  const cells = notebook.json.cells
  if (edit.mode === 'delete') {
    const [removed] = cells.splice(edit.index as number, 1)
    return cellName(removed as Cell, edit.index as number)
  }
  if (edit.mode === 'insert') {
    const at = edit.index === undefined ? 0 : edit.index + 1
    const withIds = (notebook.json.nbformat_minor ?? 0) >= 5 || cells.some((cell) => cell.id !== undefined)
    const cell = newCell(edit.cellType as CellType, edit.source, withIds ? uniqueId(cells, edit.newId) : undefined)
    cells.splice(at, 0, cell)
    return cellName(cell, at)
  }
  const index = edit.index as number
  const old = cells[index] as Cell
  cells[index] = changedCell(old, edit.source, edit.cellType ?? old.cell_type)
  return cellName(old, index)
}

/** Jupyter's form of a source: its lines, each with its newline but the last. */
const sourceLines = (value: string): string[] => (value === '' ? [] : value.split(/(?<=\n)/))

/** A cell with new source (and maybe type): a code cell's outputs and count are cleared, stale now. */
function changedCell(old: Cell, value: string, type: CellType): Cell {
  const cell: Record<string, unknown> = { ...old, cell_type: type }
  cell.source = typeof old.source === 'string' ? value : sourceLines(value)
  if (type === 'code') {
    cell.execution_count = null
    cell.outputs = []
  } else {
    delete cell.execution_count
    delete cell.outputs
  }
  return sortedKeys(cell) as Cell
}

function newCell(type: CellType, value: string, id: string | undefined): Cell {
  const cell: Record<string, unknown> = { cell_type: type, metadata: {}, source: sourceLines(value) }
  if (id !== undefined) cell.id = id
  if (type === 'code') Object.assign(cell, { execution_count: null, outputs: [] })
  return sortedKeys(cell) as Cell
}

/** nbformat writes keys sorted; a changed cell keeps to that. */
function sortedKeys(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** An id nbformat accepts (letters, digits, - and _, at most 64) that no other cell has. */
function uniqueId(cells: readonly Cell[], wanted: string): string {
  const base = wanted.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 56) || 'cell'
  let id = base
  for (let n = 2; cells.some((cell) => cell.id === id); n++) id = `${base}-${n}`
  return id
}

/**
 * The notebook as Read shows it: each cell with its name, type and source, then its outputs as
 * text (cut at NOTEBOOK_OUTPUT_CHARS; images and other binary data named, not included). Cells
 * past `maxChars` are left out, with a note saying how to see them.
 */
export function renderNotebook(notebook: Notebook, path: string, maxChars: number): string {
  const { json } = notebook
  const meta = json.metadata ?? {}
  const info = meta.language_info as { name?: unknown } | undefined
  const language = typeof info?.name === 'string' ? `, language ${info.name}` : ''
  const head = `Notebook ${path}: ${json.cells.length} cells${language} (nbformat ${json.nbformat}.${json.nbformat_minor ?? 0}). NotebookEdit takes a cell by the id shown.`
  const parts = [head]
  let length = head.length
  for (const [i, cell] of json.cells.entries()) {
    const shown = renderCell(cell, i)
    if (length + shown.length + 2 > maxChars) {
      parts.push(
        `… cells ${i}-${json.cells.length - 1} not shown: the notebook is larger than Read returns at once (${maxChars} characters). Read its JSON with offset and limit, or Grep for what you need`,
      )
      break
    }
    parts.push(shown)
    length += shown.length + 2
  }
  return parts.join('\n\n')
}

function renderCell(cell: Cell, index: number): string {
  const count = cell.cell_type === 'code' ? ` execution_count="${cell.execution_count ?? ''}"` : ''
  const body = `<cell id="${cellName(cell, index)}" type="${cell.cell_type}"${count}>\n${text(cell.source)}\n</cell>`
  const outputs = (cell.outputs ?? []).map(renderOutput).filter((o) => o !== '')
  if (outputs.length === 0) return body
  let shown = outputs.join('\n')
  if (shown.length > NOTEBOOK_OUTPUT_CHARS)
    shown = `${shown.slice(0, NOTEBOOK_OUTPUT_CHARS)}\n… ${shown.length - NOTEBOOK_OUTPUT_CHARS} more characters of output not shown`
  return `${body}\n<outputs>\n${shown}\n</outputs>`
}

// Tracebacks carry terminal colours.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g

function renderOutput(output: Record<string, unknown>): string {
  const type = output.output_type
  if (type === 'stream' && isSource(output.text)) return text(output.text).replace(/\n$/, '')
  if (type === 'error') {
    const trace = Array.isArray(output.traceback) ? output.traceback.filter((l) => typeof l === 'string') : []
    return [`${String(output.ename)}: ${String(output.evalue)}`, ...trace].join('\n').replace(ANSI, '')
  }
  const data = output.data
  if (typeof data !== 'object' || data === null) return ''
  return Object.entries(data as Record<string, unknown>)
    .map(([mime, value]) => {
      if (mime === 'text/plain' && isSource(value)) return text(value).replace(/\n$/, '')
      const size = isSource(value) ? ` (${text(value).length} characters)` : ''
      return `[${mime} output${size}, not shown]`
    })
    .join('\n')
}

const isSource = (value: unknown): value is string | string[] =>
  typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'))
