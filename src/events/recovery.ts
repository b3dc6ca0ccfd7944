/**
 * Recovery: a log cut off mid-turn (a crash, `kill -9`) is closed by giving every call without a
 * result a deterministic result — the same log always gets the same events — so the
 * conversation can go on. Pure: it reads events and returns the ones to append.
 *
 * What the model is told follows the step table (src/events/tool-call.steps.ts): a call that
 * never started had no effect; one that started may have had its effect, and one whose tool
 * returned has, with whatever the log knows of its output.
 *
 * It lives in events/, below the kernel: `kernel.resume` and a session store's opening run it,
 * and replay/ (which drives a kernel) sits above the kernel.
 */
import { toolResultBlock, type KernelEvent, type KernelEventInput } from './event.schema.js'
import { advance, isPersisted, REQUESTED, type CallState } from './tool-call.steps.js'
import { cancelledText, interruptedText, ranUnrecordedText, timedOutText } from './unfinished-text.js'

export const RECOVERY_REASON = 'the session stopped unexpectedly (the process ended) before this call finished'

interface OpenCall {
  name: string
  index: number
  position: CallState
  /** The scheduler started it (`tool.dispatched`). */
  dispatched: boolean
  progress: string[]
  /** What the tool answered, when its end is in the log. */
  ended?: { output: unknown } | { error: string } | { persisted: string } | { unsaved: true } | { held: number }
}

export interface OpenTurn {
  calls: Map<string, OpenCall>
  completed: boolean
  /** The turn's last word was `turn.parked`: it waits for answers, nothing of it runs. */
  parked: boolean
  /** A child turn's parent call (docs/subagents.md): the turn lives only while that call runs. */
  parentToolUseId: string | undefined
}

/**
 * The events that close every turn left open in `events`: for each call without a result, the
 * step it was in, then its result; then the turn's end. Returns nothing for a log that is
 * already whole.
 *
 * @example
 * for (const event of recover(log.read())) log.append(event)
 */
export function recover(events: readonly KernelEvent[]): KernelEventInput[] {
  const all: KernelEventInput[] = []
  for (const [turnId, turn] of openTurns(events)) {
    if (turn.completed) continue
    // A child turn's events carry its parent call, as the turn's own did.
    const parent = turn.parentToolUseId
    const appended = {
      push: (event: KernelEventInput) => all.push(parent === undefined ? event : { ...event, parentToolUseId: parent }),
    }
    const unanswered = [...turn.calls].filter(([, c]) => !c.position.answered).sort(([, a], [, b]) => a.index - b.index)
    // A turn with calls parked for a person stays parked (docs/approvals.md): they, and the calls
    // not yet started behind them, go on when answered; only what was under way is closed — such
    // as a call whose child session waited for a person (docs/subagents.md). A child turn is
    // closed whole: the call it ran under was under way, so it is closed too, and nothing would
    // take the child's answers on.
    const waits = parent === undefined && unanswered.some(([, c]) => parkedAt(c))
    const open = waits ? unanswered.filter(([, c]) => c.dispatched && !parkedAt(c)) : unanswered
    if (turn.parked && waits && open.length === 0) continue
    if (waits && open.length === 0) {
      appended.push(parkedEvent(turnId, unanswered))
      continue
    }
    appended.push({ type: 'turn.recovered', turnId, reason: RECOVERY_REASON, open: open.map(([id]) => id) })
    for (const [toolUseId, call] of open) {
      appended.push({ type: 'tool.cancelled', turnId, toolUseId, step: call.position.step, reason: RECOVERY_REASON })
      const block = toolResultBlock(toolUseId, recoveredText(call), true)
      appended.push({ type: 'tool.result', turnId, toolUseId, outcome: 'cancelled', block })
    }
    if (waits)
      appended.push(
        parkedEvent(
          turnId,
          unanswered.filter(([id]) => !open.some(([o]) => o === id)),
        ),
      )
    else appended.push({ type: 'turn.completed', turnId, results: turn.calls.size })
  }
  return all
}

/** Parked at its permission step, answered or not: it has not run, and goes on when its turn does. */
function parkedAt(call: OpenCall): boolean {
  return call.position.pending !== null && call.position.step === 'permission'
}

function parkedEvent(turnId: string, calls: ReadonlyArray<[string, OpenCall]>): KernelEventInput {
  const pending = calls.filter(([, c]) => parkedAt(c)).map(([id]) => id)
  const waiting = calls.filter(([, c]) => !parkedAt(c)).map(([id]) => id)
  return { type: 'turn.parked', turnId, pending, waiting }
}

/**
 * Each turn of the log with its calls, each call's position in the step table, and what it had
 * recorded when the log ends: what recovery answers, and what the testing kit names when a turn hangs.
 */
export function openTurns(events: readonly KernelEvent[]): Map<string, OpenTurn> {
  const turns = new Map<string, OpenTurn>()
  for (const event of events) {
    let turn = turns.get(event.turnId)
    if (turn === undefined)
      turns.set(
        event.turnId,
        (turn = { calls: new Map(), completed: false, parked: false, parentToolUseId: event.parentToolUseId }),
      )
    if (event.type === 'turn.completed') turn.completed = true
    if (event.type === 'turn.parked') turn.parked = true
    if (event.type === 'turn.resumed') turn.parked = false
    if (!('toolUseId' in event)) continue
    if (event.type === 'tool.requested') {
      turn.calls.set(event.toolUseId, {
        name: event.name,
        index: event.index,
        position: REQUESTED,
        dispatched: false,
        progress: [],
      })
    }
    const call = turn.calls.get(event.toolUseId)
    if (call === undefined) continue
    call.position = advance(call.position, event)
    if (event.type === 'tool.dispatched') call.dispatched = true
    if (event.type === 'tool.progress')
      call.progress.push(typeof event.data === 'string' ? event.data : JSON.stringify(event.data))
    if (event.type === 'tool.completed') call.ended = isPersisted(event) ? { unsaved: true } : { output: event.output }
    if (event.type === 'tool.errored') call.ended = { error: event.message }
    if (event.type === 'budget.held') call.ended = { held: event.chars }
    if (event.type === 'tool.budgeted')
      call.ended = event.path === undefined ? { unsaved: true } : { persisted: event.path }
  }
  return turns
}

function recoveredText(call: OpenCall): string {
  if (!call.position.started) return cancelledText(call.name, RECOVERY_REASON)
  // Timed out before the process stopped: the words the call itself would have given.
  const { failure } = call.position
  if (failure?.code === 'timed_out') return timedOutText(call.name, failure.message, call.progress.join(''))
  if (call.ended === undefined) return interruptedText(call.name, RECOVERY_REASON, call.progress.join(''))
  return ranUnrecordedText(call.name, RECOVERY_REASON, knownOutput(call.ended))
}

function knownOutput(ended: NonNullable<OpenCall['ended']>): string {
  if ('error' in ended) return `It reported an error: ${ended.error}`
  if ('persisted' in ended) return `Its full output was saved to ${ended.persisted}.`
  if ('unsaved' in ended) return 'Its output was too large to keep in the log and was not saved.'
  // It waited for its siblings' results to share the message budget (docs/decisions/results.md, 154).
  if ('held' in ended)
    return `It returned ${ended.held} characters of output, which the log does not keep: they waited for the results of the calls running beside it.`
  const output = ended.output
  const text = typeof output === 'string' ? output : (JSON.stringify(output) ?? 'undefined')
  return text === '' ? 'It returned no output.' : `Its output was:\n${text}`
}
