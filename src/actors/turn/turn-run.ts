/**
 * The life of one turn: it takes tool calls (from the stream intakes or the app), logs and
 * classifies each and hands it to the scheduler; it ends (a stop reason), is interrupted (an
 * abort, a discard, a failed log) and completes when the scheduler has every call's result.
 * turn.ts wraps it in the public `Turn` handle.
 */
import { Subject, type Subscription } from 'rxjs'
import type { EventOf, KernelEvent } from '../../events/event.schema.js'
import { AnthropicStreamIntake } from '../../intake/anthropic-stream.js'
import type { IncomingToolUse, IntakeSink } from '../../intake/incoming.js'
import { jsonProblem } from '../../intake/json-bounds.js'
import { OpenAIStreamIntake } from '../../intake/openai.js'
import { OpenAIResponsesStreamIntake } from '../../intake/openai-responses.js'
import { toMessageParam } from '../../intake/message-param.js'
import { projectTurnMessage } from '../../projections/messages.projection.js'
import { pendingApprovals, withChildTurns } from '../../projections/approvals.projection.js'
import type { CallState } from '../../events/tool-call.steps.js'
import type { EventLog } from '../../ports/index.js'
import type { CallServices, TurnBelow } from '../tool-call/call-scope.js'
import {
  startToolCall,
  type CallHandle,
  type CallRequest,
  type ProvidedToolCallMachine,
} from '../tool-call/tool-call.actor.js'
import type { ToolCallEvent } from '../../machines/tool-call.types.js'
import type { TurnBudget } from './budget.js'
import { BudgetGroups } from './budget-groups.js'

import { classifySafety } from './safety.js'
import { scheduleCalls, type ScheduledCall, type SchedulerInput } from './scheduler.js'
import type { EarlyStart, TurnResult } from './turn.types.js'

/** The turn's budget, with its groups as the turn run drives them. */
type GroupedBudget = TurnBudget & { readonly groups?: BudgetGroups }

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
  /** Claim each result as it arrives, none waiting for another (replay of a log from before budget.decided). */
  budgetByArrival?: boolean
  /** The permission configuration in force (recorded in turn.started for replay). */
  permissions: { mode: string; allow: string[]; ask: string[]; deny: string[] }
  /** Why the log stopped taking events, if it has. */
  logFailure?: () => string | undefined
  /** Settles when what decisions depend on is loaded (the shell grammar); absent when it is. */
  ready?: Promise<void> | undefined
  /** A child turn (docs/subagents.md): recorded in its turn.started. */
  child?: EventOf<'turn.started'>['child']
  /** A child turn tells the call it runs under when it parks, moves on, and is over. */
  parentCall?: TurnBelow
}

export interface TurnConfig {
  mode: 'batch' | 'stream'
  earlyStart: EarlyStart
}

export type InterruptKind = 'abort' | 'discard' | 'fail'

/** A parked turn read back from the log, to go on (docs/approvals.md). */
export interface ResumedTurn {
  /** Seq of the turn's `turn.started`. */
  readonly first: number
  /** Every call of the turn (its id and index), for the result's count and late-call checks. */
  readonly ids: readonly string[]
  /** The calls without a result, in tool_use order, each with its state folded from the log. */
  readonly calls: ReadonlyArray<{ use: IncomingToolUse; from: CallState; dispatched: boolean }>
  /** What the turn's results put into its message so far. */
  readonly used: number
}

/** A person's answer to a parked call, as the call appends it. */
export type AnswerEvent = Extract<ToolCallEvent, { type: 'answer' }>['event']

export class TurnRun {
  readonly turnId: string
  /** Seq of the turn's `turn.started`: its events are at or after it. */
  readonly first: number
  phase: 'open' | 'ended' | 'over' = 'open'
  discarded = false
  /** The highest index given so far, plus one: where a block the app adds goes. */
  nextIndex = 0
  /** The turn settled with calls parked, and no answer has moved it on since. */
  parked = false
  readonly anthropic: AnthropicStreamIntake
  readonly openai: OpenAIStreamIntake
  readonly responses: OpenAIResponsesStreamIntake

