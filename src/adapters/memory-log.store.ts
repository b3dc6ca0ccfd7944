import { Subject, type Observable } from 'rxjs'
import type { Clock, EventLog } from '../ports/index.js'
import { systemClock } from './system.js'
import { EVENT_VERSION, type KernelEvent, type KernelEventInput } from '../events/event.schema.js'
import { checkKnownOptions, optionNames } from '../util/known-options.js'

/**
 * Stamps events with the envelope and keeps them in order. The shared core of every store:
 * a store that persists adds a `sink` that sees each event once, after stamping; a store that
 * keeps only recent turns adds a `window` (see `createMemoryLog`'s `retainTurns`).
 */
export class StampingLog implements EventLog {
  readonly #events: KernelEvent[] = []
  readonly #subject = new Subject<KernelEvent>()
  readonly events$: Observable<KernelEvent> = this.#subject.asObservable()
  /** Kept apart from the array: once a window drops events, the last one kept is not the last seq. */
  #next: number

  constructor(
    private readonly clock: Clock,
    private readonly sink?: (event: KernelEvent) => void,
    history: readonly KernelEvent[] = [],
    private readonly window?: TurnWindow,
  ) {
    for (const event of history) this.#keep(event)
    // After the last seq, not the count: a history with gaps must never get a seq twice.
    this.#next = (history.at(-1)?.seq ?? -1) + 1
  }

  append(input: KernelEventInput): KernelEvent {
    const event = { v: EVENT_VERSION, seq: this.#next, at: this.clock.now(), ...input } as KernelEvent
    this.sink?.(event)
    this.#next = event.seq + 1
    this.#keep(event)
    this.#subject.next(event)
    return event
  }

  #keep(event: KernelEvent): void {
    this.#events.push(event)
    this.window?.add(this.#events, event)
  }

  read(): readonly KernelEvent[] {
    return this.#events
  }

  close(): void {
    this.#subject.complete()
  }
}

/** Events of a dropped turn that the session still needs: later kernels over the log, replay and the CLI read them. */
const SESSION_FACTS: ReadonlySet<string> = new Set([
  'session.configured',
  'pool.changed',
  'permission.granted',
  'session.changed',
  'tools.described',
])

interface TurnSpan {
  /** Seq of the turn's first event and of its latest one: its events lie between them. */
  first: number
  last: number
  completed: boolean
  /** It holds a session fact, so dropping it keeps its frame (turn.started, turn.completed) and the facts. */
  facts: boolean
}

/**
 * The retention window: after `retainTurns` more turns have completed, a completed turn's events
 * leave the array in place (everything else shifts up), except its session facts. A turn not yet
 * completed is never touched. Cost per dropped turn: the events appended while it ran, plus one
 * move of the array's tail.
 */
export class TurnWindow {
  readonly #turns = new Map<string, TurnSpan>()
  /** Completed turns still kept, oldest first. */
  readonly #completed: string[] = []
  /** Seq of the first `tool.loaded` of each tool: the one the pool reads (`loadedFromLog`). */
  readonly #firstLoad = new Map<string, number>()

  constructor(readonly retainTurns: number) {}

