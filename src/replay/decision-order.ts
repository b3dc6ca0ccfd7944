/**
 * Logs written before the log drove the call (toolkernel 0.2) recorded a step when the machine
 * left it, after whatever the step's services appended while it ran — so within one instant a
 * call's `permission.requested` (appended by the policy as it asked) came before the same call's
 * `tool.parsed` and `tool.validated`, and a `tool.loaded` (appended by the validate step) before
 * its `tool.parsed`. Today each step's events are appended in the order the steps decide them.
 * This puts an old log's events in that order, so it replays against today's engine; a log
 * written today is returned as it is (no step's record ever follows a later step's event).
 */
import type { KernelEvent, Step } from '../events/event.schema.js'

/** The step an event belongs to, for the events a step records and those its services append. */
function stepOf(event: KernelEvent): Step | undefined {
  switch (event.type) {
    case 'tool.parsed':
      return 'parse'
    case 'tool.loaded':
    case 'tool.validated':
      return 'validate'
    case 'tool.hooked':
      return event.phase === 'pre' ? 'preHook' : 'postHook'
    case 'permission.requested':
    case 'permission.granted':
      return 'permission'
    default:
      return undefined
  }
}

const ORDER: readonly Step[] = ['parse', 'validate', 'preHook', 'permission']

/** Whose call an event is about: its own, or the call that loaded a tool. */
const callOf = (event: KernelEvent): string | undefined =>
  event.type === 'tool.loaded' ? event.loadedBy : 'toolUseId' in event ? event.toolUseId : undefined

/** A service's event (the policy's, the loader's) that an old log put before its call's earlier records. */
const isServiceEvent = (event: KernelEvent): boolean =>
  event.type === 'permission.requested' || event.type === 'permission.granted' || event.type === 'tool.loaded'

export function inDecisionOrder(events: readonly KernelEvent[]): KernelEvent[] {
  const out: KernelEvent[] = []
  let held: KernelEvent[] = []
  for (const event of events) {
    const call = callOf(event)
    const heldCall = held[0] === undefined ? undefined : callOf(held[0])
    if (isServiceEvent(event) && call !== undefined) {
      if (heldCall !== call) held = flush(out, held)
      held.push(event)
      continue
    }
    const step = stepOf(event)
    if (step !== undefined && ORDER.includes(step) && call === heldCall) {
      // A record of an earlier step than a held event's comes first: after the held events of its step or before.
      held = flush(out, held, (h) => ORDER.indexOf(stepOf(h) as Step) <= ORDER.indexOf(step))
    } else held = flush(out, held)
    out.push(event)
  }
  flush(out, held)
  return out
}

/** Moves the held events that `due` picks (all by default) to `out`; returns the rest, still held. */
function flush(
  out: KernelEvent[],
  held: KernelEvent[],
  due: (event: KernelEvent) => boolean = () => true,
): KernelEvent[] {
  const rest: KernelEvent[] = []
  for (const event of held) (due(event) ? out : rest).push(event)
  return rest
}
