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
