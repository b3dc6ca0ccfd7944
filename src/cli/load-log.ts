/** Reads a log file for the CLI, with errors that say what is wrong and where. */
import { statSync } from 'node:fs'
import { readJsonlFile, type JsonlFileContents } from '../adapters/jsonl-file.js'
import type { KernelEvent } from '../events/event.schema.js'
import { checkLogOrder } from '../events/log-order.js'

export class CliError extends Error {}

/** Files from this size on report their progress while they are read. */
const PROGRESS_FROM_BYTES = 20 * 1024 * 1024

/**
 * The events of the log at `path`, read line by line (a log of any size), checked for order.
 *
 * @throws CliError when the file is missing, not a log, empty, has a corrupt line (unless
 * `skipCorrupt`), has a line longer than the limit (by number, never V8's "Cannot create a
 * string longer than…"), or its events are out of order.
 */
export function loadLog(
  path: string,
  options: {
    skipCorrupt: boolean
    err: (line: string) => void
    /** The longest line read (default DEFAULT_MAX_LINE_BYTES, 256 MiB); tests make it small. */
    maxLineBytes?: number
  },
): KernelEvent[] {
  let size: number
  try {
    const stat = statSync(path)
    if (stat.isDirectory()) throw new CliError(`${path} is a directory, not a log file`)
    size = stat.size
  } catch (error) {
    if (error instanceof CliError) throw error
    throw new CliError(`no such log file: ${path}`)
  }
  const report = size >= PROGRESS_FROM_BYTES ? progressReporter(path, size, options.err) : undefined
  let parsed: JsonlFileContents
  try {
    parsed = readJsonlFile(path, {
      ...(report === undefined ? {} : { onProgress: report }),
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    })
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`)
  }
  const events = usableEvents(path, parsed, options)
  const order = checkLogOrder(events)
  if (!order.ok)
    throw new CliError(
      `${path}: events out of order at seq ${order.seq}: ${order.problem} — the log was edited, spliced or shuffled, and cannot be replayed as it is`,
    )
  if (events.length > 100_000) options.err(`${events.length} events read`)
  return events
}

function usableEvents(
  path: string,
  parsed: JsonlFileContents,
  options: { skipCorrupt: boolean; err: (line: string) => void },
): KernelEvent[] {
  if (parsed.events.length === 0 && parsed.corrupt.length > 0) {
    throw new CliError(
      `${path} is not a toolkernel log: line ${parsed.corrupt[0]?.line}: ${parsed.corrupt[0]?.message}`,
    )
  }
  if (parsed.events.length === 0) throw new CliError(`${path} is empty: no events to read`)
  for (const bad of parsed.corrupt) {
    if (!options.skipCorrupt)
      throw new CliError(`${path}:${bad.line}: ${bad.message} (use --skip-corrupt to go on without it)`)
    options.err(`skipping ${path}:${bad.line}: ${bad.message}`)
  }
  if (parsed.torn) options.err(`${path}: the last line was cut off mid-write (a crash?) and is left out`)
  return parsed.events
}

/** `postgres://user@host:port/db#session`: a session in a PostgreSQL store, not a file. */
export function isStoreRef(path: string): boolean {
  return /^postgres(ql)?:\/\//.test(path)
}

/**
 * The events of a log file, or of a session in a PostgreSQL store (`postgres://…#session`).
 *
 * @throws CliError as `loadLog` does, and when the store cannot be reached or has no such session.
 */
export async function loadEvents(
  path: string,
  options: { skipCorrupt: boolean; err: (line: string) => void },
): Promise<KernelEvent[]> {
  return isStoreRef(path) ? loadSession(path, options) : loadLog(path, options)
}

/**
 * The events of the session named after `#` in a PostgreSQL store, checked for order.
 *
 * @example
 * const events = await loadSession('postgres://app@db:5432/agents#session-42', { err: console.error })
 */
export async function loadSession(ref: string, options: { err: (line: string) => void }): Promise<KernelEvent[]> {
  const hash = ref.lastIndexOf('#')
  const session = hash === -1 ? '' : decodeURIComponent(ref.slice(hash + 1))
  if (session === '') throw new CliError(`${ref}: name the session after '#': postgres://user@host:5432/db#session-id`)
  const connection = ref.slice(0, hash)
  const shown = connection.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')
  // Loaded only here: the CLI reads files without pg installed.
  const { createPostgresEventStore } = await import('../adapters/postgres-event.store.js')
  const store = createPostgresEventStore({ connection, maxConnections: 1 })
  let events: KernelEvent[]
  try {
    events = (await store.read(session)).map((stored) => stored.event)
  } catch (error) {
    throw new CliError(`cannot read session ${session} from ${shown}: ${(error as Error).message}`)
  } finally {
    await store.close().catch(() => undefined)
  }
  if (events.length === 0) throw new CliError(`${shown} has no session ${JSON.stringify(session)} (no events)`)
  const order = checkLogOrder(events)
  if (!order.ok) throw new CliError(`${ref}: events out of order at seq ${order.seq}: ${order.problem}`)
  if (events.length > 100_000) options.err(`${events.length} events read`)
  return events
}

/**
 * A progress callback for reading `total` bytes of `path` that writes
 * `reading <path>: 40 % (200 MiB)…` each time another tenth is read, and no more often.
 */
export function progressReporter(
  path: string,
  total: number,
  err: (line: string) => void,
): (bytesRead: number) => void {
  let shown = 0
  return (bytesRead) => {
    const tenths = total <= 0 ? 10 : Math.min(10, Math.floor((bytesRead / total) * 10))
    if (tenths <= shown) return
    shown = tenths
    err(`reading ${path}: ${tenths * 10} % (${Math.round(bytesRead / 1024 / 1024)} MiB)…`)
  }
}
