/**
 * A call's time split into segments — queued, checks, hooks, permission, running, budget,
 * finishing — read from its events through the step table: the time before an event is spent
 * in the step that event closes, fails, or happens in. Nothing here restates which event
 * closes which step; that is STEP_TABLE's.
 */
import { STEPS, type KernelEvent, type Step } from '../events/event.schema.js'
import { STEP_TABLE } from '../events/tool-call.steps.js'

/** What a stretch of a call's time was spent on; the timeline's colours and filters use these names. */
export type SegmentKind = 'queued' | 'checks' | 'hooks' | 'permission' | 'running' | 'budget' | 'finishing'

/** The segment kinds in the order a call goes through them (the legend's order). */
export const SEGMENT_KINDS: readonly SegmentKind[] = [
  'queued',
  'checks',
  'hooks',
  'permission',
  'running',
  'budget',
  'finishing',
]

/** How the nine steps group into what a person debugging a call asks about. */
const KIND_OF_STEP: { readonly [S in Step]: SegmentKind } = {
  parse: 'checks',
  validate: 'checks',
  preHook: 'hooks',
  permission: 'permission',
  call: 'running',
  budget: 'budget',
  map: 'finishing',
  postHook: 'hooks',
  emit: 'finishing',
}

/** One stretch of a call's time, from the event that began it to the event that ended it. */
export interface Segment {
  kind: SegmentKind
  /** Milliseconds, on the same base as the events' `at` minus the session's start. */
  start: number
  end: number
  /** What the call was doing: the step table's words, or the scheduler's, or the user's. */
  doing: string
}

/** The events that close a step, or record its failure, inverted from the step table. */
const STEP_CLOSED_BY: ReadonlyMap<KernelEvent['type'], Step> = (() => {
  const map = new Map<KernelEvent['type'], Step>()
  for (const step of STEPS) {
    const row = STEP_TABLE[step]
    if (!map.has(row.closedBy)) map.set(row.closedBy, step)
    if (row.failure === 'tool.errored') map.set(row.failure, step)
  }
  return map
})()

/**
 * The step an event of a call belongs to: the one it names, closes or happens in; undefined for
 * the scheduler's events and facts outside any step (a cascade).
 */
export function stepOfEvent(event: KernelEvent): Step | undefined {
  switch (event.type) {
    case 'tool.rejected':
    case 'tool.cancelled':
      return event.step
    case 'tool.hooked':
    case 'hook.finished':
      return event.phase === 'pre' ? 'preHook' : 'postHook'
    case 'permission.requested':
    case 'permission.granted':
      return 'permission'
    case 'tool.started':
    case 'tool.progress':
      return 'call'
    default:
      return STEP_CLOSED_BY.get(event.type)
  }
}

const SCHEDULER = new Set<KernelEvent['type']>(['tool.requested', 'tool.queued', 'tool.dispatched'])

/**
 * Splits one call's time into segments. `events` are the call's own events in log order, the
 * first being its `tool.requested`; `origin` is subtracted from every time.
 *
 * A call never goes back to an earlier step, so the step reached so far only moves forward: an
 * event logged out of step order (a permission request recorded before the parse that preceded
 * it) does not send the segment back. Until the call leaves the queue, its time is `queued`;
 * after a `permission.requested`, the permission step is the wait for the user. Zero-length
 * stretches are dropped and neighbours of the same kind merged.
 */
export function callSegments(events: readonly KernelEvent[], origin: number): Segment[] {
  const segments: Segment[] = []
  let reached = -1
  let inQueue = true
  let asked = false
  let previous = events[0]?.at ?? origin
  for (const event of events.slice(1)) {
    const step = stepOfEvent(event)
    let doing: string
    let kind: SegmentKind
    if (inQueue && (SCHEDULER.has(event.type) || step !== undefined)) {
      ;[kind, doing] = ['queued', 'waiting in the queue']
      // A call leaves the queue when it is dispatched, or when a step ends it while it waits (abort).
      if (event.type === 'tool.dispatched' || step !== undefined) inQueue = false
    } else {
      if (step !== undefined) reached = Math.max(reached, STEPS.indexOf(step))
      const current = STEPS[Math.max(reached, 0)] ?? 'parse'
      kind = KIND_OF_STEP[current]
      doing = kind === 'permission' && asked ? 'waiting for the user' : STEP_TABLE[current].doing
    }
    if (event.type === 'permission.requested' || event.type === 'permission.pending') asked = true
    if (event.type === 'tool.permitted') asked = false
    push(segments, { kind, start: previous - origin, end: event.at - origin, doing })
    previous = Math.max(previous, event.at)
  }
  return segments
}

function push(segments: Segment[], segment: Segment): void {
  if (!(segment.end > segment.start)) return
  const last = segments.at(-1)
  if (last !== undefined && last.kind === segment.kind && last.doing === segment.doing && last.end === segment.start)
    last.end = segment.end
  else segments.push(segment)
}
