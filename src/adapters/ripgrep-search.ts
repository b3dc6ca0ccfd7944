/**
 * Grep through ripgrep. Its output is read as it comes and ripgrep is stopped once the limit is
 * certainly passed, so memory holds the matches shown, not everything ripgrep could print. A
 * parallel run answers when everything fits under the limit; when it does not, a second run with
 * `--sort path` finds the first matches in path order (and stops there too), so the lines shown
 * past the limit are the same on every run and the same as the built-in search's.
 */
import { basename, dirname, relative } from 'node:path'
import type { GrepOptions, GrepResult } from '../ports/index.js'
import { formatGrep, type FileMatches } from './grep-format.js'
import { abortError, seconds } from './search-errors.js'
import { ALWAYS_IGNORED } from './search-walk.js'

/** ripgrep's stderr kept for an error message. */
const STDERR_CHARS = 16 * 1024

/** Searches `options.root` (a directory or a regular file, checked by the caller) with ripgrep. */
export async function ripgrepSearch(
  command: string,
  options: GrepOptions,
  isFile: boolean,
  timeoutMs: number,
): Promise<GrepResult> {
  const ends = Date.now() + timeoutMs
  const run = (sorted: boolean): Promise<Collected> =>
    runRipgrep(command, ripgrepArgs(options, sorted), collector(options, isFile), {
      signal: options.signal,
      timeoutMs: Math.max(1, ends - Date.now()),
      limitMs: timeoutMs,
      root: options.root,
      // ripgrep anchors globs (`src/*.ts`) at its working directory: make that the search root.
      cwd: isFile ? dirname(options.root) : options.root,
    })
  let collected = await run(false)
  // Counts need every file; a list cut short in ripgrep's parallel order is redone in path order.
  if (collected.stopped && options.mode !== 'count') collected = await run(true)
  return formatGrep(collected.files, options, 'ripgrep')
}

function ripgrepArgs(options: GrepOptions, sorted: boolean): string[] {
  // --crlf: `$` matches before CRLF, as in the built-in search, whose lines never end in the CR.
  const args = ['--no-config', '--hidden', '--no-require-git', '--crlf']
  args.push(...ALWAYS_IGNORED.flatMap((d) => ['--glob', `!${d}`]))
  if (options.mode === 'content') args.push('--json', '--max-count', String(options.limit + 1))
  else if (options.mode === 'files_with_matches') args.push('--files-with-matches', '--null')
  else args.push('--count', '--with-filename', '--null')
  if (sorted) args.push('--sort', 'path')
  if (options.ignoreCase) args.push('--ignore-case')
  if (options.mode === 'content' && options.context > 0) args.push('--context', String(options.context))
  if (options.glob !== undefined) args.push('--glob', options.glob)
  args.push('--regexp', options.pattern, '--', options.root)
  return args
}

interface Collected {
  files: FileMatches[]
  /** ripgrep was stopped because the limit was passed. */
  stopped: boolean
}

/** Takes ripgrep's records one by one; `take` answers false once no more are needed. */
interface Collector {
  separator: '\n' | '\0'
  take(record: string): boolean
  files(): FileMatches[]
}

interface RgEvent {
  type: string
  data?: {
    path?: { text?: string; bytes?: string }
    line_number?: number
    lines?: { text?: string; bytes?: string }
  }
}

const textOf = (value: { text?: string; bytes?: string } | undefined): string =>
  value?.text ?? Buffer.from(value?.bytes ?? '', 'base64').toString('utf8')