  readonly #deps: TurnDeps
  readonly #config: TurnConfig
  readonly #control = new Subject<SchedulerInput>()
  readonly #ids = new Set<string>()
  readonly #budget: GroupedBudget
  /** The turn's result: settles when it is over, or parked (then a new one once it is answered). */
  #result!: Promise<TurnResult>
  #resolveResult!: (result: TurnResult) => void
  /** The turn's result once it is over (no call pending): what a child session waits for. */
  readonly final: Promise<TurnResult>
  #resolveFinal!: (result: TurnResult) => void
  /** Each started call's handle, for answers to parked calls. */
  readonly #handles = new Map<string, CallHandle>()
  /** Until what decisions depend on is loaded, calls, the end and interruptions wait here in order. */
  #waiting: Array<() => void> | undefined
  #signal: AbortSignal | undefined
  /** The turn's events, kept once it settles: a log that retains only recent turns may drop them. */
  #settled: KernelEvent[] | undefined
  readonly #subscription: Subscription

  constructor(deps: TurnDeps, config: TurnConfig, resumed?: ResumedTurn) {
    this.#deps = deps
    this.#config = config
    this.turnId = deps.turnId
    const budget: { limit: number; used: number; groups?: BudgetGroups } = {
      limit: deps.messageBudget,
      used: resumed?.used ?? 0,
    }
    if (deps.budgetByArrival !== true) budget.groups = new BudgetGroups(budget, deps.log, deps.turnId)
    this.#budget = budget
    this.first =
      resumed?.first ??
      deps.log.append({
        type: 'turn.started',
        turnId: deps.turnId,
        mode: config.mode,
        maxConcurrency: deps.maxConcurrency,
        earlyStart: config.earlyStart,
        cwd: deps.services.cwd,
        permissions: deps.permissions,
        ...(deps.child === undefined ? {} : { child: deps.child }),
      }).seq
    this.#reopen()
    this.final = new Promise<TurnResult>((resolve) => (this.#resolveFinal = resolve))
    if (deps.ready !== undefined) {
      this.#waiting = []
      void deps.ready.then(() => {
        const queued = this.#waiting ?? []
        this.#waiting = undefined
        for (const run of queued) run()
      })
    }
    const sink: IntakeSink = { toolUse: (use) => this.add(use), end: (reason, detail) => this.finish(reason, detail) }
    this.anthropic = new AnthropicStreamIntake(sink)
    this.openai = new OpenAIStreamIntake(sink)
    this.responses = new OpenAIResponsesStreamIntake(sink)
    this.#subscription = this.#control.pipe(scheduleCalls(this.#schedulerOptions())).subscribe({
      complete: () => this.#completed(),
    })
    if (resumed !== undefined) this.#whenReady(() => this.#resume(resumed))
  }

  get result(): Promise<TurnResult> {
    return this.#result
  }

  /**
   * Gives a parked call its answer (`permission.answered`, appended by the call) and returns the
   * turn's next result: once it is over, or parked again.
   * @throws Error when the call is not one of this turn's parked calls.
   */
  answer(toolUseId: string, event: AnswerEvent): Promise<TurnResult> {
    const handle = this.#handles.get(toolUseId)
    if (handle === undefined) throw new Error(`tool call ${toolUseId} is not a parked call of turn ${this.turnId}`)
    this.#wake(toolUseId)
    if (!handle.answer(event)) throw new Error(`tool call ${toolUseId} of turn ${this.turnId} is not parked`)
    return this.#result
  }

