/**
 * File search for Glob and Grep: tinyglobby walks the tree, `ignore` applies every .gitignore on
 * the way, and the usual heavy directories are never entered. Grep uses ripgrep when it is on
 * PATH and a built-in search otherwise; both give the same lines, sorted by path and line.
 */
import ignore, { type Ignore } from 'ignore'
import { readFile, stat } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import { glob as walk } from 'tinyglobby'
import type { FileSearch, GlobMatch, GrepOptions, GrepResult } from '../ports/index.js'

/** Directories no search enters. */
export const ALWAYS_IGNORED = [
  '.git',
  'node_modules',
  '.hg',
  '.svn',
  '.venv',
  'venv',
  '__pycache__',
  'dist',
  'build',
  '.next',
  '.cache',
  'coverage',
  'target',
]

const ignoreGlobs = ALWAYS_IGNORED.map((d) => `**/${d}/**`)

async function gitignores(root: string): Promise<Array<{ dir: string; rules: Ignore }>> {
  const files = await walk('**/.gitignore', { cwd: root, ignore: ignoreGlobs, dot: true, absolute: false })
  return Promise.all(
    files.map(async (file) => ({
      dir: dirname(file) === '.' ? '' : dirname(file),
      rules: ignore().add(await readFile(join(root, file), 'utf8')),
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

export function createFileSearch(options: FileSearchOptions = {}): FileSearch {
  const command = options.ripgrepCommand ?? 'rg'
  return {
    glob: globFiles,
    async grep(grepOptions) {
      const useRipgrep = options.ripgrep ?? (await ripgrepRuns(command))
      return useRipgrep ? ripgrepSearch(command, grepOptions) : builtinSearch(grepOptions)
    },
  }
}

interface Hit {
  path: string
  line: number
  text: string
  match: boolean
}

/** Shapes hits into the tool's lines: `path:line: text` (context lines `path-line- text`), names, or counts. */
function format(hits: Hit[], mode: GrepOptions['mode'], limit: number, engine: GrepResult['engine']): GrepResult {
  hits.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line)
  const matches = hits.filter((h) => h.match)
  if (mode === 'files_with_matches' || mode === 'count') {
    const counts = new Map<string, number>()
    for (const h of matches) counts.set(h.path, (counts.get(h.path) ?? 0) + 1)
    const entries = [...counts]
    const lines = entries.slice(0, limit).map(([path, n]) => (mode === 'count' ? `${path}:${n}` : path))
    return { lines, truncated: entries.length > limit, engine }
  }
  const lines: string[] = []
  let shown = 0
  let truncated = false
  let last: Hit | undefined
  for (const h of hits) {
    if (h.match && shown === limit) {
      truncated = true
      break
    }
    if (last !== undefined && (last.path !== h.path || h.line > last.line + 1)) lines.push('--')
    lines.push(h.match ? `${h.path}:${h.line}: ${h.text}` : `${h.path}-${h.line}- ${h.text}`)
    if (h.match) shown++
    last = h
  }
  return { lines, truncated, engine }
}

async function builtinSearch(options: GrepOptions): Promise<GrepResult> {
  const regex = new RegExp(options.pattern, options.ignoreCase ? 'i' : '')
  const rootStat = await stat(options.root)
  const files = rootStat.isFile()
    ? [{ path: basename(options.root), full: options.root }]
    : (await globFiles(options.glob ?? '**/*', options.root)).map((m) => ({
        path: m.path,
        full: join(options.root, m.path),
      }))
  const hits: Hit[] = []
  for (const file of files) {
    const bytes = await readFile(file.full).catch(() => undefined)
    if (bytes === undefined || bytes.subarray(0, 8192).includes(0)) continue
    const lines = bytes.toString('utf8').split(/\r?\n/)
    if (lines.at(-1) === '') lines.pop()
    const keep = new Set<number>()
    const matched = new Set<number>()
    lines.forEach((text, i) => {
      if (!regex.test(text)) return
      matched.add(i)
      for (let j = Math.max(0, i - options.context); j <= Math.min(lines.length - 1, i + options.context); j++)
        keep.add(j)
    })
    for (const i of keep) hits.push({ path: file.path, line: i + 1, text: lines[i] ?? '', match: matched.has(i) })
  }
  return format(hits, options.mode, options.limit, 'builtin')
}

async function ripgrepSearch(command: string, options: GrepOptions): Promise<GrepResult> {
  const args = [
    '--json',
    '--no-config',
    '--hidden',
    '--no-require-git',
    ...ALWAYS_IGNORED.flatMap((d) => ['--glob', `!${d}`]),
  ]
  if (options.ignoreCase) args.push('--ignore-case')
  if (options.context > 0) args.push('--context', String(options.context))
  if (options.glob !== undefined) args.push('--glob', options.glob)
  args.push('--regexp', options.pattern, '--', options.root)
  const { execa } = await import('execa')
  const result = await execa(command, args, { reject: false, maxBuffer: 256 * 1024 * 1024 })
  // A failed start has no exit code: that is not "no matches" (exit 1).
  if (result.exitCode === undefined)
    throw new Error(`ripgrep (${command}) could not start: ${result.shortMessage ?? result.message}`)
  if (result.exitCode === 2) throw new Error(result.stderr.trim() || 'ripgrep failed')
  const rootIsFile = (await stat(options.root)).isFile()
  const hits: Hit[] = []
  for (const line of result.stdout.split('\n')) {
    if (line === '') continue
    const event = JSON.parse(line) as {
      type: string
      data?: { path?: { text?: string }; line_number?: number; lines?: { text?: string } }
    }
    if (event.type !== 'match' && event.type !== 'context') continue
    const full = event.data?.path?.text ?? ''
    const path = rootIsFile ? basename(full) : relative(options.root, full).split('\\').join('/')
    const text = (event.data?.lines?.text ?? '').replace(/\r?\n$/, '')
    hits.push({ path, line: event.data?.line_number ?? 0, text, match: event.type === 'match' })
  }
  return format(hits, options.mode, options.limit, 'ripgrep')
}
