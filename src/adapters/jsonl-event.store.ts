/**
 * The event store as a directory of JSONL files: one file per stream (`<stream>.jsonl`, the same
 * format `createJsonlLog` writes, so the CLI reads it as it is) and its lease beside it
 * (`<stream>.lease.json`). For one process.
 *
 * A stream is read when it is first used, not when the store opens (decision 170): opening lists
 * the directory; the first use of a stream finds where its lines start (a pass over its bytes
 * for newlines, no parsing) and repairs what a crash left; events are parsed when they are read,
 * so a session that resumes from its last snapshot parses only what follows it. The global order
 * (`readAll`, `subscribe`): the streams the directory held at open, by name, each in version
 * order as its file held it when first used, then the appends taken here, in order.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { toJsonLine } from '../events/jsonl.js'
import type { KernelEvent } from '../events/event.schema.js'
import type { Clock } from '../ports/clock.port.js'
import type {
  AppendOptions,
  AppendResult,
  Checkpoint,
  EventStore,
  Lease,
  LeaseResult,
  StoreSubscription,
  StoredEvent,
  SubscribeOptions,
  FsyncPolicy,
} from '../ports/event-store.port.js'
import { lastSnapshotOffset, readJsonlFd } from './jsonl-file.js'
import {
  acquiredLease,
  appendRefusal,
  assertBatch,
  assertStreamName,
  leaseResult,
  releasedLease,
  renewedLease,
  type LeaseState,
} from './memory-event.store.js'
import { startFeed } from './subscribe-event.store.js'
import { systemClock } from './system.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

export interface JsonlEventStoreOptions {
  /** Default 'fences'. */
  fsync?: FsyncPolicy
  clock?: Clock
}

const LeaseFile = z.object({ owner: z.string().optional(), epoch: z.number().int().min(0), expiresAt: z.number() })

/** One stream's file as this store knows it. */
interface StreamFile {
  readonly path: string
  /** The byte where each event's line starts, by version − 1. */
  readonly starts: number[]
  /** The end of the last whole line: where the next append goes. */
  end: number
  /** Versions up to this one were in the file when the stream was first used; later ones were appended here. */
  readonly history: number
  /** The events parsed so far: versions `heldFrom` … the stream's version (appends are always held). */
  held: StoredEvent[]
  heldFrom: number
  lease: LeaseState
}

/** A checkpoint: an event of a stream's history (`h/<version>/<stream>`) or the k-th append here (`a/<k>`). */
type Cursor = { kind: 'history'; stream: string; version: number } | { kind: 'appended'; index: number }

const NEWLINE = 0x0a
const CHUNK_BYTES = 1 << 20

class JsonlEventStore implements EventStore {
  readonly #streams = new Map<string, StreamFile>()
  readonly #fds = new Map<string, number>()
  /** The streams the directory held at open, by name: the history part of the global order. */
  readonly #listed: string[]
  readonly #appended: StoredEvent[] = []
  readonly #wakes = new Set<() => void>()

