/**
 * The order a log's events must keep, whatever store it came from: what replay and the CLI
 * check before trusting a log (a shuffled or spliced log would otherwise replay as "0 turns,
 * all the same"). Pure: events in, a verdict out.
 */
import type { KernelEvent } from './event.schema.js'

export type LogOrder = { ok: true } | { ok: false; problem: string; seq: number }

interface TurnState {
  completed: boolean
  /** Calls whose tool.requested has been seen (emptied once the turn completes). */
  requested: Set<string>
}

/**
 * Checks that `seq` strictly increases from the first event; that each turn's events come after
 * its `turn.started` and none after its `turn.completed` (turns may interleave); and that a
 * call's events come after its `tool.requested`. Reports the first event that breaks a rule.
 *
 * @example
 * const order = checkLogOrder(events)
 * if (!order.ok) throw new Error(`event ${order.seq}: ${order.problem}`)
 */
export function checkLogOrder(events: readonly KernelEvent[]): LogOrder {
  const turns = new Map<string, TurnState>()
  let previous: KernelEvent | undefined
  for (const event of events) {
    if (previous !== undefined && event.seq <= previous.seq) {
      const problem =
        event.seq === previous.seq
          ? `seq ${event.seq} appears twice (${previous.type}, then ${event.type})`
          : `seq goes back from ${previous.seq} to ${event.seq}`
      return { ok: false, problem, seq: event.seq }
    }
    previous = event
    const problem = turnProblem(turns, event)
    if (problem !== undefined) return { ok: false, problem, seq: event.seq }
  }
  return { ok: true }
}

function turnProblem(turns: Map<string, TurnState>, event: KernelEvent): string | undefined {
  const turn = turns.get(event.turnId)
  if (event.type === 'turn.started') {
    if (turn !== undefined) return `turn ${event.turnId} starts twice`
    turns.set(event.turnId, { completed: false, requested: new Set() })
    return undefined
  }
  if (turn === undefined) return `${event.type} of turn ${event.turnId} comes before the turn's turn.started`
  // A background shell outlives the turn that started it: its reads and exit keep that turn's id.
  if (isShellEvent(event)) return undefined
  if (turn.completed) return `${event.type} of turn ${event.turnId} comes after the turn's turn.completed`
  if (event.type === 'turn.completed') {
    turn.completed = true
    turn.requested.clear()
  } else if (event.type === 'tool.requested') turn.requested.add(event.toolUseId)
  else if ('toolUseId' in event && !turn.requested.has(event.toolUseId))
    return `${event.type} of call ${event.toolUseId} (turn ${event.turnId}) comes before its tool.requested`
  return undefined
}

/**
 * A background shell's event (docs/decisions/processes.md "Background shells"): it carries the
 * turn that started the shell and may come after that turn completed; it is an outside fact,
 * not a decision of the engine, so replay does not compare it.
 */
export function isShellEvent(event: KernelEvent): boolean {
  return event.type === 'shell.started' || event.type === 'shell.read' || event.type === 'shell.exited'
}
