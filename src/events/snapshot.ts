/**
 * Session snapshots (issue 33; docs/decisions/stores.md, 166): the log before a point, compacted
 * to what a resume reads of it, so a session store opens a long session from its last snapshot
 * and what follows instead of its whole stream.
 *
 * What resume reads (every fold over the whole log when a kernel opens over a stored session):
 * `recover` and `openTurns` (the turns not over), `Grants.fromLog` (`permission.granted`),
 * `SessionContext` (`session.changed`: cwd, env, data, mode), `loadedFromLog` and
 * `referencedFromLog` (the first `tool.loaded` of each tool), `pendingApprovals` and
 * `resumedTurn` (the parked turns, whole), and `handOver` (the last top-level turn and the child
 * turns under it). The snapshot carries exactly the events those read — the same session facts
 * the memory log's retention window keeps (src/adapters/memory-log.store.ts) — so every fold is
 * unchanged and gets the same answer from `carried ++ what follows` as from the whole log.
 *
 * Pure, events in: it imports only the event schema.
 */
import { KernelEventSchema, type KernelEvent, type KernelEventInput } from './event.schema.js'

/** The layout of `carried` this toolkernel writes and reads; a snapshot of another is not used. */
export const SNAPSHOT_FORMAT = 1

/** Session facts every later kernel over the log reads (the first `tool.loaded` of a tool is one too). */
const FACTS: ReadonlySet<string> = new Set(['pool.changed', 'permission.granted', 'session.changed', 'tools.described'])

interface Span {
  /** Every event of the turn while it is kept whole; its facts once compacted. */
  events: KernelEvent[]
  started: KernelEvent | undefined
  completed: KernelEvent | undefined
  /** Order of its first event among the turns. */
  order: number
  whole: boolean
}

/**
 * Follows a log event by event and keeps what a snapshot carries: O(1) per event (amortized),
 * and what it holds for a snapshot is the session facts and the turns not over, not the log.
 *
 * @example
 * const keeper = new SnapshotKeeper()
 * for (const event of log.read()) keeper.add(event)
 * log.append(keeper.snapshot(turnId))
 */
export class SnapshotKeeper {
  /** Turns a snapshot carries something of. */
  readonly #turns = new Map<string, Span>()
  /**
   * Why this keeper's snapshots would not be faithful, once they would not: a session fact
   * recorded for a turn already let go (the kernel records none such). Then no snapshot is written.
   */
  unfaithful: string | undefined
  /** Completed turns still whole: the last top-level turn and the turns started after it. */
  readonly #window = new Set<Span>()
  readonly #loaded = new Set<string>()
  readonly #firstLoads = new WeakSet<KernelEvent>()
  #configured: KernelEvent | undefined
  #lastTop = -1
  #order = 0
  #upTo = -1
  #topTurns = 0
  /** Top-level turns started since the last snapshot (what `snapshotEvery` counts). */
  sinceSnapshot = 0

  add(event: KernelEvent): void {
    this.#upTo = Math.max(this.#upTo, event.seq)
    if (event.type === 'session.snapshot') {
      this.sinceSnapshot = 0
      this.#topTurns = Math.max(this.#topTurns, event.turns)
      return
    }
    if (event.type === 'session.configured') this.#configured = event
    const fact = this.#isFact(event)
    const span = this.#spanOf(event, fact)
    if (span === undefined) return
    if (event.type === 'turn.started' && span.started === undefined) {
      span.started = event
      if (event.parentToolUseId === undefined) this.#newTop(span)
    }
    if (event.type === 'turn.completed' && span.completed === undefined) {
      span.completed = event
      if (span.order < this.#lastTop) this.#compact(span)
      else this.#window.add(span)
      return
    }
    if (span.whole || fact) span.events.push(event)
  }

  #spanOf(event: KernelEvent, fact: boolean): Span | undefined {
    const span = this.#turns.get(event.turnId)
    if (span !== undefined) return span
    // Every turn begins with its turn.started (checkLogOrder): any other event of a turn the keeper
    // does not hold is of one it let go — nothing of it is remembered, so memory stays flat.
    if (event.type !== 'turn.started') {
      if (fact) this.unfaithful ??= `a ${event.type} (seq ${event.seq}) came for turn ${event.turnId} after it was over`
      return undefined
    }
    const fresh: Span = { events: [], started: undefined, completed: undefined, order: this.#order++, whole: true }
    this.#turns.set(event.turnId, fresh)
    return fresh
  }

  #newTop(span: Span): void {
    this.#lastTop = span.order
    this.#topTurns++
    this.sinceSnapshot++
    for (const done of this.#window) if (done !== span) this.#compact(done)
    this.#window.clear()
  }

  #isFact(event: KernelEvent): boolean {
    if (FACTS.has(event.type) || event.type === 'session.configured') return true
    // A child session's loads are its own and end with its call (docs/decisions/pool.md, 161).
    if (event.type !== 'tool.loaded' || event.parentToolUseId !== undefined || this.#loaded.has(event.name))
      return false
    this.#loaded.add(event.name)
    this.#firstLoads.add(event)
    return true
  }

  /** A turn that is over and out of the window keeps only its facts, framed by its start and end. */
  #compact(span: Span): void {
    if (!span.whole) return
    span.whole = false
    span.events = span.events.filter(
      (e) => FACTS.has(e.type) || e.type === 'session.configured' || this.#firstLoads.has(e),
    )
    const turnId = (span.started ?? span.completed)?.turnId
    if (span.events.length > 0 || turnId === undefined) return
    this.#turns.delete(turnId)
  }

