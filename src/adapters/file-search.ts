/**
 * File search for Glob and Grep. Glob: the same walk as the built-in Grep (search-walk.ts: ignore
 * files as ripgrep reads them, symlinks not followed, special files skipped), streamed, keeping
 * only the newest matches it will return. Grep: ripgrep when it is on PATH, a built-in search
 * otherwise (its regular expressions in a worker thread); both give the same lines, sorted by path
 * and line. Either way the root must be a directory or a regular file: a FIFO or a device is
 * refused before anything opens it, and every search has a time limit and stops when the call is
 * aborted.
 */
import { stat } from 'node:fs/promises'
import type { FileSearch, GlobMatch, GlobOptions, GlobResult, GrepOptions } from '../ports/index.js'
import { builtinSearch } from './builtin-search.js'
import { describeKind, kindOf } from './node-fs.js'
import { ripgrepSearch } from './ripgrep-search.js'
import { abortError } from './search-errors.js'
import { expandBraces, gitignoreGlob, walkFiles } from './search-walk.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

export { ALWAYS_IGNORED } from './search-walk.js'

/** A search's time limit unless the options or the call say otherwise. */
export const GREP_TIMEOUT_MS = 20_000
const PIECE_BYTES = 16 * 1024 * 1024
/** Files stat'ed at once while Glob walks: what bounds the Stats objects and promises alive. */
export const GLOB_STAT_BATCH = 32

/**
 * A Glob pattern as a test of a relative path, as tinyglobby (picomatch) reads it: anchored at the
 * root (`*.ts` only there, `**` then `/*.ts` at any depth), `*` and `?` within a name, braces
 * expanded, dot files matched. A leading `./` is the root.
 */
export function globPathTest(pattern: string): (path: string) => boolean {
  const body = pattern.startsWith('./') ? pattern.slice(2) : pattern
  const regexes = expandBraces(body).map((p) => gitignoreGlob(`/${p.replace(/^\/+/, '')}`))
  return (path) => regexes.some((r) => !r.dirOnly && r.regex.test(path))
}

/** Newest first, then by path: the order Glob shows. */
const newerFirst = (a: GlobMatch, b: GlobMatch): number => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path)

/** The `limit` newest matches so far, newest first: an insertion into a sorted array that never grows past it. */
function keepNewest(kept: GlobMatch[], match: GlobMatch, limit: number): void {
  if (limit === 0) return
  if (kept.length === limit && newerFirst(match, kept[kept.length - 1] as GlobMatch) >= 0) return
  let lo = 0
  let hi = kept.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (newerFirst(kept[mid] as GlobMatch, match) <= 0) lo = mid + 1
    else hi = mid
  }
  kept.splice(lo, 0, match)
  if (kept.length > limit) kept.pop()
}

/**
 * Files under `root` matching `pattern`, ignore files honoured, newest first: the walk streams,
 * files are stat'ed GLOB_STAT_BATCH at a time, and only the newest `limit` are kept, so memory
 * does not grow with the number of matches (docs/decisions/tools.md).
 */
async function globFiles(pattern: string, root: string, options: GlobOptions = {}): Promise<GlobResult> {
  const { signal } = options
  if (signal?.aborted === true) throw abortError(signal)
  const limit = Math.max(0, Math.floor(options.limit ?? Number.MAX_SAFE_INTEGER))
  const matches = globPathTest(pattern)
  const kept: GlobMatch[] = []
  let total = 0
  for await (const batch of walkFiles(root, undefined, signal)) {
    const wanted = batch.filter((f) => matches(f.path) && options.excluded?.(f.path) !== true)
    for (let at = 0; at < wanted.length; at += GLOB_STAT_BATCH) {
      signal?.throwIfAborted()
      const slice = wanted.slice(at, at + GLOB_STAT_BATCH)
      const times = await Promise.all(
        slice.map((f) =>
          stat(f.full).then(
            (s) => s.mtimeMs,
            () => 0,
          ),
        ),
      )
      slice.forEach((f, i) => keepNewest(kept, { path: f.path, mtimeMs: times[i] as number }, limit))
      total += slice.length
    }
  }
  return { matches: kept, total }
}

export interface FileSearchOptions {
  /**
   * true: always ripgrep (an error when it cannot start); false: always the built-in search;
   * unset: ripgrep when it runs.
   */
  ripgrep?: boolean
  /** The ripgrep program (default `rg`, looked up on PATH). */
  ripgrepCommand?: string
  /** Each search's time limit (default GREP_TIMEOUT_MS); `GrepOptions.timeoutMs` overrides it. */
  timeoutMs?: number
  /**
   * The built-in search decodes and matches a file larger than this in pieces, cut at lines, so
   * memory stays bounded whatever the file's size (default 16 MiB). Tests make it small.
   */
  builtinPieceBytes?: number
}

const probes = new Map<string, Promise<boolean>>()
/** Whether `command --version` runs; asked once per command. */
const ripgrepRuns = (command: string): Promise<boolean> => {
  let probe = probes.get(command)
  if (probe === undefined) {
    probe = import('execa')
      .then(({ execa }) => execa(command, ['--version'], { reject: false }))
      .then(
        (r) => r.exitCode === 0,
        () => false,
      )
    probes.set(command, probe)
  }
  return probe
}

/** Whether the root is a file; throws for a missing root or one that is neither a file nor a directory. */
async function rootIsFile(root: string): Promise<boolean> {
  const s = await stat(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') throw new Error(`no such file or directory ${root}`)
    throw error
  })
  const kind = kindOf(s)
  if (kind === 'file' || kind === 'directory') return kind === 'file'
  throw new Error(`${root} is ${describeKind(kind)}, not a regular file or a directory; Grep searches only those`)
}

const FILE_SEARCH_OPTIONS = optionNames<FileSearchOptions>()(
  'ripgrep',
  'ripgrepCommand',
  'timeoutMs',
  'builtinPieceBytes',
)

/**
 * The real file search.
 *
 * @example
 * const search = createFileSearch({ ripgrep: false, timeoutMs: 5_000 }) // built-in, 5 s per search
 */
export function createFileSearch(options: FileSearchOptions = {}): FileSearch {
  checkOptionsObject('createFileSearch', options, FILE_SEARCH_OPTIONS)
  const command = options.ripgrepCommand ?? 'rg'
  return {
    glob: globFiles,
    async grep(grepOptions: GrepOptions) {
      if (grepOptions.signal?.aborted === true) throw abortError(grepOptions.signal)
      const isFile = await rootIsFile(grepOptions.root)
      const timeoutMs = grepOptions.timeoutMs ?? options.timeoutMs ?? GREP_TIMEOUT_MS
      const useRipgrep = options.ripgrep ?? (await ripgrepRuns(command))
      return useRipgrep
        ? ripgrepSearch(command, grepOptions, isFile, timeoutMs)
        : builtinSearch(grepOptions, isFile, { timeoutMs, pieceBytes: options.builtinPieceBytes ?? PIECE_BYTES })
    },
  }
}
