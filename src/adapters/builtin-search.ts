/**
 * The built-in Grep, for machines without ripgrep. The walk and the formatting run here; reading
 * and matching run in worker threads (grep-worker.ts), so neither a pattern that backtracks
 * catastrophically nor a file system that hangs can block the process, and both end at the time
 * limit. Files go to the workers in path order, a batch at a time, and the answers are taken in
 * that order, so the search stops as soon as the limit is certainly passed.
 */
import { availableParallelism } from 'node:os'
import { basename } from 'node:path'
import type { GrepOptions, GrepResult } from '../ports/index.js'
import { formatGrep, type FileMatches } from './grep-format.js'
import { MAX_WORKERS, openSearchWorkers, type MatchResult, type SearchWorkers } from './grep-worker.js'
import { abortError, seconds } from './search-errors.js'
import { walkTree, type WalkedFile } from './search-walk.js'

/** Files per batch, and batches queued per worker: enough that a worker never waits for the next. */
const BATCH_FILES = 32
const QUEUED_PER_WORKER = 2

/** How the built-in search runs. */
export interface BuiltinTuning {
  timeoutMs: number
  /** A file larger than this is decoded and matched in pieces of about this size, cut at lines. */
  pieceBytes: number
}

/** Searches `options.root` (a directory or a regular file, checked by the caller). */
export async function builtinSearch(options: GrepOptions, isFile: boolean, tuning: BuiltinTuning): Promise<GrepResult> {
  const { timeoutMs, pieceBytes } = tuning
  // Compiling is linear, only matching can backtrack: a bad pattern fails here, with its reason.
  new RegExp(options.pattern, options.ignoreCase ? 'i' : '')
  const { signal } = options
  const guard = deadline(timeoutMs, signal)
  let workers: SearchWorkers | undefined
  let files: WalkedFile[] = []
  try {
    const work = (async () => {
      files = isFile
        ? [{ path: basename(options.root), full: options.root }]
        : await walkTree(options.root, options.glob, signal)
      // The search may be over (timed out, aborted) while the tree was walked: then start nothing.
      if (guard.fired() || files.length === 0) return []
      const count = Math.min(MAX_WORKERS, availableParallelism(), Math.ceil(files.length / BATCH_FILES))
      // Only plain data crosses into a worker (no signal, no callbacks).
      const { pattern, ignoreCase, mode, context } = options
      const request = { pattern, ignoreCase, mode, context, maxMatches: maxMatches(options), pieceBytes }
      workers = openSearchWorkers(request, count)
      return searchFiles(files, workers, options, guard)
    })()
    const found = await Promise.race([work, guard.expired])
    return formatGrep(found, options, 'builtin')
  } catch (error) {
    if (error === TIMED_OUT) throw new Error(timeoutMessage(options.root, timeoutMs, files, workers))
    throw error
  } finally {
    guard.clear()
    workers?.close(guard.fired())
  }
}

/** Per file, what can ever be shown: one match for a file list, limit + 1 for content (+1 tells "more"). */
function maxMatches(options: GrepOptions): number {
  if (options.mode === 'files_with_matches') return 1
  return options.mode === 'content' ? options.limit + 1 : Infinity
}

const TIMED_OUT = Symbol('timed out')

interface Deadline {
  /** Rejects with TIMED_OUT, or with the abort error. */
  expired: Promise<never>
  fired(): boolean
  clear(): void
}

function deadline(timeoutMs: number, signal: AbortSignal | undefined): Deadline {
  let fired = false
  let reject: (reason: unknown) => void = () => {}
  const expired = new Promise<never>((_, r) => (reject = r))
  expired.catch(() => {})
  const fire = (reason: unknown): void => {
    fired = true
    reject(reason)
  }
  const timer = setTimeout(() => fire(TIMED_OUT), timeoutMs)
  const onAbort = (): void => fire(abortError(signal as AbortSignal))
  if (signal?.aborted === true) onAbort()
  signal?.addEventListener('abort', onAbort, { once: true })
  return {
    expired,
    fired: () => fired,
    clear() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    },
  }
}

function timeoutMessage(root: string, timeoutMs: number, files: WalkedFile[], workers: SearchWorkers | undefined) {
  const busy = workers?.busy()
  const file = busy === undefined ? undefined : files[busy.id]
  const limit = `${seconds(timeoutMs)} s`
  if (file === undefined)
    return `the search took longer than ${limit} (walking the tree under ${root}); narrow the path or the glob`
  return busy?.phase === 'matching'
    ? `the pattern took longer than ${limit} on ${file.full}; it may backtrack catastrophically — simplify it`
    : `reading ${file.full} took longer than ${limit} (a slow or hung file system?); narrow the path or the glob`
}

/** Keeps every worker a batch ahead; takes the answers in order; stops once the limit is passed. */
async function searchFiles(
  files: WalkedFile[],
  workers: SearchWorkers,
  options: GrepOptions,
  guard: Deadline,
): Promise<FileMatches[]> {
  const found: FileMatches[] = []
  const enough = stopRule(options)
  const queued: Array<Promise<MatchResult[]>> = []
  const depth = QUEUED_PER_WORKER * MAX_WORKERS
  let next = 0
  const post = (): void => {
    const batch = files.slice(next, next + BATCH_FILES).map((f, i) => ({ id: next + i, path: f.full }))
    next += batch.length
    const answer = workers.match(batch)
    // A worker that fails rejects every batch it holds; only the first is awaited.
    answer.catch(() => {})
    queued.push(answer)
  }
  while (queued.length < depth && next < files.length) post()
  while (queued.length > 0 && !guard.fired()) {
    for (const r of await (queued.shift() as Promise<MatchResult[]>)) {
      found.push({ path: (files[r.id] as WalkedFile).path, count: r.count, hits: r.hits })
    }
    if (enough(found)) break
    while (queued.length < depth && next < files.length) post()
  }
  return found
}

/** Files are matched in path order, so the first matches found are the ones shown. */
function stopRule(options: GrepOptions): (found: FileMatches[]) => boolean {
  if (options.mode === 'count') return () => false
  if (options.mode === 'files_with_matches') return (found) => found.length > options.limit
  let total = 0
  let seen = 0
  return (found) => {
    for (; seen < found.length; seen++) total += (found[seen] as FileMatches).count
    return total > options.limit
  }
}