  /** What a snapshot taken now carries, in seq order. */
  carried(): KernelEvent[] {
    const kept: KernelEvent[] = []
    // Each kernel logs its configuration; only the last one is carried (the CLI and replay read it).
    const own = (e: KernelEvent) => e.type !== 'session.configured' || e === this.#configured
    for (const span of this.#turns.values()) {
      const events = span.events.filter(own)
      if (span.whole) {
        kept.push(...events, ...(span.completed === undefined ? [] : [span.completed]))
        continue
      }
      if (events.length === 0) continue
      for (const frame of [span.started, span.completed]) if (frame !== undefined) kept.push(frame)
      kept.push(...events)
    }
    return kept.sort((a, b) => a.seq - b.seq)
  }

  /** The `session.snapshot` event for the log followed so far, recorded in turn `turnId`. */
  snapshot(turnId: string): KernelEventInput {
    return {
      type: 'session.snapshot',
      turnId,
      format: SNAPSHOT_FORMAT,
      upTo: this.#upTo,
      turns: this.#topTurns,
      carried: this.carried(),
    }
  }
}

/** What a snapshot of `events` carries (the reference the property tests compare against). */
export function compactLog(events: Iterable<KernelEvent>): KernelEvent[] {
  const keeper = new SnapshotKeeper()
  for (const event of events) keeper.add(event)
  return keeper.carried()
}

/** A snapshot that cannot be used, and why: resume then reads the whole log. */
export interface SnapshotRefusal {
  seq: number
  reason: string
}

/**
 * The history a resume works from, given the events from a snapshot on (the snapshot first):
 * the snapshot's `carried` events, then the snapshot and everything after it. Undefined, with
 * why, when the first event is not a usable snapshot — another format, a carried event that does
 * not parse, events out of order: the caller then reads the whole log (decision 167).
 */
export function historyFromSnapshot(
  events: readonly KernelEvent[],
): { ok: true; history: KernelEvent[] } | { ok: false; refusal: SnapshotRefusal } {
  const snapshot = events[0]
  if (snapshot?.type !== 'session.snapshot')
    return { ok: false, refusal: { seq: snapshot?.seq ?? -1, reason: 'the events do not begin with a snapshot' } }
  const refuse = (reason: string) => ({ ok: false as const, refusal: { seq: snapshot.seq, reason } })
  if (snapshot.format !== SNAPSHOT_FORMAT)
    return refuse(`snapshot format ${snapshot.format} is not the one this toolkernel reads (${SNAPSHOT_FORMAT})`)
  const carried: KernelEvent[] = []
  let last = -1
  for (const [i, raw] of snapshot.carried.entries()) {
    const parsed = KernelEventSchema.safeParse(raw)
    if (!parsed.success) return refuse(`carried event ${i} does not parse: ${parsed.error.issues[0]?.message ?? ''}`)
    const event = parsed.data
    if (event.type === 'session.snapshot') return refuse(`carried event ${i} is itself a snapshot`)
    if (event.seq <= last || event.seq > snapshot.upTo || snapshot.upTo >= snapshot.seq)
      return refuse(`carried event ${i} (seq ${event.seq}) is out of order for a snapshot up to ${snapshot.upTo}`)
    last = event.seq
    carried.push(event)
  }
  return { ok: true, history: [...carried, ...events] }
}

/** The index of the last `session.snapshot` in `events`, or -1. */
export function lastSnapshotIndex(events: readonly KernelEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]?.type === 'session.snapshot') return i
  return -1
}

/**
 * The history a resume works from for a whole log in memory: from its last usable snapshot when
 * it has one, else the log itself. What a store's opening does with the stream's tail; for an app
 * that keeps its own log and resumes with `kernel.resume`.
 *
 * @example
 * const kernel = createKernel({ tools }).resume(createMemoryLog(clock, [...resumeHistory(events)]))
 */
export function resumeHistory(events: readonly KernelEvent[]): readonly KernelEvent[] {
  const at = lastSnapshotIndex(events)
  if (at < 0) return events
  const from = historyFromSnapshot(events.slice(at))
  return from.ok ? from.history : events
}