  /** A call of this parked turn moves on (answered here, or below it in a child turn): the turn goes on. */
  #wake(toolUseId: string): void {
    if (!this.parked) return
    this.parked = false
    this.#reopen()
    this.#deps.log.append({ type: 'turn.resumed', turnId: this.turnId, answered: toolUseId })
    this.#deps.parentCall?.park(false)
  }

  #reopen(): void {
    this.#result = new Promise<TurnResult>((resolve) => (this.#resolveResult = resolve))
  }

  /** Goes on with a parked turn read back from the log: its calls without a result, from their states. */
  #resume(resumed: ResumedTurn): void {
    for (const id of resumed.ids) this.#ids.add(id)
    this.phase = 'ended'
    for (const { use, from, dispatched } of resumed.calls) {
      this.nextIndex = Math.max(this.nextIndex, use.index + 1)
      this.#control.next({ type: 'call', call: this.#scheduled(use, { from, dispatched }) })
    }
    this.#control.next({ type: 'end' })
  }

  /** Takes a call; the app's bugs (a duplicate id, a late call) throw at once, even while waiting. */
  add(incoming: IncomingToolUse): void {
    if (this.phase === 'over') throw new TypeError(`turn ${this.turnId} is over; start a new turn for more tool calls`)
    if (this.#ids.has(incoming.id))
      throw new TypeError(`tool call id "${incoming.id}" appears twice in turn ${this.turnId}`)
    this.#ids.add(incoming.id)
    this.nextIndex = Math.max(this.nextIndex, incoming.index + 1)
    this.#whenReady(() => this.#request(incoming))
  }

  /** The message ended (`stopReason`), or its stream failed (`'error'` and the detail). */
  finish(stopReason: string | null, detail?: string): void {
    this.#whenReady(() => this.#ended(stopReason, detail))
  }

  /**
   * Aborts or discards the turn, or stops it because the log failed (`fail`: like an abort, but
   * 'block' calls stop too); `flushed` are the blocks the interruption cut off (replay gives them).
   */
  interrupt(kind: InterruptKind, reason: string, flushed?: readonly IncomingToolUse[]): void {
    this.#whenReady(() => this.#interrupted(kind, reason, flushed))
  }

  /** Watches the app's signal: an aborted one interrupts the turn. */
  attach(signal: AbortSignal | undefined): void {
    this.#signal = signal
    if (signal?.aborted === true) this.#onAbort()
    else signal?.addEventListener('abort', this.#onAbort, { once: true })
  }

  /** The turn's events so far (all of them once it has settled). */
  events(): KernelEvent[] {
    return this.#settled ?? eventsFrom(this.#deps.log.read(), this.first).filter((e) => e.turnId === this.turnId)
  }

  #whenReady(run: () => void): void {
    if (this.#waiting === undefined) run()
    else this.#waiting.push(run)
  }

  #request(incoming: IncomingToolUse): void {
    const { log } = this.#deps
    const turnId = this.turnId
    let use = incoming
    // What the log cannot serialise never reaches it: the call answers with the reason instead.
    const problem = use.inputError === undefined ? jsonProblem(use.input) : undefined
    if (problem !== undefined) use = { ...use, input: null, inputError: problem }
    const requested = { type: 'tool.requested' as const, turnId, toolUseId: use.id, index: use.index, name: use.name }
    log.append(
      use.inputError === undefined
        ? { ...requested, input: use.input }
        : { ...requested, input: use.input, inputError: use.inputError },
    )
    this.#control.next({ type: 'call', call: this.#scheduled(use) })
  }

  /**
   * Classifies a call (logged as `tool.queued` when it is new) and makes it the scheduler's; a
   * resumed call (`from`, its state read back from the log) goes on from where it stopped.
   */
  #scheduled(use: IncomingToolUse, resumed?: { from: CallState; dispatched: boolean }): ScheduledCall {
    const { log, services } = this.#deps
    const classified = classifySafety(services.registry, use.name, use.input, use.inputError, {
      shell: services.ports.shell,
    })
    if (resumed === undefined)
      log.append({ type: 'tool.queued', turnId: this.turnId, toolUseId: use.id, ...classified.safety })
    const { safe } = classified.safety
    const tool = classified.tool
    const earlyStart = this.#config.earlyStart
    // The preview runs the tool's checkPermissions a first time: only where it decides something.
    const decided = (): boolean => {
      const preview = tool !== undefined ? services.permissions.preview(tool, classified.input) : 'unknown'
      return preview === 'allow' || preview === 'deny'
    }
    const early = resumed === undefined && (earlyStart === 'all' || (earlyStart === 'safe' && safe && decided()))
    const cascades = tool?.cascadesOnFailure === true
    const validated = tool === undefined ? undefined : { tool, input: classified.input }
    return scheduledCall(this.#deps, this.#budget, use, { safe, early, cascades }, validated, {
      ...(resumed ?? { dispatched: false }),
      started: (handle) => void this.#handles.set(use.id, handle),
    })
  }

  #ended(stopReason: string | null, detail?: string): void {
    if (this.phase !== 'open') return
    this.#closeIntakes(stopReason, detail)
    this.phase = 'ended'
    this.#deps.log.append({ type: 'turn.ended', turnId: this.turnId, stopReason })
    if (stopReason === 'tool_use') this.#control.next({ type: 'end' })
    else this.#control.next({ type: 'end', voidReason: voidReasonOf(stopReason) })
  }

  /**
   * Abort (the app's signal) or discard. Blocks still streaming were cut off: they are handed on
   * (and voided) so they get results too — from the intakes, or as given (replay supplies them).
   */
  #interrupted(kind: InterruptKind, reason: string, flushed?: readonly IncomingToolUse[]): void {
    if (this.phase === 'over' || (kind === 'discard' && this.discarded)) return
    if (kind === 'discard') this.discarded = true
    const turnId = this.turnId
    this.#deps.log.append(
      kind === 'discard' ? { type: 'turn.discarded', turnId, reason } : { type: 'turn.aborted', turnId, reason },
    )
    if (this.phase === 'open') {
      if (flushed === undefined) this.#closeIntakes('aborted', reason)
      else for (const use of flushed) this.add(use)
      this.phase = 'ended'
    }
    this.#control.next({ type: 'abort', reason, force: kind !== 'abort' })
  }

  #closeIntakes(stopReason: string | null, detail?: string): void {
    this.anthropic.close(stopReason, detail)
    this.openai.close(stopReason, detail)
    this.responses.close(stopReason, detail)
  }

  readonly #onAbort = (): void => this.interrupt('abort', abortReason(this.#signal as AbortSignal))

  #schedulerOptions(): Parameters<typeof scheduleCalls>[0] {
    const { log, turnId } = this.#deps
    return {
      maxConcurrency: this.#deps.maxConcurrency,
      legacyDispatch: this.#deps.legacyDispatch === true,
      cascadeReason: (failed) =>
        `a parallel call (${failed.name} ${failed.toolUseId}) failed, so its siblings were stopped`,
      onCascade: (failed, siblings) =>
        log.append({ type: 'tool.cascaded', turnId, toolUseId: failed.toolUseId, siblings: [...siblings] }),
      onParked: (pending, waiting) => this.#parkedNow(pending, waiting),
      onResumed: (toolUseId) => this.#wake(toolUseId),
    }
  }

  /**
   * Everything that could finish has; the rest wait for a person (`pending`) or behind them
   * (`waiting`). The turn settles parked: its result lists the pending calls, and the process is
   * free to exit — the log holds all it takes to go on.
   */
  #parkedNow(pending: readonly string[], waiting: readonly string[]): void {
    const { log } = this.#deps
    const order = new Map(this.events().flatMap((e) => (e.type === 'tool.requested' ? [[e.toolUseId, e.index]] : [])))
    const byIndex = (a: string, b: string): number => (order.get(a) ?? 0) - (order.get(b) ?? 0)
    this.parked = true
    log.append({ type: 'turn.parked', turnId: this.turnId, pending: [...pending].sort(byIndex), waiting: [...waiting] })
    this.#deps.parentCall?.park(true)
    const settle = (): void => this.#settle()
    if (log.fence === undefined) settle()
    else log.fence().then(settle, settle)
  }

  /** Every call has its result: the turn is over, and its result is returned once it is durable. */
  #completed(): void {
    const { log } = this.#deps
    this.phase = 'over'
    this.#signal?.removeEventListener('abort', this.#onAbort)
    log.append({ type: 'turn.completed', turnId: this.turnId, results: this.#ids.size })
    // After its turn.completed: the parent call may park again now, and its turn settle.
    this.#deps.parentCall?.over()
    const settle = (): void => this.#settle()
    // A failed fence is the result's logError (logFailure says why).
    if (log.fence === undefined) settle()
    else log.fence().then(settle, settle)
    // Undefined only if the scheduler completed while being subscribed to, which it never does.
    ;(this.#subscription as Subscription | undefined)?.unsubscribe()
  }

  #settle(): void {
    const over = this.phase === 'over'
    const events = over ? (this.#settled = this.events()) : this.events()
    const content = this.discarded ? { role: 'user' as const, content: [] } : projectTurnMessage(events, this.turnId)
    const message = toMessageParam(content)
    const logError = this.#deps.logFailure?.()
    const discarded = this.discarded
    // Parked: its own calls waiting for a person, and those of child turns under its calls.
    const pending = over
      ? []
      : pendingApprovals(withChildTurns(eventsFrom(this.#deps.log.read(), this.first), this.turnId))
    const result: TurnResult =
      logError === undefined
        ? { message, events, discarded, pending }
        : { message, events, discarded, pending, logError }
    this.#resolveResult(result)
    if (over) this.#resolveFinal(result)
  }
}

/** The scheduler's view of one call: how it starts (dispatched, as an actor) or is voided. */
function scheduledCall(
  deps: TurnDeps,
  budget: GroupedBudget,
  use: IncomingToolUse,
  flags: { safe: boolean; early: boolean; cascades: boolean },
  validated: CallRequest['validated'],
  how: { from?: CallState; dispatched: boolean; started: (handle: CallHandle) => void },
): ScheduledCall {
  const { turnId, log, services } = deps
  const request: CallRequest = { turnId, toolUseId: use.id, index: use.index, name: use.name, input: use.input, budget }
  if (use.inputError !== undefined) request.inputError = use.inputError
  if (validated !== undefined) request.validated = validated
  if (how.from !== undefined) request.from = how.from
  if (flags.safe) request.safe = true
  return {
    toolUseId: use.id,
    name: use.name,
    ...flags,
    start: ({ batch, running }) => {
      // A call that goes on after its turn was parked was dispatched before: not twice.
      if (!how.dispatched) log.append({ type: 'tool.dispatched', turnId, toolUseId: use.id, batch, running })
      const handle = startToolCall(deps.machine, services, request)
      how.started(handle)
      return grouped(handle, use.id, budget.groups)
    },
    // A call whose input never arrived whole says so, rather than why it was not started:
    // it could not run either way.
    void: (reason) =>
      startToolCall(deps.machine, services, use.inputError !== undefined ? request : { ...request, voided: reason }),
  }
}

/**
 * The handle the scheduler gets, telling the turn's budget groups when the call parks below it and
 * when its actor ends — before the scheduler hears of it and starts another call.
 */
function grouped(handle: CallHandle, toolUseId: string, groups: BudgetGroups | undefined): CallHandle {
  if (groups === undefined) return handle
  handle.onParked((parked) => groups.parked(toolUseId, parked))
  return {
    ...handle,
    onDone: (listener) =>
      handle.onDone((outcome) => {
        groups.ended(toolUseId)
        listener(outcome)
      }),
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

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason
  if (typeof reason === 'string' && reason !== '') return reason
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message !== '') return reason.message
  return 'the user interrupted the turn'
}
