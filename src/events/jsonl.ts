/**
 * Reading and writing the JSONL form of a log. Pure: the file store in adapters/ does the I/O
 * and feeds lines to the same parser that `parseJsonl` uses.
 */
import { EVENT_VERSION, KernelEventSchema, type KernelEvent } from './event.schema.js'
import { classOfToolErrorText } from './error-class.js'

/** One line of a log that could not be read, by 1-based line number. */
export interface CorruptLine {
  line: number
  message: string
}

export interface ParsedLog {
  events: KernelEvent[]
  /** Lines that are not valid events (a torn last line is not counted here). */
  corrupt: CorruptLine[]
  /** True when the last line had no newline and was not JSON: a write cut off by a crash. */
  torn: boolean
}

/** What a writer needs to know beyond `ParsedLog` before it appends to the same file. */
export interface ParsedEnd extends ParsedLog {
  /**
   * The last line is whole (it is JSON) but its newline is missing: a write torn just before
   * it. The line counts like any other; a writer adds the newline before it appends.
   */
  unterminated: boolean
}

/** Serialises one event as a JSONL line, newline included. */
export function toJsonLine(event: KernelEvent): string {
  return JSON.stringify(event) + '\n'
}

/**
 * Parses the text of a JSONL log. A last line without its newline that is not JSON is a torn
 * write (the process died mid-append) and is dropped; any other bad line is reported by number.
 * For whole files of any size, the file store reads in chunks through the same `JsonlLineParser`.
 */
export function parseJsonl(text: string): ParsedLog {
  const parser = new JsonlLineParser()
  let start = 0
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    parser.line(text.slice(start, nl))
    start = nl + 1
  }
  const { events, corrupt, torn } = parser.end(text.slice(start))
  return { events, corrupt, torn }
}

/**
 * The line-by-line reader behind every log reader: give it each line whose newline was read,
 * in order, then whatever followed the last newline. Lines are numbered from 1.
 */
export class JsonlLineParser {
  readonly #events: KernelEvent[] = []
  readonly #corrupt: CorruptLine[] = []
  #lines = 0

  /** A line whose newline was read (without the newline). Blank lines are skipped. */
  line(raw: string): void {
    this.#lines++
    if (isBlank(raw)) return
    this.#keep(parseLine(raw))
  }

  /** The text after the last newline ('' when the log ends in one), and the result. */
  end(rest: string): ParsedEnd {
    const result = { events: this.#events, corrupt: this.#corrupt, torn: false, unterminated: false }
    if (isBlank(rest)) return result
    this.#lines++
    const parsed = parseLine(rest)
    // A cut-off write is never whole JSON (an object's prefix never is), so only that is torn.
    if (parsed instanceof LineFailure && parsed.notJson) return { ...result, torn: true }
    this.#keep(parsed)
    return { ...result, unterminated: true }
  }

  #keep(parsed: KernelEvent | LineFailure): void {
    if (parsed instanceof LineFailure) this.#corrupt.push({ line: this.#lines, message: parsed.message })
    else this.#events.push(parsed)
  }
}

/** A line of JSON whitespace only (space, tab, CR, LF: what JSON.parse skips), or none. */
const isBlank = (raw: string): boolean => raw.length === 0 || (raw.charCodeAt(0) <= 32 && /^[ \t\r\n]*$/.test(raw))

/**
 * Upgrades steps from an event version to the next, applied in order when reading a log written
 * by an older toolkernel. Version 1 is the first; a change that would break an old log bumps
 * EVENT_VERSION and adds its step here (with a golden log that keeps replaying).
 */
export const UPGRADES: Record<number, (event: Record<string, unknown>) => Record<string, unknown>> = {
  // 1 → 2: output that went to the result store was marked inside `output` as exactly
  // `{ persisted: true }`; version 2 says so in its own field, so a tool's own output can never
  // be taken for the marker.
  1: (event) => {
    if (event.type === 'tool.errored' && typeof event.message === 'string')
      return { ...event, errorClass: classOfToolErrorText(event.message) }
    if (event.type !== 'tool.completed' || !isV1PersistedMarker(event.output)) return event
    const { output: _marker, ...rest } = event
    return { ...rest, persisted: true }
  },
}

function isV1PersistedMarker(output: unknown): boolean {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return false
  const keys = Object.keys(output)
  return keys.length === 1 && keys[0] === 'persisted' && (output as { persisted: unknown }).persisted === true
}

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

