import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import { absolutePathCheck } from './paths.js'

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
      'path, when given, must be absolute.',
    ].join(' '),
  inputSchema,
  maxResultSizeChars: 20_000,
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  getPath: (input) => input.path,
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
  async call(input, { cwd, ports }) {
    const root = input.path ?? cwd
    if ((await ports.fs.stat(root)) === undefined) throw new Error(`no such file or directory ${root}`)
    const mode = input.output_mode ?? 'files_with_matches'
    const result = await ports.search.grep({
      pattern: input.pattern,
      root,
      ...(input.glob !== undefined ? { glob: input.glob } : {}),
      ignoreCase: input['-i'] === true,
      context: mode === 'content' ? (input['-C'] ?? 0) : 0,
      mode,
      limit: GREP_LIMIT,
    })
    if (result.lines.length === 0) return `No matches for /${input.pattern}/ in ${root}`
    const note = result.truncated
      ? `\n(more than ${GREP_LIMIT} ${mode === 'content' ? 'matches' : 'files'}; narrow the pattern, path or glob)`
      : ''
    return result.lines.join('\n') + note
  },
})
