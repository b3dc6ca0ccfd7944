import { extname } from 'node:path'
import { z } from 'zod'
import type { ToolResultBlock } from '../../events/event.schema.js'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { recordRead } from './file-ledger.js'
import { absolutePathCheck, missingFileMessage, numberLines } from './paths.js'

export const READ_DEFAULT_LIMIT = 2000
export const READ_MAX_LINE_CHARS = 2000
/** Past this much text in one read, Read asks for a smaller range instead of flooding the context. */
export const READ_MAX_CHARS = 256_000
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
  }),
)

/**
 * Read: a file's text with line numbers, or an image.
 */
export const Read = buildTool({
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
      'Other binary files cannot be read; use Bash with a suitable command (xxd, file, unzip -l) instead.',
      'Reading a file is also what allows Write and Edit to change it afterwards.',
    ].join(' '),
  inputSchema,
  maxResultSizeChars: Infinity,
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  getPath: (input) => input.file_path,
  validateInput: (input, context) => absolutePathCheck(input.file_path, context.cwd),
  async call({ file_path: path, offset, limit }, { ports }): Promise<ReadOutput> {
    const stat = await ports.fs.stat(path)
    if (stat === undefined) throw new Error(await missingFileMessage(ports.fs, path))
    if (stat.kind === 'directory') throw new Error(`${path} is a directory, not a file; list it with Glob or Bash (ls)`)
    const bytes = await ports.fs.readFile(path)
    const mediaType = IMAGE_TYPES[extname(path).toLowerCase()]
    if (mediaType !== undefined) {
      recordRead(ports, path, stat.mtimeMs, 'all')
      return { kind: 'image', mediaType, data: Buffer.from(bytes).toString('base64') }
    }
    if (bytes.subarray(0, 8192).includes(0)) {
      throw new Error(
        `${path} is a binary file (it contains NUL bytes), so it cannot be read as text; use Bash with a suitable command (file, xxd, strings, unzip -l) instead`,
      )
    }
    const text = Buffer.from(bytes).toString('utf8')
    const lines = text.split(/\r?\n/)
    if (lines.at(-1) === '') lines.pop()
    const first = offset ?? 1
    const count = limit ?? READ_DEFAULT_LIMIT
    recordRead(
      ports,
      path,
      stat.mtimeMs,
      offset === undefined && limit === undefined ? 'all' : { offset: first, limit: count },
    )
    if (lines.length === 0) return { kind: 'text', text: `(${path} is empty)` }
    if (first > lines.length) throw new Error(`${path} has ${lines.length} lines, so offset ${first} is past its end`)
    const slice = lines.slice(first - 1, first - 1 + count).map(cutLong)
    const body = numberLines(slice, first)
    if (body.length > READ_MAX_CHARS) {
      throw new Error(
        `lines ${first}-${first + slice.length - 1} of ${path} are ${body.length} characters, more than Read returns at once (${READ_MAX_CHARS}); read a smaller range with offset and limit, or find the lines you need with Grep first`,
      )
    }
    const rest = lines.length - (first - 1 + slice.length)
    return {
      kind: 'text',
      text:
        rest > 0
          ? `${body}\n… ${rest} more lines (${lines.length} in all); continue with offset ${first + slice.length}`
          : body,
    }
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

function cutLong(line: string): string {
  return line.length > READ_MAX_LINE_CHARS
    ? `${line.slice(0, READ_MAX_LINE_CHARS)}… [line cut: ${line.length} characters]`
    : line
}
