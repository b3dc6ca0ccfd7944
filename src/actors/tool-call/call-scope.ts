/**
 * What a running call has besides its state: the kernel's services, its ids, and the I/O it is
 * doing — the abort controller, the progress feed, whether its tool has been invoked. None of it
 * is the call's state (that is the fold of its events, the machine's context); it is what a step
 * needs to act, and what an interrupted result shows of the progress.
 */
import type { KernelEventInput, ToolResultBlock } from '../../events/event.schema.js'
import type { CallState } from '../../events/tool-call.steps.js'
import type { Carry } from '../../machines/tool-call.types.js'
import type { EventLog, ResultStore, ToolPorts } from '../../ports/index.js'
import type { TurnBudget } from '../turn/budget.js'
import type { ToolRegistry } from '../../tools/tool-registry.js'
import type { Tool, ToolContext } from '../../tools/tool.types.js'
import type { ChildOptions, ChildSession } from '../../tools/child.types.js'
import type { HookRunner } from '../../hooks/hook-runner.js'
import type { PermissionPolicy } from '../../permissions/policy.js'
import { isThenable } from '../../util/is-thenable.js'
import type { CallTiming } from './call-timing.js'
import type { SessionContext } from '../turn/session-context.js'

/** Per-kernel services the steps use. */
export interface CallServices {
  readonly registry: ToolRegistry
  /** Names of the tools the model is offered (none denied outright), for unknown-tool texts. */
  readonly offeredTools: readonly string[]
  readonly log: EventLog
  readonly cwd: string
  readonly ports: ToolPorts
  readonly hooks: HookRunner
  readonly permissions: PermissionPolicy
  readonly results: ResultStore
  /** Text progress a call may put into the log (replay: Infinity, the log already bounded it). */
  readonly progressLogChars: number
  /** Called for each progress report, after it is logged (the streaming `updates()` feed). */
  readonly onProgress?: (turnId: string, toolUseId: string, data: unknown) => void
  /** Deadlines and retry backoffs (absent: no kernel deadline, the clock port's timers). */
  readonly timing?: CallTiming
  /** The session's context (cwd, env, data, mode) as it changes (docs/session-context.md). */
  readonly session?: SessionContext
  /** Opens child sessions under a running call (`context.runChild`, docs/subagents.md). */
  readonly children?: ChildRunner
}

/** The running call a child session opens under. */
export interface ChildCall {
  readonly turnId: string
  readonly toolUseId: string
  /** The tool the parent call runs. */
  readonly toolName: string | undefined
  /** The call's signal: its interruption stops the child's turns. */
  readonly signal: AbortSignal
  /** Counts a child turn opened under the call, which then tells the call how it goes. */
  opened(): TurnBelow
  /** The call has its result: its child session takes no more turns. */
  ended(): boolean
}

/** What a child turn tells the call it runs under: that it parks, moves on, is over. */
export interface TurnBelow {
  park(parked: boolean): void
  over(): void
}

/** What `context.runChild` runs on: the kernel's (composition root, child-scope.ts). */
export interface ChildRunner {
  open(call: ChildCall, options: ChildOptions | undefined): ChildSession
}

/** The I/O of one call: owned by its steps, never read to decide what the call is. */
export interface CallIO {
  /** Created on first use: most calls never look at their signal. */
  controller: AbortController | undefined
  toolContext: ToolContext | undefined
  /** The tail of the call's progress as text (what an interrupted result shows), bounded. */
  partial: string
  partialCut: boolean
  /** Progress events logged for this call so far (see PROGRESS_LOG_EVENTS). */
  progressEvents: number
  /** Characters of text progress logged so far (see PROGRESS_LOG_CHARS). */
  progressLogged: number
  /** The tool has been invoked (it passed its write-ahead fence). */
  invoked: boolean
  /** An interruption that came while the call waited at its fence: its tool never runs. */
  abortRequested: string | undefined
  /** The call's result is in the log: a tool still going reports to no one. */
  answered: boolean
  /** Counts the waits a step began: an answer to a wait the call has left is dropped. */
  wait: number
  /** Waiting out a retry's backoff: nothing runs, so an interruption ends the call at once. */
  backoff: boolean
  /** The call ran out of time: a tool still going reports to no one. */
  timedOut: boolean
  /**
   * The tool returned and its result waits for its siblings' (the budget's groups): what the call
   * decides if interrupted now — its result, claimed at once, for it is at hand.
   */
  heldResult?: (() => Decided) | undefined
  /** Set by the actor: tells the call's turn it waits for a person in a child session, or no longer. */
  nestedPark?: (parked: boolean) => void
}

