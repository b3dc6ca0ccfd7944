/**
 * A turn: the tool calls of one assistant message, whole or streamed. Stream intake (Anthropic
 * events, OpenAI chunks, or blocks the app assembled) feeds the scheduler's control stream;
 * each call runs as a tool-call actor; the turn's result and updates are projections of its
 * events in the log. Batch `runTurn` is a turn whose blocks all arrive before its end.
 */
import { filter, map, Observable, Subject } from 'rxjs'
import type { KernelEvent } from '../../events/event.schema.js'
import { AnthropicStreamIntake } from '../../intake/anthropic-stream.js'
import type { IncomingToolUse, IntakeSink } from '../../intake/incoming.js'
import { jsonProblem } from '../../intake/json-bounds.js'
import { OpenAIStreamIntake } from '../../intake/openai.js'
import { OpenAIResponsesStreamIntake } from '../../intake/openai-responses.js'
import { assertDirected } from '../../intake/misdirected.js'
import { toMessageParam } from '../../intake/message-param.js'
import { projectTurnMessage } from '../../projections/messages.projection.js'
import { updateOf, type TurnUpdate } from '../../projections/updates.projection.js'
import type { EventLog } from '../../ports/index.js'
import { toAsyncIterable } from '../../util/async-iterable.js'
import type { TurnBudget } from './budget.js'
import type { CallServices } from '../tool-call/call-env.js'
import { classifySafety } from './safety.js'
import { scheduleCalls, type ScheduledCall, type SchedulerInput } from './scheduler.js'
import { startToolCall, type CallRequest, type ProvidedToolCallMachine } from '../tool-call/tool-call.actor.js'

export type { EarlyStart, Turn, TurnResult } from './turn.types.js'
import type { EarlyStart, Turn, TurnResult } from './turn.types.js'

export interface TurnDeps {
  turnId: string
  log: EventLog
  services: CallServices
  machine: ProvidedToolCallMachine
  maxConcurrency: number
  /** Replaying a log of toolkernel < 0.2: see SchedulerOptions.legacyDispatch. */
  legacyDispatch?: boolean
  /** Characters the turn's message may carry before fresh results are persisted. */
  messageBudget: number
  /** The permission configuration in force (recorded in turn.started for replay). */
  permissions: { mode: string; allow: string[]; ask: string[]; deny: string[] }
  /** Why the log stopped taking events, if it has. */
  logFailure?: () => string | undefined
  /** Settles when what decisions depend on is loaded (the shell grammar); absent when it is. */
  ready?: Promise<void> | undefined
}

export interface TurnConfig {
  mode: 'batch' | 'stream'
  earlyStart: EarlyStart
}

/** The kernel's handle on a turn: the turn, and when to start watching its signal. */
export interface TurnControl extends Turn {
  /**
   * Watches the app's signal. Batch turns attach it after their calls are queued, so an
   * already-aborted signal voids every call instead of racing the first ones to start.
   */
  attach(signal: AbortSignal | undefined): void
  /** Adds a call from the kernel's own intake, keeping its index and input error. */
  addIncoming(use: IncomingToolUse): void
  /**
   * Aborts or discards the turn, or stops it because the log failed (`fail`: like an abort, but
   * 'block' calls stop too); `flushed` are the blocks the interruption cut off (replay gives them).
   */
  interrupt(kind: 'abort' | 'discard' | 'fail', reason: string, flushed?: readonly IncomingToolUse[]): void
}

