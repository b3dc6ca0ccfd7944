/**
 * The built-in search reads and matches in worker threads, so a pattern that backtracks
 * catastrophically (`(a+)+$` on a long line) or a read that hangs blocks only a worker: the process
 * stays responsive, and the workers are terminated when the search times out or is aborted. Up to
 * two workers share a search (batches in turn, answers taken in order); idle ones are kept, unref'd,
 * for the next search.
 *
 * The workers' code is a string run with `eval: true` (grep-worker.source.ts), not a file beside
 * this one: vitest runs the TypeScript sources and cannot load a `.ts` worker, a separate `.js`
 * file would need a build step to copy it into dist/, and a bundler inlines a string but often
 * loses a worker file. The string is plain JavaScript that needs only node:fs and
 * node:worker_threads; the walk, the ignore rules and the formatting stay in typed code here, and
 * the search tests compare every path through the string with ripgrep.
 */
import type { Worker } from 'node:worker_threads'
import type { GrepOptions } from '../ports/index.js'
import type { Hit } from './grep-format.js'
import { WORKER_SOURCE } from './grep-worker.source.js'
import { builtin } from '../util/builtin.js'

/** What a worker answers for one file that matched (files without matches are left out). */
export interface MatchResult {
  id: number
  count: number
  hits: Hit[]
}

/** A file for a worker to read and match: `id` is its index in the search's file list. */
export interface FileRef {
  id: number
  path: string
}

/** What the workers need to know once per search. */
export interface MatchRequest extends Pick<GrepOptions, 'pattern' | 'ignoreCase' | 'mode' | 'context'> {
  /** Stop a file after this many matching lines (ripgrep's --max-count). */
  maxMatches: number
  /** How much of a file is decoded and matched at once: a large file goes in pieces, cut at lines. */
  pieceBytes: number
}

/** What a worker is doing now, for a timeout's message. */
export interface WorkerActivity {
  id: number
  phase: 'reading' | 'matching'
}

/** One search's workers: batches of files in, their results out, each batch answered in turn. */
export interface SearchWorkers {
  /** Reads and matches a batch on the next worker in turn. */
  match(files: FileRef[]): Promise<MatchResult[]>
  /** A file a worker is busy with now, if any. */
  busy(): WorkerActivity | undefined
  /**
   * Done. kill: the workers are terminated, mid-match or not (a timeout, an abort). Otherwise
   * they skip what is still queued and go back to the pool once they have answered.
   */
  close(kill: boolean): void
}

/** Workers kept for the next search, so most searches skip the start-up (about 20 ms each). */
const idle: Worker[] = []
/** The pool keeps as many idle workers as a search uses at most. */
export const MAX_WORKERS = 2

function acquire(): Worker {
  const worker = idle.pop() ?? new (builtin('node:worker_threads').Worker)(WORKER_SOURCE, { eval: true })
  worker.ref()
  return worker
}

function release(worker: Worker, kill: boolean): void {
  for (const event of ['message', 'error', 'exit'] as const) worker.removeAllListeners(event)
  if (kill || idle.length >= MAX_WORKERS) {
    void worker.terminate()
    return
  }
  // An idle worker must not keep the process alive, and one that dies is forgotten.
  worker.unref()
  worker.once('exit', () => {
    const at = idle.indexOf(worker)
    if (at !== -1) idle.splice(at, 1)
  })
  idle.push(worker)
}

/** Control words shared with a worker: the file it is on (+1), its phase (1 reading, 2 matching), cancel. */
const CURRENT = 0
const PHASE = 1
const CANCEL = 2

interface Lane {
  worker: Worker
  control: Int32Array
  waiting: Array<{ resolve: (r: MatchResult[]) => void; reject: (e: Error) => void }>
  failure: Error | undefined
}

function openLane(request: MatchRequest): Lane {
  const lane: Lane = {
    worker: acquire(),
    control: new Int32Array(new SharedArrayBuffer(12)),
    waiting: [],
    failure: undefined,
  }
  const fail = (error: Error): void => {
    lane.failure ??= error
    for (const w of lane.waiting.splice(0)) w.reject(lane.failure)
  }
  lane.worker.on('message', (results: MatchResult[]) => lane.waiting.shift()?.resolve(results))
  lane.worker.on('error', (error: Error) => fail(new Error(`the built-in search failed: ${error.message}`)))
  lane.worker.on('exit', (code: number) =>
    fail(new Error(`the built-in search stopped (its worker exited with ${code})`)),
  )
  lane.worker.postMessage({ type: 'start', ...request, control: lane.control.buffer })
  return lane
}

/** A worker still busy with batches nobody needs: it skips them, then goes back to the pool. */
function drain(lane: Lane): void {
  Atomics.store(lane.control, CANCEL, 1)
  let left = lane.waiting.length
  let released = false
  const done = (kill: boolean): void => {
    if (released || (--left > 0 && !kill)) return
    released = true
    release(lane.worker, kill)
  }
  lane.waiting = lane.waiting.map(() => ({ resolve: () => done(false), reject: () => done(true) }))
}

/** Starts a search on `count` workers (from the pool, or new). */
export function openSearchWorkers(request: MatchRequest, count: number): SearchWorkers {
  const lanes = Array.from({ length: Math.max(1, Math.min(count, MAX_WORKERS)) }, () => openLane(request))
  let turn = 0
  return {
    match(files) {
      const lane = lanes[turn++ % lanes.length] as Lane
      if (lane.failure !== undefined) return Promise.reject(lane.failure)
      return new Promise((resolve, reject) => {
        lane.waiting.push({ resolve, reject })
        lane.worker.postMessage({ type: 'files', files })
      })
    },
    busy() {
      for (const { control } of lanes) {
        const id = Atomics.load(control, CURRENT)
        if (id !== 0) return { id: id - 1, phase: Atomics.load(control, PHASE) === 2 ? 'matching' : 'reading' }
      }
      return undefined
    },
    close(kill) {
      for (const lane of lanes) {
        if (kill || lane.failure !== undefined || lane.waiting.length === 0) {
          release(lane.worker, kill || lane.failure !== undefined)
          continue
        }
        drain(lane)
      }
    },
  }
}