/** One call: what the kernel started it with. */
export interface CallScope {
  readonly services: CallServices
  readonly turnId: string
  readonly toolUseId: string
  readonly index: number
  /** The tool the model named (what a child session leaves out of its tools by default). */
  readonly name?: string
  /** The turn's message budget, shared by its calls. */
  readonly budget: TurnBudget
  /** Set when the scheduler voids the call before it starts: why (its `tool.cancelled` reason). */
  readonly voided: string | undefined
  /** Set by stream intake when the input JSON did not parse. */
  readonly inputError: string | undefined
  /** The tool and validated input the turn's safety check found, so the schema runs once. */
  readonly validated: { tool: Tool; input: unknown } | undefined
  /** The call was queued as concurrency-safe: a context change it returns is not applied. */
  readonly safe?: boolean
  readonly io: CallIO
}

/** What a step decided: the events for the log, and what it hands the next step. */
export interface Decided {
  readonly events: readonly KernelEventInput[]
  readonly carry?: Carry
}

/** A step answers at once, or once what it waits for (a hook, a prompt, the tool) has answered. */
export type StepAnswer = Decided | PromiseLike<Decided>

/** One of the nine steps: from the call's state and what the previous step handed on, its decision. */
export type StepFn = (call: CallScope, state: CallState, carry: Carry) => StepAnswer

/** The call's ids, for the events a step decides. */
export function idsOf(call: CallScope): { turnId: string; toolUseId: string } {
  return { turnId: call.turnId, toolUseId: call.toolUseId }
}

/** The tool parse resolved; a step after parse without one is a bug in the machine. */
export function toolOf(call: CallScope, state: CallState): Tool {
  const tool = call.services.registry.find(state.name)
  if (tool === undefined) throw new Error(`tool call ${call.toolUseId}: a step after parse ran without a resolved tool`)
  return tool
}

export function newCallIO(): CallIO {
  return {
    controller: undefined,
    toolContext: undefined,
    partial: '',
    partialCut: false,
    progressEvents: 0,
    progressLogged: 0,
    invoked: false,
    abortRequested: undefined,
    answered: false,
    wait: 0,
    backoff: false,
    timedOut: false,
  }
}

/**
 * Runs a step's work, which may answer synchronously or with a promise, and turns its answer (or
 * its throw) into the step's decision — synchronously when the work answered synchronously.
 * Never throws for the work; a throw in `onValue` becomes `onError`'s decision too.
 */
export function attempt<T>(
  work: () => T | PromiseLike<T>,
  onValue: (value: T) => Decided,
  onError: (error: unknown) => Decided,
): StepAnswer {
  let result: T | PromiseLike<T>
  try {
    result = work()
  } catch (error) {
    return onError(error)
  }
  if (!isThenable(result)) return safely(onValue, result, onError)
  return Promise.resolve(result).then(
    (value) => safely(onValue, value, onError),
    (error: unknown) => onError(error),
  )
}

function safely<T>(onValue: (value: T) => Decided, value: T, onError: (error: unknown) => Decided): Decided {
  try {
    return onValue(value)
  } catch (error) {
    return onError(error)
  }
}

/** Text progress a call may put into the log; past it, the log notes only how much was left out. */
export const PROGRESS_LOG_CHARS = 32_000
/** Progress events one call may put into the log; past it, one note, then nothing more. */
export const PROGRESS_LOG_EVENTS = 1_000
/** Most of a call's progress kept in memory for an interrupted result (its tail: errors sit at the end). */
export const PARTIAL_TAIL_CHARS = 10_000

/**
 * Progress as the log keeps it. A command streaming megabytes must not copy them into the log
 * (the budget step keeps big output in the result store): text beyond the call's allowance is
 * replaced by a note of its size. The call itself keeps the tail, for an interrupted result.
 */
function boundProgress(call: CallScope, data: unknown): unknown {
  if (typeof data !== 'string') return data
  const { io } = call
  const room = call.services.progressLogChars - io.progressLogged
  io.progressLogged += data.length
  if (data.length <= room) return data
  const kept = Math.max(0, room)
  return `${data.slice(0, kept)}[… ${data.length - kept} characters of progress not kept in the log]`
}

/** The tail of all progress as text, never more than PARTIAL_TAIL_CHARS (plus the marker) in memory. */
function keepTail(io: CallIO, data: unknown): void {
  const text = typeof data === 'string' ? data : (JSON.stringify(data) ?? '')
  const joined = io.partial + text
  io.partial = joined.length > PARTIAL_TAIL_CHARS ? joined.slice(-PARTIAL_TAIL_CHARS) : joined
  io.partialCut ||= joined.length > PARTIAL_TAIL_CHARS
}

