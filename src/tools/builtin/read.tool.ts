import { extname } from 'node:path'
import { z } from 'zod'
import type { ToolResultBlock } from '../../events/event.schema.js'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import type { ToolPorts } from '../../ports/index.js'
import { checkOptionsObject, optionNames } from '../../util/known-options.js'
import { recordRead } from './file-ledger.js'
import { NOTEBOOK_MAX_BYTES, parseNotebook, renderNotebook } from './notebook.js'
import { absolutePathCheck, missingFileMessage, specialFileWords } from './paths.js'
import { PDF_MAX_BYTES, PDF_MAX_PAGES, importUnpdf, parsePages, pdfText, type PdfLibraryLoader } from './pdf-pages.js'

export const READ_DEFAULT_LIMIT = 2000
export const READ_MAX_LINE_CHARS = 2000
/** Past this much text in one read, Read asks for a smaller range instead of flooding the context. */
export const READ_MAX_CHARS = 256_000
/** Past this much of the file after the range, Read stops instead of counting the lines left. */
export const READ_COUNT_MAX_BYTES = 64 * 1024 * 1024
/** Where Read looks for NUL bytes, to tell binary files from text. */
const BINARY_CHECK_BYTES = 8192
/** Images are sent whole; past this size Read refuses them instead of loading them. */
export const READ_MAX_IMAGE_BYTES = 20 * 1024 * 1024
const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
}

type ReadOutput = { kind: 'text'; text: string } | { kind: 'image'; mediaType: string; data: string }

const inputSchema = lazySchema(() =>
  z.strictObject({
    file_path: z.string().describe('Absolute path of the file to read, e.g. /home/me/project/src/index.ts'),
    offset: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Line number to start from (1 = first line). Give it with limit for large files.'),
    limit: z.number().int().min(1).optional().describe(`How many lines to read (default ${READ_DEFAULT_LIMIT}).`),
    pages: z
      .string()
      .optional()
      .describe(
        `PDF files only: the pages to read, e.g. "3", "1-5" or "1-3,7" (at most ${PDF_MAX_PAGES}; default the first ${PDF_MAX_PAGES}).`,
      ),
  }),
)

/** Options for `createRead`. */
export interface ReadOptions {
  /**
   * Imports the PDF library (default: `import('unpdf')`, an optional peer dependency). An app may
   * give its own build; a test may simulate its absence.
   */
  loadPdfLibrary?: PdfLibraryLoader
}

const READ_OPTIONS = optionNames<ReadOptions>()('loadPdfLibrary')

/**
 * Read: a file's text with line numbers, an image, a notebook's cells or a PDF's pages.
 */
export const Read = createRead()

/**
 * A Read tool with its own options; `Read` is `createRead()`.
 *
 * @example
 * const read = createRead({ loadPdfLibrary: async () => (await import('unpdf')) as PdfLibrary })
 */
