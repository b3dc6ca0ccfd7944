/**
 * The event store as a directory of JSONL files: one file per stream (`<stream>.jsonl`, the same
 * format `createJsonlLog` writes, so the CLI reads it as it is) and its lease beside it
 * (`<stream>.lease.json`). For one process: the global order is the order this process took
 * appends in, after the history it loaded (streams by name, then versions).
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  truncateSync,
  writeFileSync,
  writeSync,
  appendFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { toJsonLine } from '../events/jsonl.js'
import type { Clock } from '../ports/clock.port.js'
import type { AppendOptions, AppendResult, EventStore, FsyncPolicy } from '../ports/event-store.port.js'
import type { KernelEvent } from '../events/event.schema.js'
import { readJsonlFile } from './jsonl-log.store.js'
import { MemoryEventStore, type LeaseState } from './memory-event.store.js'
import { systemClock } from './system.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

export interface JsonlEventStoreOptions {
  /** Default 'fences'. */
  fsync?: FsyncPolicy
  clock?: Clock
}

const LeaseFile = z.object({ owner: z.string().optional(), epoch: z.number().int().min(0), expiresAt: z.number() })

class JsonlEventStore extends MemoryEventStore {
  readonly #fds = new Map<string, number>()
  #syncNext = false

  constructor(
    private readonly dir: string,
    clock: Clock,
    private readonly policy: FsyncPolicy,
  ) {
    super(clock, {
      persistEvents: (stream, events) => this.#write(stream, events.map((e) => toJsonLine(e.event)).join('')),
      persistLease: (stream, lease) => this.#writeLease(stream, lease),
    })
    mkdirSync(dir, { recursive: true })
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith('.jsonl')) continue
      const stream = name.slice(0, -'.jsonl'.length)
      this.load(stream, this.#history(stream), this.#readLease(stream))
    }
  }

  override append(stream: string, events: readonly KernelEvent[], options: AppendOptions): Promise<AppendResult> {
    this.#syncNext = this.policy === 'every' || (this.policy === 'fences' && options.sync === true)
    return super.append(stream, events, options)
  }

  #history(stream: string): KernelEvent[] {
    const path = join(this.dir, `${stream}.jsonl`)
    const read = readJsonlFile(path)
    const bad = read.corrupt[0]
    if (bad !== undefined)
      throw new Error(`${path}:${bad.line}: ${bad.message}; refusing to open a store that does not read back`)
    truncateSync(path, read.validBytes)
    if (read.unterminated) appendFileSync(path, '\n')
    return read.events
  }

  #write(stream: string, text: string): void {
    let fd = this.#fds.get(stream)
    if (fd === undefined) this.#fds.set(stream, (fd = openSync(join(this.dir, `${stream}.jsonl`), 'a')))
    writeSync(fd, text)
    if (this.#syncNext) fsyncSync(fd)
  }

  #readLease(stream: string): LeaseState | undefined {
    const path = join(this.dir, `${stream}.lease.json`)
    if (!existsSync(path)) return undefined
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

  override async close(): Promise<void> {
    for (const fd of this.#fds.values()) closeSync(fd)
    this.#fds.clear()
    await super.close()
  }
}

const JSONL_EVENT_STORE_OPTIONS = optionNames<JsonlEventStoreOptions>()('fsync', 'clock')

/**
 * An event store in the directory `dir` (created if missing). Reopening repairs what a crash
 * leaves (a torn last line) and refuses a file with corrupt lines.
 *
 * @example
 * const store = createJsonlEventStore('.toolkernel/sessions', { fsync: 'fences' })
 */
export function createJsonlEventStore(dir: string, options: JsonlEventStoreOptions = {}): EventStore {
  checkOptionsObject('createJsonlEventStore', options, JSONL_EVENT_STORE_OPTIONS)
  return new JsonlEventStore(dir, options.clock ?? systemClock, options.fsync ?? 'fences')
}