/**
 * Compiled when a log is first read, not when toolkernel is imported: a kernel that only appends
 * never needs it (docs/decisions/performance.md, 168).
 */
let compiled: CompiledCheck | undefined
const fastCheck = (): CompiledCheck => (compiled ??= compileEventCheck(KernelEventSchema))

/** The event types the fast path checks in full; others always go through zod. */
export const FAST_PATH_TYPES: ReadonlySet<string> = {
  get size() {
    return fastCheck().types.size
  },
  has: (type) => fastCheck().types.has(type),
  forEach: (each, thisArg?: unknown) => fastCheck().types.forEach(each, thisArg),
  entries: () => fastCheck().types.entries(),
  keys: () => fastCheck().types.keys(),
  values: () => fastCheck().types.values(),
  [Symbol.iterator]: () => fastCheck().types[Symbol.iterator](),
}

/**
 * The event, when the fast path checks it in full and zod would return it unchanged (no key
 * zod would strip); undefined means "ask zod", never "invalid". Reading a log spends most of its
 * time here, and a zod parse copies every object it accepts; this returns the parsed JSON as is.
 */
export function fastParseEvent(json: unknown): KernelEvent | undefined {
  return fastCheck().check(json) ? (json as KernelEvent) : undefined
}

/** Why a line is no event (a class, so a line that is one costs no wrapper object). */
class LineFailure {
  constructor(
    readonly message: string,
    readonly notJson: boolean,
  ) {}
}

function parseLine(raw: string): KernelEvent | LineFailure {
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (error) {
    return new LineFailure(`not JSON (${(error as Error).message})`, true)
  }
  const fast = fastParseEvent(json)
  if (fast !== undefined) return fast
  const upgraded = upgrade(json)
  if (typeof upgraded === 'string') return new LineFailure(upgraded, false)
  const parsed = KernelEventSchema.safeParse(upgraded)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''
  return new LineFailure(`not a toolkernel event${where}: ${issue?.message ?? 'invalid'}`, false)
}

/*
 * The fast path, compiled from the zod schema itself so that it cannot drift from it. It knows a
 * handful of zod constructs (those the event schema uses) and accepts a value only when zod would
 * accept it and return it unchanged. Any construct, check or option it does not know — a
 * refinement, a transform, a default, a string format, a catch-all — makes that event type
 * zod-only: fail-closed. The equivalence is tested against zod on mutated events.
 */

type Check = (value: unknown) => boolean
interface CompiledCheck {
  check: Check
  types: ReadonlySet<string>
}

/** The parts of zod's (v4) schema definitions the compiler reads; anything else is unknown to it. */
interface SchemaDef {
  type: string
  checks?: readonly {
    _zod: { def: { check: string; format?: string; value?: unknown; inclusive?: boolean; pattern?: RegExp } }
  }[]
  shape?: Record<string, Schema>
  catchall?: unknown
  innerType?: Schema
  element?: Schema
  options?: readonly Schema[]
  values?: readonly unknown[]
  entries?: Record<string, unknown>
  keyType?: Schema
  valueType?: Schema
}
interface Schema {
  _zod: { def: SchemaDef }
}

function accept(): boolean {
  return true
}

function compileEventCheck(union: unknown): CompiledCheck {
  const byType = new Map<unknown, Check>()
  for (const option of (union as Schema)._zod.def.options ?? []) {
    const type = option._zod.def.shape?.type?._zod.def.values
    const check = compile(option)
    if (check !== undefined && type?.length === 1) byType.set(type[0], check)
  }
  const check: Check = (value) => {
    if (typeof value !== 'object' || value === null) return false
    const member = byType.get((value as { type?: unknown }).type)
    return member !== undefined && member(value)
  }
  return { check, types: new Set([...byType.keys()].map(String)) }
}

/** A check equivalent to `schema` for JSON values zod returns unchanged; undefined when unknown. */
function compile(schema: Schema): Check | undefined {
  const def = schema._zod.def
  const checks = def.checks ?? []
  if (def.type === 'number') return numberCheck(checks)
  if (def.type === 'string' && checks.length > 0) return patternCheck(checks)
  if (checks.length > 0) return undefined
  switch (def.type) {
    case 'string':
      return (v) => typeof v === 'string'
    case 'boolean':
      return (v) => typeof v === 'boolean'
    case 'unknown':
      return accept
    case 'literal': {
      const values = def.values ?? []
      return (v) => values.includes(v)
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}))
      return (v) => values.has(v)
    }
    case 'nullable':
    case 'optional':
      return wrapped(def)
    case 'array':
      return arrayCheck(def)
    case 'union':
      return unionCheck(def)
    case 'object':
      return objectCheck(def)
    case 'record':
      return recordCheck(def)
    default:
      return undefined
  }
}

