/**
 * `runLoop`: the provider loop every app writes — ask the model, run its tool calls as one
 * kernel turn, append both messages, stop when the model is done, cap the steps — once, for the
 * three APIs the kernel speaks (decision 117).
 */
import type { Kernel } from '../kernel.js'
import type { Turn, TurnResult } from '../actors/turn/turn.types.js'
import { toolUsesOf } from '../intake/assistant-message.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'
import type { LoopModel } from './providers.js'
import type { PendingApproval } from '../projections/approvals.projection.js'

/** Steps a loop takes at most unless `maxSteps` says otherwise. */
export const DEFAULT_MAX_STEPS = 20

/**
 * A call parked waiting for a person (docs/approvals.md): its result is not in the message yet;
 * `kernel.answer` each, then send the turn's message.
 */
export type LoopPendingCall = PendingApproval

/** One model request and, when the model called tools, the kernel turn that answered them. */
export interface LoopStep<M, R> {
  /** 0 for the first request. */
  readonly index: number
  /** The model's response, as the SDK returned it (the stream's final response when streaming). */
  readonly response: R
  /** The kernel's turn; absent when the model called no tool. */
  readonly turn?: TurnResult
  /** What this step appended to the conversation: the model's turn, then the tool results. */
  readonly messages: readonly M[]
}

/** Why the loop stopped. */
export type LoopStop =
  /** The model answered without calling a tool (or its turn ended another way: `max_tokens`, `length`). */
  | 'done'
  /** `stopWhen` said so after a step. */
  | 'stopWhen'
  /** `maxSteps` requests were made and the model still called tools; the conversation ends with their results. */
  | 'maxSteps'
  /** Calls wait for a person's approval: the last turn's results are not in `messages` (see `pending`). */
  | 'pending'
  /** `signal` was aborted: `messages` holds every step that finished; calls stopped are answered as interrupted. */
  | 'aborted'

export interface LoopOptions<M, R> {
  /** The model: `anthropic(client, params)`, `openaiChat(client, params)`, `openaiResponses(client, params)`. */
  model: LoopModel<M, R>
  /** The kernel that runs the tool calls; each step sends its `apiTools` (read again every step). */
  kernel: Kernel
  /** The conversation so far, in the SDK's own message type. Not modified: the result has the new one. */
  messages: readonly M[]
  /** Stream each response, feeding the turn as events arrive (safe calls start early). Default false. */
  stream?: boolean
  /** Asked after every step that ran tools; true stops the loop with `stopped: 'stopWhen'`. */
  stopWhen?: (step: LoopStep<M, R>) => boolean | Promise<boolean>
  /** Most model requests. Default 20. */
  maxSteps?: number
  /** Stops the loop: the request in flight is cancelled and running calls are interrupted. */
  signal?: AbortSignal
  /** Called after each step, before the next request. */
  onStep?: (step: LoopStep<M, R>) => void | Promise<void>
}

export interface LoopResult<M, R> {
  /** The whole conversation: the `messages` given, then every step's. Send it as it is to continue. */
  messages: M[]
  steps: Array<LoopStep<M, R>>
  stopped: LoopStop
  /** The calls waiting for approval when `stopped` is 'pending'; empty otherwise. */
  pending: LoopPendingCall[]
  /** The last step's turn result when `stopped` is 'pending' (its message goes out once the calls are decided). */
  held?: TurnResult
}

const LOOP_OPTIONS = optionNames<LoopOptions<unknown, unknown>>()(
  'model',
  'kernel',
  'messages',
  'stream',
  'stopWhen',
  'maxSteps',
  'signal',
  'onStep',
)

/**
 * Runs the model and the kernel in turn until the model stops calling tools, `stopWhen` or
 * `maxSteps` stops it, calls wait for approval, or `signal` aborts. Rejects with the SDK's error
 * when a request fails (a stream that fails mid-way first has its turn answered: `turn.fail`).
 *
 * @example
 * const { messages, stopped } = await runLoop({
 *   model: anthropic(new Anthropic(), { model: 'claude-sonnet-4-5', max_tokens: 4096 }),
 *   kernel,
 *   messages: [{ role: 'user', content: 'Fix the failing test.' }],
 * })
 */
