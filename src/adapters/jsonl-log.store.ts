import { closeSync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs'
import type { Clock, EventLog } from '../ports/index.js'
import type { FsyncPolicy } from '../ports/event-store.port.js'
import { toJsonLine } from '../events/jsonl.js'
import { lastSnapshotOffset, readJsonlFd, type JsonlFileContents } from './jsonl-file.js'
import { historyFromSnapshot } from '../events/snapshot.js'
import { StampingLog, turnWindow } from './memory-log.store.js'
import { systemClock } from './system.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

export interface JsonlLogOptions {
  /**
   * When written lines are synced to the disk itself (survives a power cut, at a cost): `never`
   * (the default: a process crash loses nothing that a fence covered), at durability `fences`
   * (before a tool runs, before a turn's result), or at `every` write. `true` is `every`.
   */
  fsync?: boolean | FsyncPolicy
  /** Reports reading the history on open: bytes read so far and the file's size (after each chunk). */
  onProgress?: (bytesRead: number, totalBytes: number) => void
  /**
   * Keep in memory only the last `retainTurns` finished turns, as the memory log's option of the
   * same name does (what stays of older turns is the same); the file keeps every event. Default:
   * everything, in memory too.
   */
  retainTurns?: number
  /**
   * Read the history from the file's last `session.snapshot` on (issue 33; docs/stores.md
   * §Snapshots): its carried events, then the snapshot and every line after it — what a kernel
   * resuming the session needs, at a cost that does not grow with the file. `read()` then holds
   * that history, not every event. A snapshot that does not read back is passed over and the
   * whole file read (decision 167). Default false: the whole file.
   */
  fromSnapshot?: boolean
}

const JSONL_LOG_OPTIONS = optionNames<JsonlLogOptions>()('fsync', 'onProgress', 'retainTurns', 'fromSnapshot')

/**
 * An append-only JSONL event log on disk. Appends are stamped in memory and group-committed:
 * the lines gathered since the last write go out in one `writeSync` (a parallel batch is one
 * write), at the next turn of the event loop or at a durability fence (`fence()`, which the
 * kernel awaits before a tool runs and before a turn's result), whichever comes first. Reopening
 * repairs what a crash can leave: a torn last line is cut off; a last line that is whole but lost
 * its newline gets the newline, so the next append does not glue two lines. Existing events are
 * loaded as history, read in chunks (a log of any size).
 *
 * @throws Error when the file holds corrupt lines other than a torn last one (refuse to append
 * to a log we cannot read back); the file is then left as it was.
 */
export function createJsonlLog(path: string, clock: Clock = systemClock, options: JsonlLogOptions = {}): EventLog {
  checkOptionsObject('createJsonlLog', options, JSONL_LOG_OPTIONS)
  const window = turnWindow(options.retainTurns, 'createJsonlLog')
  const fd = openSync(path, 'a+')
  let history: JsonlFileContents
  try {
    history = readHistory(fd, options)
    const first = history.corrupt[0]
    if (first !== undefined)
      throw new Error(`${path}:${first.line}: ${first.message}; refusing to append to a log that does not read back`)
    ftruncateSync(fd, history.validBytes)
    if (history.unterminated) writeSync(fd, '\n')
  } catch (error) {
    closeSync(fd)
    throw error
  }
  const policy: FsyncPolicy =
    options.fsync === true ? 'every' : options.fsync === false ? 'never' : (options.fsync ?? 'never')
  const writer = new GroupWriter(fd, policy)
  const log: EventLog = new StampingLog(clock, (event) => writer.add(toJsonLine(event)), history.events, window)
  const close = log.close.bind(log)
  let closed = false
  log.close = () => {
    if (closed) return
    closed = true
    try {
      writer.flush(false)
    } finally {
      closeSync(fd)
      close()
    }
  }
  log.fence = () => {
    try {
      writer.flush(true)
      return Promise.resolve()
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }
  return log
}

/** The whole file, or (with `fromSnapshot`) the history from its last snapshot that reads back. */
function readHistory(fd: number, options: JsonlLogOptions): JsonlFileContents {
  const reading = options.onProgress === undefined ? {} : { onProgress: options.onProgress }
  if (options.fromSnapshot !== undefined && typeof options.fromSnapshot !== 'boolean')
    throw new TypeError(`createJsonlLog: fromSnapshot must be true or false, got ${String(options.fromSnapshot)}`)
  if (options.fromSnapshot !== true) return readJsonlFd(fd, reading)
  const at = lastSnapshotOffset(fd)
  if (at === undefined) return readJsonlFd(fd, reading)
  const tail = readJsonlFd(fd, { ...reading, startByte: at })
  const from = tail.corrupt.length === 0 ? historyFromSnapshot(tail.events) : undefined
  return from?.ok === true ? { ...tail, events: from.history } : readJsonlFd(fd, reading)
}

/**
 * Lines waiting for their write. A write that fails keeps its lines and its error: every later
 * flush (and so every fence) fails with it, and nothing after the gap is written.
 */
class GroupWriter {
  #lines: string[] = []
  #scheduled = false
  #failed: unknown
  /** Written since the last fsync. */
  #dirty = false

  constructor(
    private readonly fd: number,
    private readonly policy: FsyncPolicy,
  ) {}

  add(line: string): void {
    this.#lines.push(line)
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      try {
        this.flush(false)
      } catch {
        // Kept in #failed: the next fence reports it.
      }
    })
  }

  flush(fence: boolean): void {
    if (this.#failed !== undefined) throw this.#failed
    try {
      if (this.#lines.length > 0) {
        writeSync(this.fd, this.#lines.length === 1 ? (this.#lines[0] as string) : this.#lines.join(''))
        this.#lines = []
        this.#dirty = true
      }
      if (this.#dirty && (this.policy === 'every' || (fence && this.policy === 'fences'))) {
        fsyncSync(this.fd)
        this.#dirty = false
      }
    } catch (error) {
      this.#failed = error
      throw error
    }
  }
}

export { readJsonlFile, type JsonlFileContents, type ReadJsonlOptions } from './jsonl-file.js'
