/**
 * File search for Glob and Grep. Glob: tinyglobby walks the tree and `ignore` applies every
 * .gitignore on the way. Grep: ripgrep when it is on PATH, a built-in search otherwise (its
 * regular expressions in a worker thread); both give the same lines, sorted by path and line.
 * Either way the root must be a directory or a regular file: a FIFO or a device is refused before
 * anything opens it, and every search has a time limit and stops when the call is aborted.
 */
import { ignoreRules, type Ignore } from '../util/ignore-rules.js'
import { readFile, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { GlobOptions } from 'tinyglobby'
import type { FileSearch, GlobMatch, GrepOptions } from '../ports/index.js'
import { builtinSearch } from './builtin-search.js'
import { describeKind, kindOf } from './node-fs.js'
import { ripgrepSearch } from './ripgrep-search.js'
import { abortError } from './search-errors.js'
import { ALWAYS_IGNORED } from './search-walk.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

export { ALWAYS_IGNORED } from './search-walk.js'

/** A search's time limit unless the options or the call say otherwise. */
export const GREP_TIMEOUT_MS = 20_000
const PIECE_BYTES = 16 * 1024 * 1024

const ignoreGlobs = ALWAYS_IGNORED.map((d) => `**/${d}/**`)

/** tinyglobby, loaded on the first Glob: importing the kernel does not pay for it. */
const walk = async (pattern: string, options: GlobOptions): Promise<string[]> =>
  (await import('tinyglobby')).glob(pattern, options)

async function gitignores(root: string): Promise<Array<{ dir: string; rules: Ignore }>> {
  const files = await walk('**/.gitignore', { cwd: root, ignore: ignoreGlobs, dot: true, absolute: false })
  return Promise.all(
    files.map(async (file) => ({
      dir: dirname(file) === '.' ? '' : dirname(file),
      rules: ignoreRules().add(await readFile(join(root, file), 'utf8')),
    })),
  )
}

function isIgnored(path: string, rules: Array<{ dir: string; rules: Ignore }>): boolean {
  return rules.some(({ dir, rules: r }) => {
    if (dir !== '' && !path.startsWith(`${dir}/`)) return false
    return r.ignores(dir === '' ? path : path.slice(dir.length + 1))
  })
}

/** Files under `root` matching `pattern`, ignore files honoured, newest first. */
async function globFiles(pattern: string, root: string): Promise<GlobMatch[]> {
  const [paths, rules] = await Promise.all([
    walk(pattern, { cwd: root, ignore: ignoreGlobs, dot: true, onlyFiles: true }),
    gitignores(root),
  ])
  const kept = paths.filter((p) => !isIgnored(p, rules))
  const stats = await Promise.all(
    kept.map(async (path) => ({ path, mtimeMs: (await stat(join(root, path)).catch(() => undefined))?.mtimeMs ?? 0 })),
  )
  return stats.sort((a, b) => b.mtimeMs - a.mtimeMs || a.path.localeCompare(b.path))
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