export function createRead(options: ReadOptions = {}) {
  checkOptionsObject('createRead', options, READ_OPTIONS)
  const loadPdfLibrary = options.loadPdfLibrary ?? importUnpdf
  return buildTool({
    name: 'Read',
    aliases: ['ReadFile'],
    searchHint: 'read file open view cat contents',
    category: 'files',
    description: () => 'Reads a file and returns its text with line numbers.',
    prompt: () =>
      [
        'Reads the file at the given path and returns its text with line numbers (`cat -n` style: the number, a tab, the line).',
        `By default it returns the first ${READ_DEFAULT_LIMIT} lines; for large files, find the relevant lines with Grep first, then read that range with offset and limit.`,
        'The path must be absolute. A missing file returns an error that suggests similar names in the same directory.',
        `Lines longer than ${READ_MAX_LINE_CHARS} characters are cut, with a marker. PNG, JPEG, GIF and WebP images come back as images you can see.`,
        `A Jupyter notebook (.ipynb) comes back as its cells (id, type, source) with their text outputs; give offset or limit to read its raw JSON instead.`,
        `A PDF comes back as the text of its pages, at most ${PDF_MAX_PAGES} per call: choose them with pages ("1-5", "3").`,
        'Other binary files cannot be read; use Bash with a suitable command (xxd, file, unzip -l) instead.',
        'Reading a file is also what allows Write, Edit, MultiEdit and NotebookEdit to change it afterwards.',
      ].join(' '),
    inputSchema,
    maxResultSizeChars: Infinity,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    getPath: (input) => input.file_path,
    activityDescription: (input) => `Reading ${input.file_path}`,
    validateInput: (input, context) => {
      const path = absolutePathCheck(input.file_path, context.cwd)
      const pdf = extname(input.file_path).toLowerCase() === '.pdf'
      if (path.result && pdf && (input.offset !== undefined || input.limit !== undefined))
        return {
          result: false,
          message: 'offset and limit count lines of text; for a PDF, choose pages with pages ("1-5")',
        }
      if (!path.result || input.pages === undefined) return path
      if (!pdf)
        return {
          result: false,
          message: `pages is for PDF files only; ${input.file_path} is not a .pdf (use offset and limit for lines)`,
        }
      const pages = parsePages(input.pages)
      return typeof pages === 'string' ? { result: false, message: pages } : { result: true }
    },
    interruptBehavior: () => 'cancel',
    async call({ file_path: path, offset, limit, pages }, { ports, signal }): Promise<ReadOutput> {
      const stat = await ports.fs.stat(path)
      if (stat === undefined) throw new Error(await missingFileMessage(ports.fs, path))
      if (stat.kind === 'directory')
        throw new Error(`${path} is a directory, not a file; list it with Glob or Bash (ls)`)
      // Checked before anything opens the path: opening a FIFO blocks until a writer comes.
      if (stat.kind !== 'file')
        throw new Error(`${path} is ${specialFileWords(stat.kind)}, not a regular file; Read only reads regular files`)
      const mediaType = IMAGE_TYPES[extname(path).toLowerCase()]
      if (mediaType !== undefined) {
        if (stat.size > READ_MAX_IMAGE_BYTES)
          throw new Error(
            `${path} is a ${megabytes(stat.size)} MB image, larger than the ${READ_MAX_IMAGE_BYTES / (1024 * 1024)} MB Read returns; make a smaller copy with Bash (e.g. convert in.png -resize 50% out.png) and read that`,
          )
        const bytes = await ports.fs.readFile(path)
        recordRead(ports, path, stat.mtimeMs, 'all')
        return { kind: 'image', mediaType, data: Buffer.from(bytes).toString('base64') }
      }
      const extension = extname(path).toLowerCase()
      if (extension === '.pdf') {
        const ranges = pages === undefined ? undefined : parsePages(pages)
        if (typeof ranges === 'string') throw new Error(ranges)
        if (stat.size > PDF_MAX_BYTES) throw new Error(tooLarge(path, stat.size, PDF_MAX_BYTES, 'PDF'))
        const text = await pdfText(await ports.fs.readFile(path), path, ranges, loadPdfLibrary, READ_MAX_CHARS)
        recordRead(ports, path, stat.mtimeMs, 'all')
        return { kind: 'text', text }
      }
      if (extension === '.ipynb' && offset === undefined && limit === undefined)
        return { kind: 'text', text: await readNotebook(ports, path, stat) }
      const first = offset ?? 1
      const count = limit ?? READ_DEFAULT_LIMIT
      const range = await readLineRange(ports.fs.openRead(path, { signal }), path, { first, count, size: stat.size })
      recordRead(
        ports,
        path,
        stat.mtimeMs,
        offset === undefined && limit === undefined ? 'all' : { offset: first, limit: count },
      )
      return { kind: 'text', text: rangeText(range, path, first, stat.size) }
    },
    mapToolResultToToolResultBlockParam(output, toolUseId): ToolResultBlock {
      if (output.kind === 'image') {
        return {
          type: 'tool_result',
          tool_use_id: toolUseId,
          content: [{ type: 'image', source: { type: 'base64', media_type: output.mediaType, data: output.data } }],
        }
      }
      return { type: 'tool_result', tool_use_id: toolUseId, content: output.text }
    },
  })
}