  /** `event` was just pushed onto `events`: note it, and drop what fell out of the window. */
  add(events: KernelEvent[], event: KernelEvent): void {
    let span = this.#turns.get(event.turnId)
    if (span === undefined) {
      span = { first: event.seq, last: event.seq, completed: false, facts: false }
      this.#turns.set(event.turnId, span)
    }
    span.last = event.seq
    // A child session's loads are its own and end with its call: only the session's are facts.
    if (event.type === 'tool.loaded' && event.parentToolUseId === undefined && !this.#firstLoad.has(event.name))
      this.#firstLoad.set(event.name, event.seq)
    if (this.#isFact(event)) span.facts = true
    if (event.type !== 'turn.completed' || span.completed) return
    span.completed = true
    this.#completed.push(event.turnId)
    while (this.#completed.length > this.retainTurns) this.#drop(events, this.#completed.shift() as string)
  }

  #isFact(event: KernelEvent): boolean {
    return (
      SESSION_FACTS.has(event.type) || (event.type === 'tool.loaded' && this.#firstLoad.get(event.name) === event.seq)
    )
  }

  #drop(events: KernelEvent[], turnId: string): void {
    const span = this.#turns.get(turnId)
    if (span === undefined) return
    this.#turns.delete(turnId)
    const start = indexOfSeq(events, span.first)
    let write = start
    let read = start
    for (; read < events.length && (events[read] as KernelEvent).seq <= span.last; read++) {
      const event = events[read] as KernelEvent
      if (event.turnId !== turnId || (span.facts && this.#framesFacts(event))) events[write++] = event
    }
    events.splice(write, read - write)
  }

  #framesFacts(event: KernelEvent): boolean {
    return event.type === 'turn.started' || event.type === 'turn.completed' || this.#isFact(event)
  }
}

/** The index of the first event with seq ≥ `seq` (seqs grow along the array). */
function indexOfSeq(events: readonly KernelEvent[], seq: number): number {
  let low = 0
  let high = events.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if ((events[mid] as KernelEvent).seq < seq) low = mid + 1
    else high = mid
  }
  return low
}

/** Options of `createMemoryLog`. */
export interface MemoryLogOptions {
  /** Events to start from (a stored session), as if appended in order. Default: none. */
  history?: readonly KernelEvent[]
  /**
   * Keep only the last `retainTurns` finished turns (a turn is finished once its
   * `turn.completed` is appended); older ones are dropped, so a long session's memory stays flat.
   * A turn still running is never dropped. What a later kernel over the log, replay and the CLI
   * need of the session stays: each dropped turn's `session.configured`, `pool.changed`, `session.changed` and
   * `permission.granted` events and the first `tool.loaded` of each tool, framed by that turn's
   * `turn.started` and `turn.completed`. A whole number ≥ 1 (the turn that just finished reads
   * its own events back for its result); `Infinity` keeps everything. Default: everything.
   */
  retainTurns?: number
}

const MEMORY_LOG_OPTIONS = optionNames<MemoryLogOptions>()('history', 'retainTurns')

/**
 * An event log held in memory: the default, and what tests use. It keeps every event unless
 * `retainTurns` says otherwise; then `read()` is the retained part in seq order (seqs have gaps
 * where events were dropped, and never repeat), while `events$` still publishes every event.
 *
 * @throws RangeError for a `retainTurns` that is not a whole number ≥ 1 (or `Infinity`); TypeError for an
 * unknown option.
 * @example
 * const log = createMemoryLog({ now: () => Date.now() })
 * log.events$.subscribe((e) => console.log(e.type))
 * // A long session: memory for the last 20 finished turns, the session's grants and loads.
 * const kernel = createKernel({ tools, log: createMemoryLog(systemClock, { retainTurns: 20 }) })
 */
export function createMemoryLog(
  clock: Clock = systemClock,
  historyOrOptions: readonly KernelEvent[] | MemoryLogOptions = [],
): EventLog {
  if (Array.isArray(historyOrOptions)) return new StampingLog(clock, undefined, historyOrOptions)
  const options = checkOptions(historyOrOptions as MemoryLogOptions)
  return new StampingLog(clock, undefined, options.history ?? [], turnWindow(options.retainTurns, 'createMemoryLog'))
}

/**
 * The window for a store's `retainTurns` option (undefined: keep everything).
 *
 * @throws RangeError, naming `where`, for anything but a whole number ≥ 1 or `Infinity`.
 */
export function turnWindow(keep: unknown, where: string): TurnWindow | undefined {
  const whole = typeof keep === 'number' && ((Number.isInteger(keep) && keep >= 1) || keep === Infinity)
  if (keep !== undefined && !whole)
    throw new RangeError(
      `${where}: retainTurns must be a whole number of turns, at least 1 (the turn that just finished ` +
        `reads its events back), or Infinity; got ${typeof keep === 'string' ? JSON.stringify(keep) : String(keep)}`,
    )
  return keep === undefined || keep === Infinity ? undefined : new TurnWindow(keep as number)
}

function checkOptions(options: MemoryLogOptions): MemoryLogOptions {
  if (typeof options !== 'object' || options === null)
    throw new RangeError(
      `createMemoryLog: the second argument is a history (an array) or options, got ${String(options)}`,
    )
  checkKnownOptions('createMemoryLog', options, MEMORY_LOG_OPTIONS)
  if (options.history !== undefined && !Array.isArray(options.history))
    throw new RangeError('createMemoryLog: history must be an array of events')
  return options
}
