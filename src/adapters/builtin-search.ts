/**
 * The built-in Grep, for machines without ripgrep. The walk and the formatting run here; reading
 * and matching run in worker threads (grep-worker.ts), so neither a pattern that backtracks
 * catastrophically nor a file system that hangs can block the process, and both end at the time
 * limit. The walk yields files in path order as it finds them; they go to the workers in that
 * order, a batch at a time, while the walk goes on, and the answers are taken in that order, so the
 * search — walk included — stops as soon as the limit is certainly passed.
 */
import { availableParallelism } from 'node:os'
import { basename } from 'node:path'
import type { GrepOptions, GrepResult } from '../ports/index.js'
import { formatGrep, type FileMatches } from './grep-format.js'
import { MAX_WORKERS, openSearchWorkers, type FileRef, type MatchResult, type SearchWorkers } from './grep-worker.js'
import { abortError, seconds } from './search-errors.js'
import { walkFiles, type WalkedFile } from './search-walk.js'

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
  const feed = new FileFeed(
    isFile
      ? single({ path: basename(options.root), full: options.root })
      : walkFiles(options.root, options.glob, signal),
  )
  try {
    const work = (async () => {
      // Enough of the walk to know how many workers are worth starting.
      await feed.fill(BATCH_FILES * MAX_WORKERS)
      // The search may be over (timed out, aborted) while the tree was walked: then start nothing.
      if (guard.fired() || feed.files.length === 0) return []
      const count = Math.min(MAX_WORKERS, availableParallelism(), Math.ceil(feed.files.length / BATCH_FILES))
      // Only plain data crosses into a worker (no signal, no callbacks).
      const { pattern, ignoreCase, mode, context } = options
      const request = { pattern, ignoreCase, mode, context, maxMatches: maxMatches(options), pieceBytes }
      workers = openSearchWorkers(request, count)
      return searchFiles(feed, workers, options, guard)
    })()
    const found = await Promise.race([work, guard.expired])
    return formatGrep(found, options, 'builtin')
  } catch (error) {
    if (error === TIMED_OUT) throw new Error(timeoutMessage(options.root, timeoutMs, feed.files, workers))
    throw error
  } finally {
    guard.clear()
    feed.stop()
    workers?.close(guard.fired())
  }
}

async function* single(file: WalkedFile): AsyncGenerator<WalkedFile[], void, undefined> {
  yield [file]
}

/** The files the walk has found so far (a file's id is its index), and the walk that finds more. */
class FileFeed {
  readonly files: WalkedFile[] = []
  /** Files before this one have gone to a worker. */
  next = 0
  private done = false

  constructor(private readonly walk: AsyncGenerator<WalkedFile[], void, undefined>) {}

  /** Walks on until `count` files wait to be posted, or the walk is over. */
  async fill(count: number): Promise<void> {
    while (!this.done && this.files.length - this.next < count) {
      const step = await this.walk.next()
      if (step.done === true) this.done = true
      else for (const file of step.value) this.files.push(file)
    }
  }

  /** The next batch of at most `size` files, walking on for it; empty once the walk is over. */
  async take(size: number): Promise<FileRef[]> {
    await this.fill(size)
    const batch = this.files.slice(this.next, this.next + size).map((f, i) => ({ id: this.next + i, path: f.full }))
    this.next += batch.length
    return batch
  }

  /** No more files are wanted: the walk ends where it is. */
  stop(): void {
    if (this.done) return
    this.done = true
    // A walk waiting on a listing finishes that step, then ends; its failure is nobody's concern now.
    this.walk.return(undefined).catch(() => {})
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
  feed: FileFeed,
  workers: SearchWorkers,
  options: GrepOptions,
  guard: Deadline,
): Promise<FileMatches[]> {
  const found: FileMatches[] = []
  const enough = stopRule(options)
  const queued: Array<Promise<MatchResult[]>> = []
  const depth = QUEUED_PER_WORKER * MAX_WORKERS
  /** Posts batches until `depth` are queued or the walk has no more files. */
  const topUp = async (): Promise<void> => {
    while (queued.length < depth && !guard.fired()) {
      const batch = await feed.take(BATCH_FILES)
      if (batch.length === 0) return
      const answer = workers.match(batch)
      // A worker that fails rejects every batch it holds; only the first is awaited.
      answer.catch(() => {})
      queued.push(answer)
    }
  }
  await topUp()
  while (queued.length > 0 && !guard.fired()) {
    for (const r of await (queued.shift() as Promise<MatchResult[]>)) {
      found.push({ path: (feed.files[r.id] as WalkedFile).path, count: r.count, hits: r.hits })
    }
    if (enough(found)) break
    await topUp()
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
