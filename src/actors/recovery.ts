/**
 * Recovery: a log cut off mid-turn (a crash, `kill -9`) is closed by giving every call without a
 * result a deterministic interrupted result — the same log always gets the same events — so the
 * conversation can go on. Pure: it reads events and returns the ones to append.
 */
import { toolResultBlock, type KernelEvent, type KernelEventInput, type Step } from '../events/event.schema.js'
import { cancelledText, interruptedText } from './result-text.js'

export const RECOVERY_REASON = 'the session stopped unexpectedly (the process ended) before this call finished'

interface OpenCall {
  name: string
  index: number
  lastStep: Step
  started: boolean
  progress: string[]
}

const STEP_OF: Partial<Record<KernelEvent['type'], Step>> = {
  'tool.parsed': 'validate',
  'tool.validated': 'permission',
  'tool.hooked': 'permission',
  'tool.permitted': 'call',
  'tool.started': 'call',
  'tool.progress': 'call',
  'tool.completed': 'map',
  'tool.errored': 'map',
  'tool.budgeted': 'map',
  'tool.mapped': 'emit',
}

/**
 * The events that close every turn left open in `events`: for each call without a result, the
 * step it was in, then an interrupted (it had started) or cancelled (it had not) result; then the
 * turn's end. Returns nothing for a log that is already whole.
 *
 * @example
 * for (const event of recover(log.read())) log.append(event)
 */
export function recover(events: readonly KernelEvent[]): KernelEventInput[] {
  const turns = new Map<string, { calls: Map<string, OpenCall>; answered: Set<string>; completed: boolean }>()
  for (const event of events) {
    let turn = turns.get(event.turnId)
    if (turn === undefined) turns.set(event.turnId, (turn = { calls: new Map(), answered: new Set(), completed: false }))
    if (event.type === 'turn.completed') turn.completed = true
    if (!('toolUseId' in event)) continue
    if (event.type === 'tool.requested') turn.calls.set(event.toolUseId, { name: event.name, index: event.index, lastStep: 'parse', started: false, progress: [] })
    const call = turn.calls.get(event.toolUseId)
    if (call === undefined) continue
    if (event.type === 'tool.result') turn.answered.add(event.toolUseId)
    if (event.type === 'tool.started') call.started = true
    if (event.type === 'tool.progress') call.progress.push(typeof event.data === 'string' ? event.data : JSON.stringify(event.data))
    call.lastStep = STEP_OF[event.type] ?? call.lastStep
  }
  const appended: KernelEventInput[] = []
  for (const [turnId, turn] of turns) {
    if (turn.completed) continue
    const open = [...turn.calls].filter(([id]) => !turn.answered.has(id)).sort(([, a], [, b]) => a.index - b.index)
    appended.push({ type: 'turn.recovered', turnId, reason: RECOVERY_REASON, open: open.map(([id]) => id) })
    for (const [toolUseId, call] of open) {
      const ran = call.started && (call.lastStep === 'call' || call.lastStep === 'map' || call.lastStep === 'emit')
      const content = ran ? interruptedText(call.name, RECOVERY_REASON, call.progress.join('')) : cancelledText(call.name, RECOVERY_REASON)
      appended.push({ type: 'tool.cancelled', turnId, toolUseId, step: call.lastStep, reason: RECOVERY_REASON })
      appended.push({ type: 'tool.result', turnId, toolUseId, outcome: 'cancelled', block: toolResultBlock(toolUseId, content, true) })
    }
    appended.push({ type: 'turn.completed', turnId, results: turn.calls.size })
  }
  return appended
}