export async function runLoop<M, R>(options: LoopOptions<M, R>): Promise<LoopResult<M, R>> {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('runLoop: takes one options object { model, kernel, messages, … }')
  checkOptionsObject('runLoop', options, LOOP_OPTIONS)
  const { model, kernel, stopWhen, onStep, signal } = options
  if (typeof model?.create !== 'function')
    throw new TypeError('runLoop: `model` is required: anthropic(client, params), openaiChat(…) or openaiResponses(…)')
  if (typeof kernel?.runTurn !== 'function') throw new TypeError('runLoop: `kernel` is required (createKernel(…))')
  if (!Array.isArray(options.messages)) throw new TypeError('runLoop: `messages` must be an array (the conversation)')
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    throw new RangeError(`runLoop: maxSteps must be a positive integer, got ${String(maxSteps)}`)
  const messages: M[] = [...options.messages]
  const steps: Array<LoopStep<M, R>> = []
  const done = (stopped: LoopStop, extra: Partial<LoopResult<M, R>> = {}): LoopResult<M, R> => ({
    messages,
    steps,
    stopped,
    pending: [],
    ...extra,
  })

  for (let index = 0; index < maxSteps; index++) {
    if (aborted(signal)) return done('aborted')
    const asked = await ask(options, messages)
    if (asked === 'aborted') return done('aborted')
    const { response, turn } = asked
    const added = model.assistant(response)
    const pending = turn?.pending ?? []
    if (turn !== undefined && pending.length > 0) {
      // The model's turn is in the conversation; its results go out once a person has decided.
      messages.push(...added)
      steps.push({ index, response, turn, messages: added })
      return done('pending', { pending, held: turn })
    }
    const results = turn !== undefined && turn.message.content.length > 0 ? model.results(turn.message) : []
    const appended = [...added, ...results]
    messages.push(...appended)
    const step: LoopStep<M, R> =
      turn === undefined ? { index, response, messages: appended } : { index, response, turn, messages: appended }
    steps.push(step)
    await onStep?.(step)
    if (aborted(signal)) return done('aborted')
    if (turn === undefined || !wantsTools(response)) return done('done')
    if ((await stopWhen?.(step)) === true) return done('stopWhen')
  }
  return done('maxSteps')
}

/** Whether the model's turn ended in tool use (a `max_tokens` stop with calls ends the loop). */
function wantsTools(response: unknown): boolean {
  const { uses, stopReason } = toolUsesOf(response)
  return uses.length > 0 && (stopReason === null || stopReason === 'tool_use')
}

/** One request, and the kernel turn over its calls: streamed (fed as it arrives) or whole. */
async function ask<M, R>(
  options: LoopOptions<M, R>,
  messages: readonly M[],
): Promise<{ response: R; turn?: TurnResult } | 'aborted'> {
  const { model, kernel, signal } = options
  // Descriptions that are async, or read a mode or cwd the last turn changed, are resolved first
  // (docs/decisions/tools.md #153); with sync ones this waits for nothing.
  await kernel.ready()
  const tools = kernel.apiTools({ format: model.format })
  const request = signal === undefined ? {} : { signal }
  if (options.stream !== true) {
    let response: R
    try {
      response = await model.create(messages, tools, request)
    } catch (error) {
      if (aborted(signal)) return 'aborted'
      throw error
    }
    if (toolUsesOf(response).uses.length === 0) return { response }
    return { response, turn: await kernel.runTurn(response as Parameters<Kernel['runTurn']>[0], request) }
  }
  const turn: Turn = kernel.startTurn(request)
  let response: R
  try {
    response = await model.stream(messages, tools, request, (event) => model.feed(turn, event))
  } catch (error) {
    // The calls already started finish and are answered; the message never reaches `messages`.
    turn.fail(error)
    await turn.result()
    if (aborted(signal)) return 'aborted'
    throw error
  }
  const result = await turn.result()
  return toolUsesOf(response).uses.length === 0 ? { response } : { response, turn: result }
}

/** Read through a call: an await may have aborted the signal since the last check. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true
}
