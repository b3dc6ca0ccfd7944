/**
 * Reading and writing the JSONL form of a log. Pure: the file store in actors/adapters does the I/O.
 */
import { EVENT_VERSION, KernelEventSchema, type KernelEvent } from './event.schema.js'

/** One line of a log that could not be read, by 1-based line number. */
export interface CorruptLine {
  line: number
  message: string
}

export interface ParsedLog {
  events: KernelEvent[]
  /** Lines that are not valid events (a torn last line is not counted here). */
  corrupt: CorruptLine[]
  /** True when the last line had no newline and did not parse: a write cut off by a crash. */
  torn: boolean
}

/** Serialises one event as a JSONL line, newline included. */
export function toJsonLine(event: KernelEvent): string {
  return JSON.stringify(event) + '\n'
}

/**
 * Parses the text of a JSONL log. A last line without its newline that does not parse is a torn
 * write (the process died mid-append) and is dropped; any other bad line is reported by number.
 */
export function parseJsonl(text: string): ParsedLog {
  const lines = text.split('\n')
  const endsClean = text.length === 0 || text.endsWith('\n')
  const last = endsClean ? lines.length - 1 : lines.length
  const events: KernelEvent[] = []
  const corrupt: CorruptLine[] = []
  let torn = false
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? ''
    if (raw.trim() === '') continue
    const result = parseLine(raw)
    if (result.ok) {
      events.push(result.event)
    } else if (i === last - 1 && !endsClean) {
      torn = true
    } else {
      corrupt.push({ line: i + 1, message: result.message })
    }
  }
  return { events, corrupt, torn }
}

/**
 * Upgrades steps from an event version to the next, applied in order when reading a log written
 * by an older toolkernel. Version 1 is the first; a change that would break an old log bumps
 * EVENT_VERSION and adds its step here (with a golden log that keeps replaying).
 */
export const UPGRADES: Record<number, (event: Record<string, unknown>) => Record<string, unknown>> = {}

/** The event at the current version, or why it cannot be read. */
export function upgrade(json: unknown): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json
  let event = json as Record<string, unknown>
  const version = event.v
  if (typeof version !== 'number') return json
  if (version > EVENT_VERSION)
    return `written by a newer toolkernel (event version ${version}; this one reads up to ${EVENT_VERSION})`
  for (let v = version; v < EVENT_VERSION; v++) {
    const step = UPGRADES[v]
    if (step === undefined) return `event version ${v} has no upgrade path to ${EVENT_VERSION}`
    event = { ...step(event), v: v + 1 }
  }
  return event
}

function parseLine(raw: string): { ok: true; event: KernelEvent } | { ok: false; message: string } {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (error) {
    return { ok: false, message: `not JSON (${(error as Error).message})` }
  }
  const upgraded = upgrade(json)
  if (typeof upgraded === 'string') return { ok: false, message: upgraded }
  const parsed = KernelEventSchema.safeParse(upgraded)
  if (parsed.success) return { ok: true, event: parsed.data }
  const issue = parsed.error.issues[0]
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''
  return { ok: false, message: `not a toolkernel event${where}: ${issue?.message ?? 'invalid'}` }
}
