import { join } from 'node:path'
import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import type { GlobMatch, GlobResult } from '../../ports/index.js'
import { showName } from '../../util/show-name.js'
import { absolutePathCheck } from './paths.js'

export const GLOB_LIMIT = 200

const inputSchema = lazySchema(() =>
  z.strictObject({
    pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/**/index.{js,ts}"'),
    path: z.string().optional().describe('Absolute directory to search in (default: the working directory)'),
  }),
)

/** Glob: file paths matching a pattern, newest first. */
export const Glob = buildTool({
  name: 'Glob',
  searchHint: 'find files pattern glob list directory',
  category: 'search',
  description: () => 'Finds files by glob pattern.',
  prompt: () =>
    [
      'Finds files whose paths match a glob pattern ("**/*.ts", "src/**/test_*.py") and returns their paths relative to the search directory, newest first, one per line.',
      'A path holding a control character (a newline, say) is shown as a JSON string in double quotes, with escapes.',
      'Use it to find files by name; to find files by their content use Grep.',
      `.git, node_modules and similar directories are skipped and .gitignore is respected. At most ${GLOB_LIMIT} paths are returned; the result says when more matched, so narrow the pattern or the path.`,
      'path, when given, must be an absolute directory.',
    ].join(' '),
  inputSchema,
  maxResultSizeChars: 100_000,
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  getPath: (input) => input.path,
  activityDescription: (input) => `Finding files matching ${input.pattern}`,
  validateInput: (input, context) => absolutePathCheck(input.path, context.cwd, 'path'),
  async call({ pattern, path }, { cwd, ports, mayRead, signal }) {
    const root = path ?? cwd
    const stat = await ports.fs.stat(root)
    if (stat?.kind !== 'directory') throw new Error(`${root} is not a directory`)
    // What a Read rule denies is never listed. The search keeps only what is shown (bounded memory).
    const excluded = (p: string): boolean => !mayRead(join(root, p))
    const found = await ports.search.glob(pattern, root, { limit: GLOB_LIMIT, excluded, signal })
    const { matches, total } = Array.isArray(found) ? wholeList(found, excluded) : found
    if (total === 0) return `No files match ${pattern} under ${root}`
    const shown = matches.slice(0, GLOB_LIMIT).map((m) => showName(m.path))
    const more = total - shown.length
    return more > 0
      ? `${shown.join('\n')}\n(${more} more matched, ${total} in all; narrow the pattern or the path)`
      : shown.join('\n')
  },
})

/** An app's search that answered with every match: filtered and cut here. */
function wholeList(found: GlobMatch[], excluded: (path: string) => boolean): GlobResult {
  const kept = found.filter((m) => !excluded(m.path))
  return { matches: kept.slice(0, GLOB_LIMIT), total: kept.length }
}
