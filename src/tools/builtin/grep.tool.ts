import { join } from 'node:path'
import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { absolutePathCheck, specialFileWords } from './paths.js'

export const GREP_LIMIT = 100

const inputSchema = lazySchema(() =>
  z.strictObject({
    pattern: z
      .string()
      .min(1)
      .describe('Regular expression to search for (JavaScript syntax), e.g. "function\\\\s+load" or "TODO"'),
    path: z.string().optional().describe('Absolute file or directory to search (default: the working directory)'),
    glob: z.string().optional().describe('Only search files whose paths match this glob, e.g. "**/*.ts"'),
    output_mode: z
      .enum(['content', 'files_with_matches', 'count'])
      .optional()
      .describe(
        '"content": matching lines as path:line: text; "files_with_matches" (default): paths only; "count": matches per file',
      ),
    '-i': z.boolean().optional().describe('Ignore case'),
    '-C': z.number().int().min(0).max(20).optional().describe('Lines of context around each match (content mode)'),
  }),
)

/** Grep: searches file contents by regular expression. */
export const Grep = buildTool({
  name: 'Grep',
  searchHint: 'search content regex find text in files ripgrep',
  category: 'search',
  description: () => 'Searches file contents with a regular expression.',
  prompt: () =>
    [
      'Searches the contents of files for a regular expression. output_mode "files_with_matches" (the default) lists matching files; "content" shows matching lines as `path:line: text` (with -C lines of context as `path-line- text`); "count" gives matches per file.',
      'Use it to find where something is defined or used before you Read; to find files by name use Glob.',
      `Binary files and directories such as .git and node_modules are skipped, and .gitignore is respected. At most ${GREP_LIMIT} matches are returned; the result says when there were more, so narrow the pattern, the path or the glob.`,
      'path, when given, must be absolute. A file name holding a control character (a newline, say) is shown as a JSON string in double quotes, with escapes.',
    ].join(' '),
  inputSchema,
  maxResultSizeChars: 20_000,
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  getPath: (input) => input.path,
  activityDescription: (input) => `Searching for ${input.pattern}`,
  validateInput: (input, context) => {
    const path = absolutePathCheck(input.path, context.cwd, 'path')
    if (!path.result) return path
    try {
      new RegExp(input.pattern)
    } catch (error) {
      return { result: false, message: `pattern is not a valid regular expression: ${(error as Error).message}` }
    }
    return { result: true }
  },
  // A search has no effects: when the user interrupts, it stops.
  interruptBehavior: () => 'cancel',
  async call(input, { cwd, ports, signal, mayRead }) {
    const root = input.path ?? cwd
    const stat = await ports.fs.stat(root)
    if (stat === undefined) throw new Error(`no such file or directory ${root}`)
    // Refused before any search opens it: reading a FIFO blocks, a device never ends.
    if (stat.kind !== 'file' && stat.kind !== 'directory')
      throw new Error(
        `${root} is ${specialFileWords(stat.kind)}, not a regular file or a directory; Grep searches only those`,
      )
    const mode = input.output_mode ?? 'files_with_matches'
    const result = await ports.search.grep({
      pattern: input.pattern,
      root,
      ...(input.glob !== undefined ? { glob: input.glob } : {}),
      ignoreCase: input['-i'] === true,
      context: mode === 'content' ? (input['-C'] ?? 0) : 0,
      mode,
      limit: GREP_LIMIT,
      signal,
      // What a Read rule denies is never shown, whichever engine searched.
      excluded: (path) => !mayRead(stat.kind === 'file' ? root : join(root, path)),
    })
    if (result.lines.length === 0) return `No matches for /${input.pattern}/ in ${root}`
    const note = result.truncated
      ? `\n(more than ${GREP_LIMIT} ${mode === 'content' ? 'matches' : 'files'}; narrow the pattern, path or glob)`
      : ''
    return result.lines.join('\n') + note
  },
})