/** What the call's progress showed, for an interrupted result. */
export function partialOutput(io: CallIO): string {
  return io.partialCut ? `…${io.partial}` : io.partial
}

export function controllerOf(call: CallScope): AbortController {
  call.io.controller ??= new AbortController()
  return call.io.controller
}

/**
 * On a call's context, not in the public type: tells the call's turn it waits for a person in a
 * child session, or no longer. Replay's stand-ins use it to park where the recording parked.
 */
export const NESTED_PARK = Symbol('toolkernel.nestedPark')

/** The context handed to the tool's own functions; built once per call. */
export function toolContextOf(call: CallScope): ToolContext {
  const { io, services, turnId, toolUseId } = call
  io.toolContext ??= {
    get signal() {
      return controllerOf(call).signal
    },
    // The session's cwd when the call starts (docs/session-context.md); rules stay on services.cwd.
    cwd: services.session?.cwd ?? services.cwd,
    ...(services.session === undefined ? {} : { session: services.session.view() }),
    turnId,
    toolUseId,
    ports: services.ports,
    mayRead: (path: string) => services.permissions.mayRead(path),
    ruleFor: (tool: string, input: unknown) => {
      const found = services.registry.find(tool)
      return found === undefined ? undefined : services.permissions.ruleFor?.(found, input)
    },
    onProgress: (data: unknown) => {
      // A tool that goes on after its call was answered (a block tool in a discarded turn)
      // reports to no one: the log must not get events after the call's result.
      if (io.answered || io.timedOut) return
      keepTail(io, data)
      if (io.progressEvents > PROGRESS_LOG_EVENTS) return
      io.progressEvents++
      const logged =
        io.progressEvents > PROGRESS_LOG_EVENTS
          ? `[… further progress of this call is not logged (more than ${PROGRESS_LOG_EVENTS} reports)]`
          : boundProgress(call, data)
      services.log.append({ type: 'tool.progress', turnId, toolUseId, data: logged })
      services.onProgress?.(turnId, toolUseId, logged)
    },
    // Built on first use: most calls never open a child session.
    ...(services.children === undefined ? {} : { runChild: lazyChildOpener(call, services.children) }),
    [NESTED_PARK]: (parked: boolean) => io.nestedPark?.(parked),
  } as ToolContext
  return io.toolContext
}

function lazyChildOpener(call: CallScope, children: ChildRunner): (options?: ChildOptions) => ChildSession {
  let open: ((options?: ChildOptions) => ChildSession) | undefined
  return (options) => (open ??= childOpener(call, children))(options)
}

/** `context.runChild` for this call: the kernel's runner, told about the call it runs under. */
function childOpener(call: CallScope, children: ChildRunner): (options?: ChildOptions) => ChildSession {
  const { io, turnId, toolUseId } = call
  // The call waits for a person below it while a child turn is parked and none runs: one that
  // runs may still finish, or park too, and the turn settles parked only once all that could
  // finish has (so its result lists every call that waits).
  const below = { running: 0, parked: 0, waits: false }
  const update = (): void => {
    const waits = below.parked > 0 && below.running === 0
    if (waits === below.waits) return
    below.waits = waits
    io.nestedPark?.(waits)
  }
  const under: ChildCall = {
    turnId,
    toolUseId,
    toolName: call.name,
    get signal() {
      return controllerOf(call).signal
    },
    opened: () => {
      let now: 'running' | 'parked' | 'over' = 'running'
      below.running++
      const becomes = (next: typeof now): void => {
        below[now === 'parked' ? 'parked' : 'running']--
        if (next !== 'over') below[next]++
        now = next
        update()
      }
      return {
        park: (parked) => {
          if (now !== 'over' && parked !== (now === 'parked')) becomes(parked ? 'parked' : 'running')
        },
        over: () => {
          if (now !== 'over') becomes('over')
        },
      }
    },
    ended: () => io.answered || io.timedOut,
  }
  return (options) => children.open(under, options)
}

/** How a hook's added context reads to the model (replay's stand-ins take it back out). */
export function hookContextText(context: string): string {
  return `Context from a hook:\n${context}`
}

/** The block with hook context added for the model, as text parts after the tool's own content. */
export function withContext(block: ToolResultBlock, contexts: readonly string[]): ToolResultBlock {
  if (contexts.length === 0) return block
  const parts =
    typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : [...block.content]
  for (const context of contexts) parts.push({ type: 'text', text: hookContextText(context) })
  return { ...block, content: parts }
}
