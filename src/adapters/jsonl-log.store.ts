import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, writeSync, fsyncSync } from 'node:fs'
import type { Clock, EventLog } from '../ports/index.js'
import { parseJsonl, toJsonLine } from '../events/jsonl.js'
import { StampingLog } from './memory-log.store.js'

export interface JsonlLogOptions {
  /** fsync after every append: survives a power cut, at a cost. Default false (survives a process crash). */
  fsync?: boolean
}

/**
 * An append-only JSONL event log on disk. Each event is written with one `writeSync` on a
 * descriptor kept open, so a crash loses at most the line being written; reopening drops that
 * torn line and goes on. Existing events are loaded as history.
 *
 * @throws Error when the file holds corrupt lines other than a torn last one (refuse to append
 * to a log we cannot read back).
 */
export function createJsonlLog(path: string, clock: Clock, options: JsonlLogOptions = {}): EventLog {
  const history = existsSync(path) ? readHistory(path) : { events: [], validBytes: 0 }
  const fd = openSync(path, 'a+')
  ftruncateSync(fd, history.validBytes)
  const sink = (event: Parameters<typeof toJsonLine>[0]): void => {
    writeSync(fd, toJsonLine(event))
    if (options.fsync === true) fsyncSync(fd)
  }
  const log = new StampingLog(clock, sink, history.events)
  const close = log.close.bind(log)
  let closed = false
  log.close = () => {
    if (closed) return
    closed = true
    closeSync(fd)
    close()
  }
  return log
}

function readHistory(path: string): { events: ReturnType<typeof parseJsonl>['events']; validBytes: number } {
  const text = readFileSync(path, 'utf8')
  const parsed = parseJsonl(text)
  const first = parsed.corrupt[0]
  if (first !== undefined) {
    throw new Error(`${path}:${first.line}: ${first.message}; refusing to append to a log that does not read back`)
  }
  const keep = parsed.torn ? text.slice(0, text.lastIndexOf('\n') + 1) : text
  return { events: parsed.events, validBytes: Buffer.byteLength(keep, 'utf8') }
}