export function startTurn(deps: TurnDeps, config: TurnConfig): TurnControl {
  const { turnId, log, services } = deps
  const first = log.append({
    type: 'turn.started',
    turnId,
    mode: config.mode,
    maxConcurrency: deps.maxConcurrency,
    earlyStart: config.earlyStart,
    cwd: services.cwd,
    permissions: deps.permissions,
  }).seq
  const control = new Subject<SchedulerInput>()
  const ids = new Set<string>()
  const budget: TurnBudget = { limit: deps.messageBudget, used: 0 }
  let nextIndex = 0
  let phase: 'open' | 'ended' | 'over' = 'open'
  let discarded = false
  let resolveResult!: (result: TurnResult) => void
  const result = new Promise<TurnResult>((resolve) => (resolveResult = resolve))

  // Until what decisions depend on is loaded (the shell grammar), calls, the end and interruptions
  // wait here in order; the app's bugs (a duplicate id, a late call) still throw at once.
  let waiting: Array<() => void> | undefined
  if (deps.ready !== undefined) {
    waiting = []
    void deps.ready.then(() => {
      const queued = waiting ?? []
      waiting = undefined
      for (const run of queued) run()
    })
  }
  const whenReady = (run: () => void): void => (waiting === undefined ? run() : void waiting.push(run))

  const add = (incoming: IncomingToolUse): void => {
    if (phase === 'over') throw new TypeError(`turn ${turnId} is over; start a new turn for more tool calls`)
    if (ids.has(incoming.id)) throw new TypeError(`tool call id "${incoming.id}" appears twice in turn ${turnId}`)
    ids.add(incoming.id)
    nextIndex = Math.max(nextIndex, incoming.index + 1)
    whenReady(() => request(incoming))
  }

  const request = (incoming: IncomingToolUse): void => {
    let use = incoming
    // What the log cannot serialise never reaches it: the call answers with the reason instead.
    const problem = use.inputError === undefined ? jsonProblem(use.input) : undefined
    if (problem !== undefined) use = { ...use, input: null, inputError: problem }
    const requested = {
      type: 'tool.requested' as const,
      turnId,
      toolUseId: use.id,
      index: use.index,
      name: use.name,
      input: use.input,
    }
    log.append(use.inputError === undefined ? requested : { ...requested, inputError: use.inputError })
    const classified = classifySafety(services.registry, use.name, use.input, use.inputError)
    log.append({ type: 'tool.queued', turnId, toolUseId: use.id, ...classified.safety })
    const { safe } = classified.safety
    const preview =
      classified.tool !== undefined ? services.permissions.preview(classified.tool, classified.input) : 'unknown'
    const early =
      config.earlyStart === 'all' ||
      (config.earlyStart === 'safe' && safe && (preview === 'allow' || preview === 'deny'))
    const cascades = classified.tool?.cascadesOnFailure === true
    const validated = classified.tool === undefined ? undefined : { tool: classified.tool, input: classified.input }
    control.next({ type: 'call', call: scheduledCall(deps, budget, use, { safe, early, cascades }, validated) })
  }

  const sink: IntakeSink = { toolUse: add, end: (stopReason, detail) => finish(stopReason, detail) }
  const anthropic = new AnthropicStreamIntake(sink)
  const openai = new OpenAIStreamIntake(sink)
  const responses = new OpenAIResponsesStreamIntake(sink)

  const finish = (stopReason: string | null, detail?: string): void => whenReady(() => ended(stopReason, detail))
  const ended = (stopReason: string | null, detail?: string): void => {
    if (phase !== 'open') return
    anthropic.close(stopReason, detail)
    openai.close(stopReason, detail)
    responses.close(stopReason, detail)
    phase = 'ended'
    log.append({ type: 'turn.ended', turnId, stopReason })
    if (stopReason === 'tool_use') control.next({ type: 'end' })
    else control.next({ type: 'end', voidReason: voidReasonOf(stopReason) })
  }

  /**
   * Abort (the app's signal) or discard. Blocks still streaming were cut off: they are handed on
   * (and voided) so they get results too — from the intakes, or as given (replay supplies them).
   */
  const interrupt = (kind: 'abort' | 'discard' | 'fail', reason: string, flushed?: readonly IncomingToolUse[]): void =>
    whenReady(() => interrupted(kind, reason, flushed))
  const interrupted = (
    kind: 'abort' | 'discard' | 'fail',
    reason: string,
    flushed?: readonly IncomingToolUse[],
  ): void => {
    if (phase === 'over' || (kind === 'discard' && discarded)) return
    if (kind === 'discard') discarded = true
    log.append(
      kind === 'discard' ? { type: 'turn.discarded', turnId, reason } : { type: 'turn.aborted', turnId, reason },
    )
    if (phase === 'open') {
      if (flushed === undefined) {
        anthropic.close('aborted', reason)
        openai.close('aborted', reason)
        responses.close('aborted', reason)
      } else for (const use of flushed) add(use)
      phase = 'ended'
    }
    control.next({ type: 'abort', reason, force: kind !== 'abort' })
  }

  let signal: AbortSignal | undefined
  const onAbort = (): void => interrupt('abort', abortReason(signal as AbortSignal))

  const subscription = control
    .pipe(
      scheduleCalls({
        maxConcurrency: deps.maxConcurrency,
        legacyDispatch: deps.legacyDispatch === true,
        cascadeReason: (failed) =>
          `a parallel call (${failed.name} ${failed.toolUseId}) failed, so its siblings were stopped`,
        onCascade: (failed, siblings) =>
          log.append({ type: 'tool.cascaded', turnId, toolUseId: failed.toolUseId, siblings: [...siblings] }),
      }),
    )
    .subscribe({
      complete: () => {
        phase = 'over'
        signal?.removeEventListener('abort', onAbort)
        log.append({ type: 'turn.completed', turnId, results: ids.size })
        const settle = (): void => {
          const events = (settled = turnEvents())
          const message = toMessageParam(discarded ? { role: 'user', content: [] } : projectTurnMessage(events, turnId))
          const logError = deps.logFailure?.()
          resolveResult(
            logError === undefined ? { message, events, discarded } : { message, events, discarded, logError },
          )
        }
        // The result is returned once the turn is durable (a fence); a failed fence is its logError.
        if (log.fence === undefined) settle()
        else log.fence().then(settle, settle)
        subscription?.unsubscribe()
      },
    })

  // Kept once the turn settles: a log that retains only recent turns may drop them later.
  let settled: KernelEvent[] | undefined
  const turnEvents = (): KernelEvent[] =>
    settled ?? eventsFrom(log.read(), first).filter((event) => event.turnId === turnId)

  const updates$ = turnUpdates(log, {
    turnId,
    first,
    events: turnEvents,
    over: () => phase === 'over',
    discarded: () => discarded,
  })

  return {
    turnId,
    push: (event) => (phase === 'open' ? anthropic.push(event) : rejectLate(turnId, phase)),
    // `[DONE]` follows the chunk with finish_reason, which already ended the message.
    pushOpenAI: (chunk) =>
      phase === 'open' ? openai.push(chunk) : isTrailer(chunk) ? undefined : rejectLate(turnId, phase),
    pushOpenAIResponses: (event) => (phase === 'open' ? responses.push(event) : rejectLate(turnId, phase)),
    addToolUse: (block) => {
      if (phase !== 'open') rejectLate(turnId, phase)
      add(asIncoming(block, nextIndex))
    },
    end: (stopReason = 'tool_use') => finish(stopReason),
    fail: (error) => {
      if (phase === 'open') finish('error', `the stream failed: ${failureText(error)}`)
    },
    addIncoming: (use) => (phase === 'open' ? add(use) : rejectLate(turnId, phase)),
    attach: (watched) => {
      signal = watched
      if (watched?.aborted === true) onAbort()
      else watched?.addEventListener('abort', onAbort, { once: true })
    },
    discard: (reason = 'the stream fell back; the model will issue its calls again') => interrupt('discard', reason),
    interrupt,
    updates: () => toAsyncIterable(updates$),
    result: () => result,
  }
}