  constructor(
    private readonly dir: string,
    private readonly clock: Clock,
    private readonly policy: FsyncPolicy,
  ) {
    mkdirSync(dir, { recursive: true })
    this.#listed = readdirSync(dir)
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => name.slice(0, -'.jsonl'.length))
      .sort()
  }

  /** The stream as its file holds it, read (line starts, lease) on first use. */
  #stream(stream: string): StreamFile {
    assertStreamName(stream)
    let file = this.#streams.get(stream)
    if (file === undefined) {
      const path = join(this.dir, `${stream}.jsonl`)
      const { starts, end } = existsSync(path) ? scanLines(path) : { starts: [], end: 0 }
      const history = starts.length
      file = { path, starts, end, history, held: [], heldFrom: history + 1, lease: this.#readLease(stream) }
      this.#streams.set(stream, file)
    }
    return file
  }

  async append(stream: string, events: readonly KernelEvent[], options: AppendOptions): Promise<AppendResult> {
    assertBatch(events)
    const file = this.#stream(stream)
    const version = file.starts.length
    const refused = appendRefusal({ version, lease: file.lease }, options, this.clock.now())
    if (refused !== undefined) return refused
    const lines = events.map((event) => toJsonLine(event))
    // Written (and synced, as the policy says) before any of it is visible: a failed write stores none.
    this.#write(stream, lines.join(''), this.policy === 'every' || (this.policy === 'fences' && options.sync === true))
    lines.forEach((line, i) => {
      file.starts.push(file.end)
      file.end += Buffer.byteLength(line)
      const stored = {
        stream,
        version: version + i + 1,
        position: `a/${this.#appended.length + 1}`,
        event: events[i] as KernelEvent,
      }
      file.held.push(stored)
      this.#appended.push(stored)
    })
    for (const wake of this.#wakes) wake()
    return { ok: true, version: file.starts.length, position: `a/${this.#appended.length}` }
  }

  async read(stream: string, fromVersion = 1): Promise<StoredEvent[]> {
    const file = this.#stream(stream)
    const from = Math.max(1, fromVersion)
    if (from > file.starts.length) return []
    if (from < file.heldFrom) {
      file.held = [...this.#parse(stream, file, from, file.heldFrom - 1), ...file.held]
      file.heldFrom = from
    }
    return file.held.slice(from - file.heldFrom)
  }

  /** Scans the file back from its end (issue 33): the cost is the bytes after the snapshot. */
  async lastSnapshot(stream: string): Promise<number | undefined> {
    const file = this.#stream(stream)
    if (file.starts.length === 0) return undefined
    const fd = openSync(file.path, 'r')
    try {
      const at = lastSnapshotOffset(fd)
      return at === undefined ? undefined : versionAt(file.starts, at)
    } finally {
      closeSync(fd)
    }
  }

  async version(stream: string): Promise<number> {
    return this.#stream(stream).starts.length
  }

  async readAll(after: Checkpoint, limit = 1000): Promise<StoredEvent[]> {
    const page: StoredEvent[] = []
    let cursor = parseCheckpoint(after)
    if (cursor.kind === 'history') {
      // The listed streams from the checkpoint's on: the rest of its history, then each one's whole.
      const { stream, version } = cursor
      for (const name of this.#listed) {
        if (page.length >= limit) return page
        if (name < stream) continue
        const file = this.#stream(name)
        const from = name === stream ? version + 1 : 1
        const to = Math.min(file.history, from + (limit - page.length) - 1)
        if (from <= to) page.push(...this.#events(name, file, from, to))
      }
      cursor = { kind: 'appended', index: 0 }
    }
    page.push(...this.#appended.slice(cursor.index, cursor.index + limit - page.length))
    return page
  }

  /** Events `from`…`to` of a stream: those held, else parsed from its file (not kept: a page of history). */
  #events(stream: string, file: StreamFile, from: number, to: number): StoredEvent[] {
    if (from >= file.heldFrom) return file.held.slice(from - file.heldFrom, to - file.heldFrom + 1)
    if (to < file.heldFrom) return this.#parse(stream, file, from, to)
    return [...this.#parse(stream, file, from, file.heldFrom - 1), ...file.held.slice(0, to - file.heldFrom + 1)]
  }

  /** Parses versions `from`…`to` (all of the stream's history) from its file; a line that does not read back throws. */
  #parse(stream: string, file: StreamFile, from: number, to: number): StoredEvent[] {
    const startByte = file.starts[from - 1] as number
    const endByte = to < file.starts.length ? (file.starts[to] as number) : file.end
    const fd = openSync(file.path, 'r')
    try {
      const read = readJsonlFd(fd, { startByte, endByte })
      const bad = read.corrupt[0]
      if (bad !== undefined)
        throw new Error(
          `${file.path}:${lineNumberAt(fd, startByte) + bad.line - 1}: ${bad.message}; the stream does not read back`,
        )
      if (read.events.length !== to - from + 1)
        throw new Error(
          `${file.path}: changed since it was opened (expected ${to - from + 1} events at byte ${startByte})`,
        )
      return read.events.map((event, i) => ({ stream, version: from + i, position: `h/${from + i}/${stream}`, event }))
    } finally {
      closeSync(fd)
    }
  }

  subscribe(
    after: Checkpoint,
    handler: (events: readonly StoredEvent[]) => void | Promise<void>,
    options: SubscribeOptions = {},
  ): StoreSubscription {
    return startFeed(
      {
        readAll: (cp, limit) => this.readAll(cp, limit),
        countAfter: async (cp) => this.#countAfter(parseCheckpoint(cp)),
        onWake: (wake) => (this.#wakes.add(wake), () => void this.#wakes.delete(wake)),
      },
      after,
      handler,
      { ...options, defaultPollMs: 1000 },
    )
  }

  #countAfter(cursor: Cursor): number {
    if (cursor.kind === 'appended') return this.#appended.length - cursor.index
    let count = this.#appended.length
    for (const name of this.#listed) {
      if (name < cursor.stream) continue
      const { history } = this.#stream(name)
      count += name === cursor.stream ? Math.max(0, history - cursor.version) : history
    }
    return count
  }

  async acquire(stream: string, owner: string, ttlMs: number): Promise<LeaseResult> {
    const file = this.#stream(stream)
    const next = acquiredLease(stream, file.lease, owner, ttlMs, this.clock.now())
    return 'ok' in next ? next : this.#setLease(stream, file, next)
  }

  async renew(held: Lease, ttlMs: number): Promise<LeaseResult> {
    const file = this.#stream(held.stream)
    const next = renewedLease(held, file.lease, ttlMs, this.clock.now())
    return 'ok' in next ? next : this.#setLease(held.stream, file, next)
  }

  async release(held: Lease): Promise<void> {
    const file = this.#stream(held.stream)
    const next = releasedLease(held, file.lease)
    if (next !== undefined) this.#setLease(held.stream, file, next)
  }

  #setLease(stream: string, file: StreamFile, lease: LeaseState): LeaseResult {
    this.#writeLease(stream, lease)
    file.lease = lease
    return leaseResult(stream, lease)
  }

  #write(stream: string, text: string, sync: boolean): void {
    let fd = this.#fds.get(stream)
    if (fd === undefined) this.#fds.set(stream, (fd = openSync(join(this.dir, `${stream}.jsonl`), 'a')))
    writeSync(fd, text)
    if (sync) fsyncSync(fd)
  }

  #readLease(stream: string): LeaseState {
    const path = join(this.dir, `${stream}.lease.json`)
    if (!existsSync(path)) return { owner: undefined, epoch: 0, expiresAt: 0 }
    const parsed = LeaseFile.safeParse(JSON.parse(readFileSync(path, 'utf8')))
    if (!parsed.success) throw new Error(`${path} is not a lease file: ${parsed.error.message}`)
    return { owner: parsed.data.owner, epoch: parsed.data.epoch, expiresAt: parsed.data.expiresAt }
  }

  /** Written whole and renamed over the old one: a crash leaves the old lease or the new, never half. */
  #writeLease(stream: string, lease: LeaseState): void {
    const path = join(this.dir, `${stream}.lease.json`)
    writeFileSync(`${path}.tmp`, JSON.stringify(lease))
    renameSync(`${path}.tmp`, path)
  }

  close(): Promise<void> {
    for (const fd of this.#fds.values()) closeSync(fd)
    this.#fds.clear()
    this.#wakes.clear()
    return Promise.resolve()
  }
}