/** A notebook's cells as Read shows them (docs/decisions/tools.md, 151). */
async function readNotebook(ports: ToolPorts, path: string, stat: { size: number; mtimeMs: number }): Promise<string> {
  if (stat.size > NOTEBOOK_MAX_BYTES) throw new Error(tooLarge(path, stat.size, NOTEBOOK_MAX_BYTES, 'notebook'))
  const notebook = parseNotebook(Buffer.from(await ports.fs.readFile(path)).toString('utf8'), path)
  recordRead(ports, path, stat.mtimeMs, 'all')
  return renderNotebook(notebook, path, READ_MAX_CHARS)
}

const tooLarge = (path: string, size: number, cap: number, what: 'PDF' | 'notebook'): string =>
  `${path} is a ${megabytes(size)} MB ${what}, larger than the ${megabytes(cap)} MB Read loads; ${what === 'PDF' ? 'extract the pages you need with Bash (e.g. pdftotext -f 1 -l 5 in.pdf -)' : 'read its JSON in parts with offset and limit, or extract what you need with Bash (e.g. jq)'}`

/** What Read shows for a range of lines, or the error that says why it cannot. */
function rangeText(range: LineRange, path: string, first: number, size: number): string {
  const { shown, total } = range
  if (total === 0) return `(${path} is empty)`
  if (shown === 0) throw new Error(`${path} has ${total} lines, so offset ${first} is past its end`)
  if (range.bodyChars > READ_MAX_CHARS) {
    throw new Error(
      `lines ${first}-${first + shown - 1} of ${path} are ${range.bodyChars} characters, more than Read returns at once (${READ_MAX_CHARS}); read a smaller range with offset and limit, or find the lines you need with Grep first`,
    )
  }
  const body = range.lines.join('\n')
  const next = first + shown
  if (total === undefined)
    return range.more
      ? `${body}\n… more lines follow (the file is ${megabytes(size)} MB, too large to count them all); continue with offset ${next}`
      : body
  const rest = total - (next - 1)
  return rest > 0 ? `${body}\n… ${rest} more lines (${total} in all); continue with offset ${next}` : body
}

const megabytes = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1)

/** What streaming a file found for a range of lines. */
interface LineRange {
  /** The range's lines, numbered and cut, while they fit in READ_MAX_CHARS (emptied past it). */
  lines: string[]
  /** How many lines of the range the file has. */
  shown: number
  /** The length of the numbered range, as Read would return it. */
  bodyChars: number
  /** Lines in the file; undefined when the reading stopped after the range. */
  total: number | undefined
  /** Lines follow the range (known even when the total is not). */
  more: boolean
}

/**
 * Streams a file for lines `first` to `first + count - 1`, keeping only those (each cut to
 * READ_MAX_LINE_CHARS, and none past READ_MAX_CHARS) and counting the others: memory stays within
 * the range and a chunk, whatever the file's size. Lines are what `text.split(/\r?\n/)` gave.
 */
async function readLineRange(
  chunks: AsyncIterable<Uint8Array>,
  path: string,
  want: { first: number; count: number; size: number },
): Promise<LineRange> {
  const scanner = new LineScanner(path, want)
  for await (const chunk of chunks) if (!scanner.push(chunk)) return scanner.range
  return scanner.end()
}

class LineScanner {
  readonly range: LineRange = { lines: [], shown: 0, bodyChars: 0, total: undefined, more: false }
  /** The number of the line being scanned. */
  private line = 1
  /** The line being scanned has bytes (a last line without a newline counts). */
  private pending = false
  private position = 0
  private checked = 0
  /** After the range: whether to go on counting lines for the total. */
  private counting: boolean | undefined
  private readonly text = new LineText()
  private readonly last: number

  constructor(
    private readonly path: string,
    private readonly want: { first: number; count: number; size: number },
  ) {
    this.last = want.first + want.count - 1
  }