/** The scheduler's view of one call: how it starts (dispatched, as an actor) or is voided. */
function scheduledCall(
  deps: TurnDeps,
  budget: TurnBudget,
  use: IncomingToolUse,
  flags: { safe: boolean; early: boolean; cascades: boolean },
  validated: CallRequest['validated'],
): ScheduledCall {
  const { turnId, log, services } = deps
  const request: CallRequest = { turnId, toolUseId: use.id, index: use.index, name: use.name, input: use.input, budget }
  if (use.inputError !== undefined) request.inputError = use.inputError
  if (validated !== undefined) request.validated = validated
  return {
    toolUseId: use.id,
    name: use.name,
    ...flags,
    start: ({ batch, running }) => {
      log.append({ type: 'tool.dispatched', turnId, toolUseId: use.id, batch, running })
      return startToolCall(deps.machine, services, request)
    },
    // A call whose input never arrived whole says so, rather than why it was not started:
    // it could not run either way.
    void: (reason) =>
      startToolCall(
        deps.machine,
        services,
        use.inputError !== undefined
          ? request
          : { ...request, voided: { step: 'parse', code: 'cancelled', message: reason } },
      ),
  }
}

/**
 * The events from seq `first` on. Seqs grow along the log but need not equal the index: a history
 * with gaps, or a log that keeps only recent turns (`retainTurns`), holds fewer events than seqs.
 */