function numberCheck(checks: NonNullable<SchemaDef['checks']>): Check | undefined {
  let int = false
  let min = -Infinity
  let max = Infinity
  let minInclusive = true
  let maxInclusive = true
  for (const { _zod } of checks) {
    const { check, format, value, inclusive } = _zod.def
    if (check === 'number_format' && format === 'safeint' && !int) int = true
    else if (check === 'greater_than' && typeof value === 'number' && min === -Infinity)
      [min, minInclusive] = [value, inclusive === true]
    else if (check === 'less_than' && typeof value === 'number' && max === Infinity)
      [max, maxInclusive] = [value, inclusive === true]
    else return undefined
  }
  return (v) =>
    typeof v === 'number' &&
    (int ? Number.isSafeInteger(v) : Number.isFinite(v)) &&
    (minInclusive ? v >= min : v > min) &&
    (maxInclusive ? v <= max : v < max)
}

/** A string with regex checks only (`z.string().regex(…)`): each pattern must match. */
function patternCheck(checks: NonNullable<SchemaDef['checks']>): Check | undefined {
  const patterns: RegExp[] = []
  for (const { _zod } of checks) {
    const { check, format, pattern } = _zod.def
    if (check !== 'string_format' || format !== 'regex' || !(pattern instanceof RegExp)) return undefined
    // A fresh copy without the stateful flags, so test() never depends on lastIndex.
    patterns.push(new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')))
  }
  return (v) => typeof v === 'string' && patterns.every((p) => p.test(v))
}

function wrapped(def: SchemaDef): Check | undefined {
  const inner = def.innerType === undefined ? undefined : compile(def.innerType)
  if (inner === undefined) return undefined
  return def.type === 'nullable' ? (v) => v === null || inner(v) : (v) => v === undefined || inner(v)
}

function arrayCheck(def: SchemaDef): Check | undefined {
  const element = def.element === undefined ? undefined : compile(def.element)
  if (element === undefined) return undefined
  return (v) => Array.isArray(v) && v.every(element)
}

/**
 * `z.record(z.string(), value)`: a plain object whose every value passes. An own `__proto__` key
 * (JSON.parse makes one) is left to zod, which drops it: the fast path never returns what zod changes.
 */
function recordCheck(def: SchemaDef): Check | undefined {
  const key = def.keyType?._zod.def
  const value = def.valueType === undefined ? undefined : compile(def.valueType)
  if (key?.type !== 'string' || (key.checks ?? []).length > 0 || value === undefined) return undefined
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.hasOwn(v, '__proto__')) return false
    for (const item of Object.values(v)) if (!value(item)) return false
    return true
  }
}

function unionCheck(def: SchemaDef): Check | undefined {
  const options = (def.options ?? []).map(compile)
  if (options.length === 0 || options.some((o) => o === undefined)) return undefined
  const checks = options as Check[]
  return (v) => checks.some((check) => check(v))
}

interface Field {
  key: string
  optional: boolean
  check: Check
}

/** A plain object with exactly known keys: zod strips unknown ones, so those go to zod. */
function objectCheck(def: SchemaDef): Check | undefined {
  if (def.catchall !== undefined || def.shape === undefined) return undefined
  const fields: Field[] = []
  for (const [key, schema] of Object.entries(def.shape)) {
    // An inherited name (`constructor`) would read as present on every object.
    if (key in Object.prototype) return undefined
    const optional = schema._zod.def.type === 'optional'
    const inner = optional ? schema._zod.def.innerType : schema
    const check = inner === undefined ? undefined : compile(inner)
    if (check === undefined) return undefined
    fields.push({ key, optional, check })
  }
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
    const record = v as Record<string, unknown>
    let present = 0
    for (const { key, optional, check } of fields) {
      const value = record[key]
      if (value === undefined) {
        if (!optional) return false
      } else if (check(value)) present++
      else return false
    }
    let own = 0
    for (const _key in record) own++
    return own === present
  }
}
