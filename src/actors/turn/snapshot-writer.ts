/**
 * Writing session snapshots (issue 33; docs/decisions/stores.md, 166): every `snapshotEvery`
 * top-level turns the kernel records `session.snapshot` at the turn's start, so a store opens the
 * session from there (src/events/snapshot.ts says what it carries).
 */
import { SnapshotKeeper } from '../../events/snapshot.js'
import type { EventLog } from '../../ports/event-log.port.js'

/** Top-level turns between snapshots unless the app says otherwise. */
export const DEFAULT_SNAPSHOT_EVERY = 50

/**
 * The `snapshotEvery` option as a number of turns (0: no snapshots).
 *
 * @throws RangeError for anything but a whole number ≥ 0, `false` or undefined.
 */
export function checkSnapshotEvery(value: unknown): number {
  if (value === undefined) return DEFAULT_SNAPSHOT_EVERY
  if (value === false) return 0
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value
  throw new RangeError(
    `createKernel: snapshotEvery must be a whole number of turns between session snapshots (0 or false: none; default ${DEFAULT_SNAPSHOT_EVERY}), got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
  )
}

/** Follows `log` and, asked at each turn's start, records a snapshot once `every` turns have started since the last. */
export interface SnapshotWriter {
  atTurnStart(turnId: string): void
}

export function snapshotWriter(every: number, log: EventLog): SnapshotWriter | undefined {
  if (every === 0) return undefined
  const keeper = new SnapshotKeeper()
  for (const event of log.read()) keeper.add(event)
  // Every event as appended, not log.read() when a snapshot is due: a log that keeps a window of
  // turns (retainTurns) may drop a turn the keeper still holds open, end and all.
  // A feed that errors is the consumers' to report (turn.updates()): here it only stops snapshots.
  log.events$.subscribe({
    next: (event) => keeper.add(event),
    error: (error: unknown) => void (keeper.unfaithful ??= `the log's feed failed (${String(error)})`),
  })
  return {
    atTurnStart: (turnId) => {
      // Fail closed: a keeper that could not follow the log writes no snapshot (resume reads the whole log).
      if (keeper.sinceSnapshot >= every && keeper.unfaithful === undefined) log.append(keeper.snapshot(turnId))
    },
  }
}