function eventsFrom(events: readonly KernelEvent[], first: number): KernelEvent[] {
  if (events[first]?.seq === first) return events.slice(first)
  let low = 0
  let high = Math.min(events.length, first + 1)
  while (low < high) {
    const mid = (low + high) >>> 1
    if ((events[mid]?.seq ?? first) < first) low = mid + 1
    else high = mid
  }
  return events.slice(low)
}

/**
 * A turn's updates: its events so far and then live ones, joined in one synchronous step at
 * subscription so none is missed or repeated; results of a discarded turn are left out.
 */
function turnUpdates(
  log: EventLog,
  turn: {
    turnId: string
    first: number
    events: () => KernelEvent[]
    over: () => boolean
    discarded: () => boolean
  },
): Observable<TurnUpdate> {
  return new Observable<KernelEvent>((subscriber) => {
    const history = turn.events()
    for (const event of history) subscriber.next(event)
    if (turn.over()) {
      subscriber.complete()
      return undefined
    }
    const last = history.at(-1)?.seq ?? turn.first - 1
    const live = log.events$.subscribe({
      next: (event) => {
        if (event.turnId !== turn.turnId || event.seq <= last) return
        subscriber.next(event)
        if (event.type === 'turn.completed') subscriber.complete()
      },
      // A failing feed must reach the consumer, not hang its `for await`.
      error: (error: unknown) => subscriber.error(error),
    })
    return () => live.unsubscribe()
  }).pipe(
    filter((event) => !(turn.discarded() && event.type === 'tool.result')),
    map(updateOf),
    filter((update): update is TurnUpdate => update !== undefined),
  )
}

function asIncoming(block: { id: string; name: string; input: unknown }, index: number): IncomingToolUse {
  assertDirected(block, 'turn.addToolUse')
  const type = (block as { type?: unknown } | null)?.type
  if (type !== undefined && type !== 'tool_use')
    throw new TypeError(`addToolUse expects a tool_use block, got a block of type ${JSON.stringify(type)}`)
  if (
    typeof block !== 'object' ||
    block === null ||
    typeof block.id !== 'string' ||
    block.id === '' ||
    typeof block.name !== 'string'
  ) {
    throw new TypeError('addToolUse expects { id: non-empty string, name: string, input }')
  }
  return { id: block.id, name: block.name, input: block.input, index }
}

/** What the app's caught error says, for the voided calls' results. */
function failureText(error: unknown): string {
  if (error instanceof Error) return error.message === '' ? error.name : `${error.name}: ${error.message}`
  return typeof error === 'string' ? error : 'an error the app did not describe'
}

function rejectLate(turnId: string, phase: 'ended' | 'over' | 'open'): never {
  throw new TypeError(
    `turn ${turnId} has ${phase === 'over' ? 'finished' : 'ended'}; it takes no more stream events or tool calls`,
  )
}

/**
 * Why calls not yet started were voided. From the stop reason alone, never the error's detail:
 * `turn.ended` records only the stop reason, and replay must decide the same text from the log.
 * (The detail reaches the model in the results of calls the failure cut off.)
 */
function voidReasonOf(stopReason: string | null): string {
  if (stopReason === 'error')
    return "the model's stream failed before the message ended, so calls not yet started were not run"
  return stopReason === null
    ? 'the message ended without a stop reason, so calls not yet started were not run'
    : `the message ended with stop reason "${stopReason}" instead of tool use, so calls not yet started were not run`
}

/**
 * What an OpenAI stream sends after the chunk that ended the message: `[DONE]`, and with
 * `stream_options.include_usage` a chunk with no choices and the usage. Not late calls.
 */
function isTrailer(chunk: unknown): boolean {
  if (chunk === '[DONE]') return true
  const choices = (chunk as { choices?: unknown } | null)?.choices
  return Array.isArray(choices) && choices.length === 0
}

export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason
  if (typeof reason === 'string' && reason !== '') return reason
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message !== '') return reason.message
  return 'the user interrupted the turn'
}
