/**
 * The timeline projection: one readable row per event, with time relative to the start of its
 * turn. What the demo prints and the CLI's timeline draws.
 */
import { timedOutReason } from '../events/unfinished-text.js'
import type { KernelEvent } from '../events/event.schema.js'

export interface TimelineRow {
  seq: number
  /** Milliseconds since the turn started. */
  t: number
  turnId: string
  toolUseId: string | undefined
  type: KernelEvent['type']
  /** A short description of what happened. */
  detail: string
}

/** One row per event, in log order, with time measured from the first event of its own turn. */
export function projectTimeline(events: Iterable<KernelEvent>): TimelineRow[] {
  const starts = new Map<string, number>()
  const rows: TimelineRow[] = []
  for (const event of events) {
    if (!starts.has(event.turnId)) starts.set(event.turnId, event.at)
    rows.push({
      seq: event.seq,
      t: event.at - (starts.get(event.turnId) ?? event.at),
      turnId: event.turnId,
      toolUseId: 'toolUseId' in event ? event.toolUseId : undefined,
      type: event.type,
      detail: describeEvent(event),
    })
  }
  return rows
}

/** One line saying what an event recorded, at most about 80 characters of the log's text per field. */
export function describeEvent(event: KernelEvent): string {
  switch (event.type) {
    case 'turn.started':
      return `${event.mode} turn, at most ${event.maxConcurrency} at once`
    case 'session.configured':
      return `toolkernel ${event.toolkernel}, ${event.tools.length} tool(s), mode ${event.mode}, cwd ${event.cwd}`
    case 'turn.recovered':
      return `recovered: ${event.reason}; ${event.open.length} open call(s) closed`
    case 'turn.aborted':
      return `aborted: ${event.reason}`
    case 'turn.ended':
      return `message ended (stop reason ${event.stopReason ?? 'none'})`
    case 'turn.discarded':
      return `discarded: ${event.reason}`
    case 'hook.finished':
      return `${event.phase}-hook ${event.hook}: ${event.outcome}${event.decision !== undefined ? ` (${event.decision})` : ''}${event.reason !== undefined ? ` — ${short(event.reason)}` : ''}${event.error !== undefined ? ` — ${short(event.error)}` : ''}`
    case 'permission.requested':
      return `asked the user: ${short(event.reason)}`
    case 'permission.granted':
      return `granted for the session: ${event.scope === 'rule' ? (event.rule ?? '') : `${event.tool} (${event.scope})`}`
    case 'tool.cascaded':
      return `failed in a parallel batch; stopped ${event.siblings.join(', ')}`
    case 'turn.completed':
      return `${event.results} result(s)`
    case 'tool.requested':
      return `#${event.index} ${event.name} ${short(JSON.stringify(event.input) ?? 'undefined')}`
    case 'tool.queued':
      return event.safe
        ? 'queued, concurrency-safe'
        : `queued, exclusive${event.reason !== undefined ? ` (${event.reason})` : ''}`
    case 'tool.dispatched':
      return `started in batch ${event.batch} (${event.running} running)`
    case 'tool.parsed':
      return `tool ${event.tool}`
    case 'tool.validated':
      return 'input valid'
    case 'tool.hooked':
      return `${event.phase}-hook: ${event.outcome}${event.reason !== undefined ? ` (${event.reason})` : ''}`
    case 'tool.permitted':
      return `permission ${event.behavior} by ${event.source}${event.reason !== undefined ? `: ${short(event.reason)}` : ''}`
    case 'tool.started':
      return `call running (on interrupt: ${event.interrupt})`
    case 'tool.progress':
      return `progress ${short(JSON.stringify(event.data) ?? '')}`
    case 'tool.completed':
      return `completed ${short(JSON.stringify(event.output) ?? 'undefined')}`
    case 'tool.errored':
      return `errored: ${short(event.message)}`
    case 'tool.budgeted':
      return event.path === undefined
        ? `output not saved (${event.chars} chars): ${short(event.error ?? 'no reason recorded')}`
        : `output persisted (${event.chars} chars) to ${event.path}`
    case 'tool.rejected':
      return `rejected at ${event.step} (${event.code}): ${short(event.message)}`
    case 'tool.cancelled':
      return `cancelled at ${event.step}: ${short(event.reason)}`
    case 'tool.mapped':
      return event.isError ? 'mapped to an error result' : 'mapped to a result'
    case 'tool.timed_out':
      return `timed out: ${timedOutReason(event)}`
    case 'tool.retrying':
      return `attempt ${event.attempt} failed (${short(event.error)}); retrying in ${event.delayMs} ms`
    case 'tool.restarted':
      return `attempt ${event.attempt} running`
    case 'tool.result':
      return `${event.outcome}: ${short(typeof event.block.content === 'string' ? event.block.content : JSON.stringify(event.block.content))}`
    case 'pool.assembled':
      return `tool pool (${event.format}): ${event.visible.length} visible, ${event.deferred.length} deferred, ${event.loaded.length} loaded`
    case 'tool.loaded':
      return `loaded ${event.name} (${event.how}${event.loadedBy !== undefined ? ` by ${event.loadedBy}` : ''})`
    case 'pool.changed':
      return event.disabled !== undefined || event.enabled !== undefined
        ? `tools switched: disabled ${event.disabled?.join(', ') || 'none'}, enabled ${event.enabled?.join(', ') || 'none'}`
        : `${event.source} changed: added ${event.added.join(', ') || 'none'}, removed ${event.removed.join(', ') || 'none'}`
    case 'session.changed':
      return sessionChangeText(event)
    case 'tools.described':
      return short(`descriptions sent from now on: ${event.tools.map((t) => `${t.name}: ${t.description}`).join('; ')}`)
    case 'shell.started':
      return `background shell ${event.shellId} started${event.pid !== undefined ? ` (pid ${event.pid})` : ''} by ${event.startedBy}: ${short(event.command)}`
    case 'shell.read':
      return `background shell ${event.shellId} read by ${event.readBy}: ${event.chars} chars${event.droppedChars !== undefined ? `, ${event.droppedChars} dropped` : ''}${event.running ? '' : ', exited'}`
    case 'shell.exited':
      return `background shell ${event.shellId} ${event.how === 'exited' ? 'exited' : event.how === 'killed' ? `killed${event.killedBy !== undefined ? ` by ${event.killedBy}` : ''}` : 'stopped at close'} (${event.signal ?? `exit code ${event.exitCode ?? 'unknown'}`})${event.error !== undefined ? ` — ${short(event.error)}` : ''}`
    case 'budget.held':
      return `output of ${event.chars} chars waits for its running siblings (message budget)`
    case 'budget.decided':
      return `message budget for ${event.group.join(', ')}: ${event.persisted.length === 0 ? 'all kept whole' : `persisted ${event.persisted.join(', ')}`}`
    case 'session.snapshot':
      return `snapshot of the log up to event ${event.upTo} (${event.turns} turn(s)): ${event.carried.length} event(s) carried for a resume`
    default:
      // An event type newer than this list still shows what it says, not nothing.
      return short(JSON.stringify(fieldsOf(event as KernelEvent)))
  }
}

/** What a session change did, in one line: applied fields first, then what was dropped. */
function sessionChangeText(event: Extract<KernelEvent, { type: 'session.changed' }>): string {
  const by = event.changedBy === undefined ? 'the app' : event.changedBy
  const parts = [
    event.cwd === undefined ? '' : `cwd ${event.cwd}`,
    event.mode === undefined ? '' : `mode ${event.previousMode ?? '?'} → ${event.mode}`,
    event.env === undefined ? '' : `env ${Object.keys(event.env).join(', ')}`,
    event.data === undefined ? '' : `data ${Object.keys(event.data).join(', ')}`,
    event.dropped === undefined ? '' : `dropped ${event.dropped.map((d) => `${d.field} (${d.reason})`).join('; ')}`,
  ].filter((part) => part !== '')
  return short(`session changed by ${by}: ${parts.join(', ') || 'nothing'}`)
}

/** An event's own fields, without the envelope. */
function fieldsOf(event: KernelEvent): Record<string, unknown> {
  const { v: _v, seq: _seq, at: _at, turnId: _turnId, type: _type, ...rest } = event
  return rest
}

function short(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
