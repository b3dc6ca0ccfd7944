/**
 * A turn: the tool calls of one assistant message, whole or streamed. Stream intake (Anthropic
 * events, OpenAI chunks, or blocks the app assembled) feeds the scheduler's control stream;
 * each call runs as a tool-call actor; the turn's result and updates are projections of its
 * events in the log. Batch `runTurn` is a turn whose blocks all arrive before its end. The
 * turn's life is a `TurnRun` (turn-run.ts); this file is its public handle.
 */
import { filter, map, Observable } from 'rxjs'
import type { KernelEvent } from '../../events/event.schema.js'
import type { IncomingToolUse } from '../../intake/incoming.js'
import { assertDirected } from '../../intake/misdirected.js'
import { namedUpdates, type TurnUpdate } from '../../projections/updates.projection.js'
import type { EventLog } from '../../ports/index.js'
import { toAsyncIterable } from '../../util/async-iterable.js'
import {
  TurnRun,
  type AnswerEvent,
  type InterruptKind,
  type ResumedTurn,
  type TurnConfig,
  type TurnDeps,
} from './turn-run.js'
import type { Turn, TurnResult } from './turn.types.js'

export type { EarlyStart, PendingApproval, Turn, TurnResult } from './turn.types.js'
export type { TurnConfig, TurnDeps } from './turn-run.js'

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
  interrupt(kind: InterruptKind, reason: string, flushed?: readonly IncomingToolUse[]): void
  /** Gives a parked call of this turn its answer; resolves with the turn's next result. */
  answer(toolUseId: string, event: AnswerEvent): Promise<TurnResult>
  /** The turn's result once it is over: after every answer it waits for (a child session waits here). */
  final(): Promise<TurnResult>
}

/**
 * Starts a turn (its `turn.started` is appended now) and returns its handle; with `resumed`, goes
 * on with a parked turn read back from the log instead.
 */
export function startTurn(deps: TurnDeps, config: TurnConfig, resumed?: ResumedTurn): TurnControl {
  const run = new TurnRun(deps, config, resumed)
  const { turnId } = run
  const updates$ = turnUpdates(deps.log, {
    turnId,
    first: run.first,
    events: () => run.events(),
    over: () => run.phase === 'over' || run.parked,
    discarded: () => run.discarded,
  })
  const open = (): boolean => run.phase === 'open'
  return {
    turnId,
    push: (event) => (open() ? run.anthropic.push(event) : rejectLate(turnId, run.phase)),
    // `[DONE]` follows the chunk with finish_reason, which already ended the message.
    pushOpenAI: (chunk) =>
      open() ? run.openai.push(chunk) : isTrailer(chunk) ? undefined : rejectLate(turnId, run.phase),
    pushOpenAIResponses: (event) => (open() ? run.responses.push(event) : rejectLate(turnId, run.phase)),
    addToolUse: (block) => {
      if (!open()) rejectLate(turnId, run.phase)
      run.add(asIncoming(block, run.nextIndex))
    },
    end: (stopReason = 'tool_use') => run.finish(stopReason),
    fail: (error) => {
      if (open()) run.finish('error', `the stream failed: ${failureText(error)}`)
    },
    addIncoming: (use) => (open() ? run.add(use) : rejectLate(turnId, run.phase)),
    attach: (signal) => run.attach(signal),
    discard: (reason = 'the stream fell back; the model will issue its calls again') =>
      run.interrupt('discard', reason),
    interrupt: (kind, reason, flushed) => run.interrupt(kind, reason, flushed),
    answer: (toolUseId, event) => run.answer(toolUseId, event),
    updates: () => toAsyncIterable(updates$),
    result: () => run.result,
    final: () => run.final,
  }
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
        if (event.type === 'turn.completed' || event.type === 'turn.parked') subscriber.complete()
      },
      // A failing feed must reach the consumer, not hang its `for await`.
      error: (error: unknown) => subscriber.error(error),
    })
    return () => live.unsubscribe()
  }).pipe(
    filter((event) => !(turn.discarded() && event.type === 'tool.result')),
    map(namedUpdates()),
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
 * What an OpenAI stream sends after the chunk that ended the message: `[DONE]`, and with
 * `stream_options.include_usage` a chunk with no choices and the usage. Not late calls.
 */
function isTrailer(chunk: unknown): boolean {
  if (chunk === '[DONE]') return true
  const choices = (chunk as { choices?: unknown } | null)?.choices
  return Array.isArray(choices) && choices.length === 0
}
