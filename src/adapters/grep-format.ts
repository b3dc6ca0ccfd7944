/**
 * The Grep tool's lines, shaped the same way whichever engine found the matches: files sorted as
 * ripgrep's `--sort path` sorts them, lines in order, the limit applied last.
 */
import type { GrepOptions, GrepResult } from '../ports/index.js'
import { showName } from '../util/show-name.js'

/** A line to show: a match, or a context line around one. */
export interface Hit {
  line: number
  text: string
  match: boolean
}

/** What one file gave: its path relative to the root, its matching lines, and what to show. */
export interface FileMatches {
  path: string
  /** Matching lines (content mode: those in `hits`; the other modes need only the number). */
  count: number
  /** Content mode: the matches and their context, in line order. */
  hits: Hit[]
}

const SLASH = 0x2f

/**
 * Orders paths name by name, by UTF-16 code unit: `a/b` before `a.c` (the directory `a` sorts as
 * `a`). This is ripgrep's `--sort path` order, so its sorted output needs no reordering.
 */
export function comparePaths(a: string, b: string): number {
  // Name by name is code unit by code unit with '/' below every other character: at the first
  // difference, the path whose name ends there sorts first. No splitting, no allocation.
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    if (x === SLASH) return -1
    if (y === SLASH) return 1
    return x - y
  }
  return a.length - b.length
}

/**
 * Shapes matches into the tool's lines: `path:line: text` (context `path-line- text`), names, or
 * counts. A name with a control character is shown quoted and escaped (util/show-name.ts).
 */
export function formatGrep(
  files: FileMatches[],
  options: Pick<GrepOptions, 'mode' | 'limit' | 'context' | 'excluded'>,
  engine: GrepResult['engine'],
): GrepResult {
  const shown = (f: FileMatches) => f.count > 0 && options.excluded?.(f.path) !== true
  const found = files.filter(shown).sort((a, b) => comparePaths(a.path, b.path))
  if (options.mode !== 'content') {
    const lines = found
      .slice(0, options.limit)
      .map((f) => (options.mode === 'count' ? `${showName(f.path)}:${f.count}` : showName(f.path)))
    return { lines, truncated: found.length > options.limit, engine }
  }
  return { ...contentLines(found, options.limit, options.context), engine }
}

function contentLines(files: FileMatches[], limit: number, context: number): Omit<GrepResult, 'engine'> {
  const lines: string[] = []
  let shown = 0
  let last: { path: string; line: number } | undefined
  let lastMatch = 0
  for (const file of files) {
    for (const h of file.hits) {
      if (shown === limit) {
        if (h.match) return { lines, truncated: true }
        // Past the limit, only the context that follows the last match shown belongs to it.
        if (file.path !== last?.path || h.line > lastMatch + context) continue
      }
      if (last !== undefined && (last.path !== file.path || h.line > last.line + 1)) lines.push('--')
      const name = showName(file.path)
      lines.push(h.match ? `${name}:${h.line}: ${h.text}` : `${name}-${h.line}- ${h.text}`)
      if (h.match) {
        shown++
        lastMatch = h.line
      }
      last = { path: file.path, line: h.line }
    }
  }
  return { lines, truncated: false }
}