function parseCheckpoint(after: Checkpoint): Cursor {
  if (after === '') return { kind: 'history', stream: '', version: 0 }
  const appended = /^a\/(\d+)$/.exec(after)
  if (appended !== null) return { kind: 'appended', index: Number(appended[1]) }
  const history = /^h\/(\d+)\/(.+)$/.exec(after)
  if (history !== null) return { kind: 'history', stream: history[2] as string, version: Number(history[1]) }
  throw new TypeError(`checkpoint ${JSON.stringify(after)} is not one of this store's positions`)
}

/**
 * Where each event's line starts in the file at `path`, and where its last whole line ends:
 * newlines found in chunks, nothing parsed. Blank lines hold no event (as the JSONL reader skips
 * them). What a crash leaves after the last newline is cut off when it is no whole JSON (a torn
 * write), else ended with a newline (an event written whole, or a corrupt line the read reports).
 */
function scanLines(path: string): { starts: number[]; end: number } {
  const starts: number[] = []
  const fd = openSync(path, 'r')
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let lineStart = 0
  // Whether the line begun so far is all JSON whitespace (a line of an event starts with `{`).
  let blank = true
  let position = 0
  try {
    for (
      let read = readSync(fd, chunk, 0, CHUNK_BYTES, 0);
      read > 0;
      read = readSync(fd, chunk, 0, CHUNK_BYTES, position)
    ) {
      let from = 0
      for (let nl = chunk.indexOf(NEWLINE, from); ; nl = chunk.indexOf(NEWLINE, from)) {
        const stop = nl === -1 || nl >= read ? read : nl
        if (blank) blank = isWhitespace(chunk, from, stop)
        if (stop === read) break
        if (!blank) starts.push(lineStart)
        from = nl + 1
        lineStart = position + from
        blank = true
      }
      position += read
    }
    if (lineStart === position) return { starts, end: position }
    // Bytes after the last newline: what the JSONL reader makes of them decides.
    const rest = readJsonlFd(fd, { startByte: lineStart })
    if (rest.unterminated) {
      appendFileSync(path, '\n')
      starts.push(lineStart)
      return { starts, end: position + 1 }
    }
    truncateSync(path, lineStart)
    return { starts, end: lineStart }
  } finally {
    closeSync(fd)
  }
}

function isWhitespace(bytes: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = bytes[i]
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false
  }
  return true
}

/** The version whose line starts at byte `at` (binary search over the line starts). */
function versionAt(starts: readonly number[], at: number): number | undefined {
  let lo = 0
  let hi = starts.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const start = starts[mid] as number
    if (start === at) return mid + 1
    if (start < at) lo = mid + 1
    else hi = mid - 1
  }
  return undefined
}

/** The line number (from 1) of the byte `at`: newlines before it, counted (for an error's text). */
function lineNumberAt(fd: number, at: number): number {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let lines = 1
  for (let position = 0; position < at;) {
    const read = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, at - position), position)
    if (read === 0) break
    for (let nl = chunk.indexOf(NEWLINE); nl !== -1 && nl < read; nl = chunk.indexOf(NEWLINE, nl + 1)) lines++
    position += read
  }
  return lines
}

const JSONL_EVENT_STORE_OPTIONS = optionNames<JsonlEventStoreOptions>()('fsync', 'clock')

/**
 * An event store in the directory `dir` (created if missing). A stream's file is read when the
 * stream is first used: that repairs what a crash left (a torn last line); a line that does not
 * read back fails the read that reaches it.
 *
 * @example
 * const store = createJsonlEventStore('.toolkernel/sessions', { fsync: 'fences' })
 */
export function createJsonlEventStore(dir: string, options: JsonlEventStoreOptions = {}): EventStore {
  checkOptionsObject('createJsonlEventStore', options, JSONL_EVENT_STORE_OPTIONS)
  return new JsonlEventStore(dir, options.clock ?? systemClock, options.fsync ?? 'fences')
}