  /** Takes the next chunk; false when the rest of the file is not needed. */
  push(chunk: Uint8Array): boolean {
    this.checkBinary(chunk)
    for (let at = 0; at < chunk.length;) {
      const newline = chunk.indexOf(10, at)
      const inRange = this.line >= this.want.first && this.line <= this.last
      if (newline === -1) {
        if (inRange) this.text.add(chunk.subarray(at), false)
        this.pending = true
        break
      }
      if (inRange) this.text.add(chunk.subarray(at, newline), true)
      this.endLine(inRange)
      at = newline + 1
      if (this.line === this.last + 1) this.rangeDone(this.position + at)
      if (this.stopped()) return false
    }
    this.position += chunk.length
    return true
  }

  end(): LineRange {
    if (this.pending) this.endLine(this.line >= this.want.first && this.line <= this.last)
    this.range.total = this.line - 1
    this.range.more = false
    return this.range
  }

  private checkBinary(chunk: Uint8Array): void {
    if (this.checked >= BINARY_CHECK_BYTES) return
    const head = chunk.subarray(0, BINARY_CHECK_BYTES - this.checked)
    if (head.includes(0)) {
      throw new Error(
        `${this.path} is a binary file (it contains NUL bytes), so it cannot be read as text; use Bash with a suitable command (file, xxd, strings, unzip -l) instead`,
      )
    }
    this.checked += head.length
  }

  private endLine(inRange: boolean): void {
    if (inRange) {
      const numbered = `${String(this.line).padStart(6)}\t${this.text.finish()}`
      const range = this.range
      range.bodyChars += (range.shown > 0 ? 1 : 0) + numbered.length
      range.shown++
      // Past the cap Read answers with an error that needs only the size: keep nothing more.
      if (range.bodyChars <= READ_MAX_CHARS) range.lines.push(numbered)
      else range.lines.length = 0
    }
    this.line++
    this.pending = false
  }

  /** The range is complete, its last newline at `offset`: count the rest only if it is small. */
  private rangeDone(offset: number): void {
    const rest = this.want.size - offset
    this.range.more = rest > 0
    this.counting = rest <= READ_COUNT_MAX_BYTES && this.range.bodyChars <= READ_MAX_CHARS
  }

  /** Nothing more is needed: the range is read, the rest is not counted, the binary check is done. */
  private stopped(): boolean {
    return this.counting === false && this.checked >= BINARY_CHECK_BYTES
  }
}

const CR = Uint8Array.of(13)

/**
 * One line's text, fed in pieces (a line may span chunks): decoded as UTF-8 as it comes, its first
 * READ_MAX_LINE_CHARS + 1 characters kept and the rest only counted. A CR before the newline is
 * dropped, even when the chunk ends between the two.
 */
class LineText {
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  private text = ''
  private length = 0
  private heldCR = false

  add(bytes: Uint8Array, endsLine: boolean): void {
    if (this.heldCR) {
      this.heldCR = false
      if (!endsLine || bytes.length > 0) this.take(this.decoder.decode(CR, { stream: true }))
    }
    let body = bytes
    if (body.at(-1) === 13) {
      body = body.subarray(0, body.length - 1)
      if (!endsLine) this.heldCR = true
    }
    this.take(this.decoder.decode(body, { stream: true }))
  }

  /** The line, cut with a marker when long; ready for the next line. */
  finish(): string {
    // A CR held back at the end of the file's last line, which has no newline, stays.
    if (this.heldCR) this.take(this.decoder.decode(CR, { stream: true }))
    this.heldCR = false
    this.take(this.decoder.decode())
    const { text, length } = this
    this.text = ''
    this.length = 0
    return length > READ_MAX_LINE_CHARS
      ? `${text.slice(0, READ_MAX_LINE_CHARS)}… [line cut: ${length} characters]`
      : text
  }

  private take(piece: string): void {
    this.length += piece.length
    if (this.text.length <= READ_MAX_LINE_CHARS) this.text += piece.slice(0, READ_MAX_LINE_CHARS + 1 - this.text.length)
  }
}
