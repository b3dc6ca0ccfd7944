/**
 * Reading a JSONL log file, apart from the live log (which needs rxjs for its feed): the CLI's
 * log commands load a file without importing the engine.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { JsonlLineParser, type ParsedEnd } from '../events/jsonl.js'

export interface ReadJsonlOptions {
  /** Bytes read at a time. Default 1 MiB; tests pass small chunks to cut through lines and characters. */
  chunkBytes?: number
  /** Called after each chunk with the bytes read so far and the file's size when reading began. */
  onProgress?: (bytesRead: number, totalBytes: number) => void
  /**
   * The longest line read (default DEFAULT_MAX_LINE_BYTES); a longer one throws LogLineTooLong
   * as soon as that much of it is read. Tests make it small.
   */
  maxLineBytes?: number
  /**
   * Where reading starts: the first byte of a line (a session's last snapshot, issue 33).
   * Default 0. Line numbers count from there.
   */
  startByte?: number
  /** Where reading stops: the end of a line, or the file's size (default). */
  endByte?: number
}

/**
 * The longest log line read by default: 256 MiB, well under the longest string V8 can make
 * (2²⁹ − 24 UTF-16 units), past which decoding would fail with V8's own "Cannot create a string
 * longer than…" and no word of where. An event that large is not one the kernel writes.
 */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024

/** A line past the reader's limit: its number (from 1) and the limit. */
export class LogLineTooLong extends Error {
  constructor(
    readonly line: number,
    readonly limitBytes: number,
  ) {
    super(
      `line ${line} is longer than ${sizeText(limitBytes)}, the most a log line may hold; the file is not a toolkernel log, or that line was damaged (a missing newline joins lines)`,
    )
    this.name = 'LogLineTooLong'
  }
}

/** `2 MiB`, `16 KiB`, `1000 bytes`: a limit as the error states it. */
function sizeText(bytes: number): string {
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)} MiB`
  if (bytes >= 1 << 10 && bytes % (1 << 10) === 0) return `${bytes / (1 << 10)} KiB`
  return `${bytes} bytes`
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
export function readJsonlFd(fd: number, options: ReadJsonlOptions): JsonlFileContents {
  const total = fstatSync(fd).size
  const stop = options.endByte ?? Infinity
  const chunk = Buffer.allocUnsafe(Math.max(1, options.chunkBytes ?? DEFAULT_CHUNK_BYTES))
  const parser = new JsonlLineParser()
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  // The start of a line begun in earlier chunks (copies: the chunk buffer is reused), never more
  // than maxLine bytes: a longer line throws before it is decoded, as soon as it is that long.
  let pending: Buffer[] = []
  let pendingBytes = 0
  let lines = 0
  let position = options.startByte ?? 0
  let lineEnd = position
  const readAt = (at: number): number =>
    at >= stop ? 0 : readSync(fd, chunk, 0, Math.min(chunk.length, stop - at), at)
  for (let read = readAt(position); read > 0;) {
    const bytes = read === chunk.length ? chunk : chunk.subarray(0, read)
    let start = 0
    for (let nl = bytes.indexOf(NEWLINE); nl !== -1; nl = bytes.indexOf(NEWLINE, start)) {
      lines++
      if (pendingBytes + nl - start > maxLine) throw new LogLineTooLong(lines, maxLine)
      parser.line(decode(pending, bytes, start, nl))
      pending = []
      pendingBytes = 0
      start = nl + 1
      lineEnd = position + start
    }
    if (start < read) {
      pendingBytes += read - start
      if (pendingBytes > maxLine) throw new LogLineTooLong(lines + 1, maxLine)
      pending.push(Buffer.from(bytes.subarray(start)))
    }
    position += read
    options.onProgress?.(position, total)
    read = readAt(position)
  }
  const end = parser.end(decode(pending, chunk, 0, 0))
  return { ...end, validBytes: end.unterminated ? position : lineEnd }
}

function decode(pending: readonly Buffer[], bytes: Buffer, start: number, end: number): string {
  if (pending.length === 0) return bytes.toString('utf8', start, end)
  return Buffer.concat([...pending, bytes.subarray(start, end)]).toString('utf8')
}

const SNAPSHOT_MARK = Buffer.from('"type":"session.snapshot"')

/**
 * The byte offset of the file's last line whose event is a `session.snapshot` (issue 33), read
 * back from the end in chunks: the cost is the bytes after that line, not the file. A line that
 * only mentions the type in its data, or does not parse (a torn last line), is passed over.
 */
export function lastSnapshotOffset(fd: number, chunkBytes = DEFAULT_CHUNK_BYTES): number | undefined {
  let end = fstatSync(fd).size
  // The start of a line begun before the chunk last read: its end is in `carry`.
  let carry = Buffer.alloc(0)
  while (end > 0) {
    const start = Math.max(0, end - chunkBytes)
    const chunk = Buffer.allocUnsafe(end - start)
    readSync(fd, chunk, 0, chunk.length, start)
    const data = carry.length === 0 ? chunk : Buffer.concat([chunk, carry])
    // Lines wholly in `data`: after its first newline, or all of it at the file's start.
    const newline = data.indexOf(NEWLINE)
    if (start > 0 && newline === -1) {
      carry = Buffer.from(data)
      end = start
      continue
    }
    const first = start === 0 ? 0 : newline + 1
    for (let at = data.lastIndexOf(SNAPSHOT_MARK); at >= first && at !== -1;) {
      const lineStart = data.lastIndexOf(NEWLINE, at) + 1
      if (lineStart < first) break
      const next = data.indexOf(NEWLINE, at)
      if (isSnapshotLine(data.toString('utf8', lineStart, next === -1 ? data.length : next))) return start + lineStart
      at = lineStart === 0 ? -1 : data.lastIndexOf(SNAPSHOT_MARK, lineStart - 1)
    }
    carry = Buffer.from(data.subarray(0, first))
    end = start
  }
  return undefined
}

function isSnapshotLine(text: string): boolean {
  try {
    return (JSON.parse(text) as { type?: unknown } | null)?.type === 'session.snapshot'
  } catch {
    return false
  }
}
