import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs'
import type { Clock, EventLog } from '../ports/index.js'
import type { FsyncPolicy } from '../ports/event-store.port.js'
import { JsonlLineParser, toJsonLine, type ParsedEnd } from '../events/jsonl.js'
import { StampingLog } from './memory-log.store.js'
import { systemClock } from './system.js'

export interface JsonlLogOptions {
  /**
   * When written lines are synced to the disk itself (survives a power cut, at a cost): `never`
   * (the default: a process crash loses nothing that a fence covered), at durability `fences`
   * (before a tool runs, before a turn's result), or at `every` write. `true` is `every`.
   */
  fsync?: boolean | FsyncPolicy
  /** Reports reading the history on open: bytes read so far and the file's size (after each chunk). */
  onProgress?: (bytesRead: number, totalBytes: number) => void
}

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
  const fd = openSync(path, 'a+')
  let history: JsonlFileContents
  try {
    history = readJsonlFd(fd, options.onProgress === undefined ? {} : { onProgress: options.onProgress })
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
  const log: EventLog = new StampingLog(clock, (event) => writer.add(toJsonLine(event)), history.events)
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

export interface ReadJsonlOptions {
  /** Bytes read at a time. Default 1 MiB; tests pass small chunks to cut through lines and characters. */
  chunkBytes?: number
  /** Called after each chunk with the bytes read so far and the file's size when reading began. */
  onProgress?: (bytesRead: number, totalBytes: number) => void
}

/** A log file as read: its events and bad lines, and where an append may go on. */
export interface JsonlFileContents extends ParsedEnd {
  /** Bytes up to the end of the last whole line: a torn last line starts here. */
  validBytes: number
}

/**
 * Reads a JSONL log file line by line, in fixed-size chunks, synchronously: memory holds the
 * events and one chunk, never the file's text (which may exceed what one string can hold).
 *
 * @example
 * const { events, corrupt, torn } = readJsonlFile('session.jsonl')
 */
export function readJsonlFile(path: string, options: ReadJsonlOptions = {}): JsonlFileContents {
  const fd = openSync(path, 'r')
  try {
    return readJsonlFd(fd, options)
  } finally {
    closeSync(fd)
  }
}

const DEFAULT_CHUNK_BYTES = 1 << 20
const NEWLINE = 0x0a

/**
 * Lines are split on the newline byte before decoding: in UTF-8 that byte never occurs inside a
 * multi-byte character, so a whole line always decodes whole, whatever the chunk boundaries, and
 * byte offsets (for cutting off a torn line) stay exact even when a crash cut a character in two.
 */
function readJsonlFd(fd: number, options: ReadJsonlOptions): JsonlFileContents {
  const total = fstatSync(fd).size
  const chunk = Buffer.allocUnsafe(Math.max(1, options.chunkBytes ?? DEFAULT_CHUNK_BYTES))
  const parser = new JsonlLineParser()
  // The start of a line begun in earlier chunks (copies: the chunk buffer is reused).
  let pending: Buffer[] = []
  let position = 0
  let lineEnd = 0
  for (let read = readSync(fd, chunk, 0, chunk.length, 0); read > 0;) {
    const bytes = read === chunk.length ? chunk : chunk.subarray(0, read)
    let start = 0
    for (let nl = bytes.indexOf(NEWLINE); nl !== -1; nl = bytes.indexOf(NEWLINE, start)) {
      parser.line(decode(pending, bytes, start, nl))
      pending = []
      start = nl + 1
      lineEnd = position + start
    }
    if (start < read) pending.push(Buffer.from(bytes.subarray(start)))
    position += read
    options.onProgress?.(position, total)
    read = readSync(fd, chunk, 0, chunk.length, position)
  }
  const end = parser.end(decode(pending, chunk, 0, 0))
  return { ...end, validBytes: end.unterminated ? position : lineEnd }
}

function decode(pending: readonly Buffer[], bytes: Buffer, start: number, end: number): string {
  if (pending.length === 0) return bytes.toString('utf8', start, end)
  return Buffer.concat([...pending, bytes.subarray(start, end)]).toString('utf8')
}