function collector(options: GrepOptions, isFile: boolean): Collector {
  const byPath = new Map<string, FileMatches>()
  const fileOf = (full: string): FileMatches => {
    const path = isFile ? basename(full) : relative(options.root, full).split('\\').join('/')
    let file = byPath.get(path)
    if (file === undefined) byPath.set(path, (file = { path, count: 0, hits: [] }))
    return file
  }
  const files = (): FileMatches[] => [...byPath.values()]
  let total = 0
  if (options.mode === 'files_with_matches') {
    return { separator: '\0', files, take: (path) => (fileOf(path).count = 1) && byPath.size <= options.limit }
  }
  if (options.mode === 'count') {
    // `path\0count\n` per file, and a path may hold a newline: records are cut at the NULs, the
    // first is a path, each later one the count, a newline and the next path.
    let path: string | undefined
    return {
      separator: '\0',
      files,
      take(record) {
        if (path === undefined) {
          path = record
          return true
        }
        const cut = record.indexOf('\n')
        fileOf(path).count = Number(cut < 0 ? record : record.slice(0, cut))
        path = cut < 0 || cut === record.length - 1 ? undefined : record.slice(cut + 1)
        return true
      },
    }
  }
  return {
    separator: '\n',
    files,
    take(record) {
      const event = JSON.parse(record) as RgEvent
      if (event.type !== 'match' && event.type !== 'context') return true
      const file = fileOf(textOf(event.data?.path))
      const match = event.type === 'match'
      const text = textOf(event.data?.lines).replace(/\r?\n$/, '')
      file.hits.push({ line: event.data?.line_number ?? 0, text, match })
      if (match) file.count++
      return !match || ++total <= options.limit
    },
  }
}

interface RunOptions {
  signal: AbortSignal | undefined
  /** What is left of the search's time limit. */
  timeoutMs: number
  /** The whole limit, for the message. */
  limitMs: number
  root: string
  cwd: string
}

async function runRipgrep(command: string, args: string[], collect: Collector, run: RunOptions): Promise<Collected> {
  const { execa } = await import('execa')
  const child = execa(command, args, {
    cwd: run.cwd,
    reject: false,
    buffer: false,
    stdin: 'ignore',
    encoding: 'utf8',
    timeout: run.timeoutMs,
    ...(run.signal !== undefined ? { cancelSignal: run.signal } : {}),
  })
  let stopped = false
  let stderr = ''
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    if (stderr.length < STDERR_CHARS) stderr += chunk
  })
  const stop = (): void => {
    stopped = true
    child.kill()
  }
  const split = recordSplitter(collect.separator, (record) => stopped || collect.take(record) || stop())
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (chunk: string) => {
    if (!stopped) split.push(chunk)
  })
  const result = await child
  if (!stopped) split.end()
  if (stopped) return { files: collect.files(), stopped: true }
  if (result.isCanceled) throw abortError(run.signal as AbortSignal)
  if (result.timedOut)
    throw new Error(
      `ripgrep took longer than ${seconds(run.limitMs)} s searching ${run.root}; narrow the path or the glob`,
    )
  // A failed start has no exit code: that is not "no matches" (exit 1).
  if (result.exitCode === undefined) {
    throw new Error(
      result.signal !== undefined
        ? `ripgrep (${command}) was killed by ${result.signal} before it finished`
        : `ripgrep (${command}) could not start: ${result.shortMessage}`,
    )
  }
  if (result.exitCode === 2) throw new Error(stderr.trim() || 'ripgrep failed')
  return { files: collect.files(), stopped: false }
}

/** Cuts a stream of text into records; a record split across chunks is joined before it is taken. */
function recordSplitter(separator: string, takeRecord: (record: string) => unknown) {
  let carry = ''
  const take = (record: string): void => {
    if (record !== '') takeRecord(record)
  }
  return {
    push(chunk: string): void {
      let at = chunk.indexOf(separator)
      if (at === -1) {
        carry += chunk
        return
      }
      take(carry + chunk.slice(0, at))
      for (let from = at + 1; ; from = at + 1) {
        at = chunk.indexOf(separator, from)
        if (at === -1) {
          carry = chunk.slice(from)
          return
        }
        take(chunk.slice(from, at))
      }
    },
    end(): void {
      if (carry !== '') take(carry)
      carry = ''
    },
  }
}
