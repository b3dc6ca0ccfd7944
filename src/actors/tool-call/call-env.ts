/**
 * What a running tool call holds outside its machine context: the tool object, the parsed input,
 * the abort controller, the output. Context stays plain JSON; this is looked up by actor.
 */
import { enqueueActions, type AnyActorRef } from 'xstate'
import type { ToolResultBlock } from '../../events/event.schema.js'
import type { Failure, PermissionDecision, ToolCallContext, ToolCallEvent } from '../../machines/tool-call.types.js'
import type { EventLog, ResultStore, ToolPorts } from '../../ports/index.js'
import type { TurnBudget } from '../turn/budget.js'
import type { ToolRegistry } from '../../tools/tool-registry.js'
import type { Tool, ToolContext } from '../../tools/tool.types.js'
import type { HookRunner } from '../../hooks/hook-runner.js'
import type { HookSay, PermissionPolicy } from '../../permissions/policy.js'
import type { HookOutcome } from '../../hooks/hook-runner.js'

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
}

export interface CallEnv {
  readonly services: CallServices
  /** The call's ids and tool name: here, not in the machine's context (see ToolCallContext). */
  readonly turnId: string
  readonly toolUseId: string
  readonly index: number
  readonly name: string
  /** Set when the scheduler voids the call before it starts; parse puts it into context. */
  readonly voided: Failure | undefined
  /** The tool and validated input the turn's safety check found (CallRequest.validated). */
  readonly validated: { tool: Tool; input: unknown } | undefined
  readonly rawInput: unknown
  /** Set by stream intake when the input JSON did not parse. */
  readonly inputError: string | undefined
  /** Created on first use: most calls never look at their signal. */
  controller: AbortController | undefined
  /** The tail of the call's progress as text (what an interrupted result shows), bounded. */
  partial: string
  /** Progress events logged for this call so far (see PROGRESS_LOG_EVENTS). */
  progressEvents: number
  /** Older progress was dropped from `partial`. */
  partialCut: boolean
  /** Characters of text progress logged so far (see PROGRESS_LOG_CHARS). */
  progressLogged: number
  /** The turn's message budget, shared by its calls. */
  readonly budget: TurnBudget
  tool?: Tool
  input?: unknown
  output?: unknown
  /** The output as a block, mapped when the call finished (the budget measures it). */
  mapped?: { block: ToolResultBlock } | { error: unknown }
  /** What the hooks of each phase decided (recorded when the step ends). */
  hooks: { pre?: HookOutcome; post?: HookOutcome }
  /** A PreToolUse hook's say in the permission step. */
  hookSay?: HookSay
  /** Context hooks added for the model, in order. */
  contexts: string[]
  /** Set when the budget step persisted the output. */
  persisted?: { path: string; chars: number }
  block?: ToolResultBlock
  emitted: boolean
  /** The call step has started the tool (it had passed its write-ahead fence). */
  started?: true
  /** An interruption that came while the call waited to start (its write-ahead fence): it never starts. */
  abortRequested?: string
  toolContext?: ToolContext
  /** Parse predicted that validate and permission pass at once (the machine's short lane). */
  atOnce?: boolean
  /** The permission decision taken on the short lane, where no `permission.done` event carries it. */
  decision?: PermissionDecision
}

/** What every step receives: the machine's context, the actor, and the call's environment. */
export interface StepArgs {
  context: ToolCallContext
  self: AnyActorRef
  env: CallEnv
}

/** What the steps after parse receive: the tool parse resolved is there. */
export interface ResolvedStepArgs extends StepArgs {
  tool: Tool
}

/** The tool parse resolved; a step after parse without one is a bug in the machine. */
export function resolvedTool(env: CallEnv): Tool {
  if (env.tool === undefined)
    throw new Error(`tool call ${env.toolUseId}: a step after parse ran without a resolved tool`)
  return env.tool
}

/** A step that runs only after parse found the tool: it receives the tool, typed. */
export function resolved<R>(step: (args: ResolvedStepArgs) => R): (args: StepArgs) => R {
  return ({ context, self, env }) => step({ context, self, env, tool: resolvedTool(env) })
}

/**
 * The environments of a kernel's live calls, keyed by turn and tool_use id. XState computes the
 * initial state inside `createActor`, before the actor could be registered anywhere, so the
 * lookup goes by what the context already holds.
 */
export class CallEnvs {
  // By the actor's id: actions find their call through `self.id`, the one guard that needs the
  // environment through the init event's input (guards get no `self`).
  readonly #envs = new Map<string, CallEnv>()
  #next = 0

  /** Registers a call's environment under a fresh id, which the call's actor must take as its id. */
  bind(env: CallEnv): { callId: string; unbind: () => void } {
    const callId = `call-${++this.#next}`
    this.#envs.set(callId, env)
    return { callId, unbind: () => this.#envs.delete(callId) }
  }

  of(self: AnyActorRef): CallEnv {
    return this.byId(self.id)
  }

  byId(callId: string | undefined): CallEnv {
    const env = callId === undefined ? undefined : this.#envs.get(callId)
    if (env === undefined)
      throw new Error(`no environment for tool call actor ${callId} (start calls with startToolCall)`)
    return env
  }

  /** Wraps a step so it receives its call's environment. */
  step<R>(step: (args: StepArgs) => R): (args: { context: ToolCallContext; self: AnyActorRef }) => R {
    return ({ context, self }) => step({ context, self, env: this.of(self) })
  }

  /** A step that may change the context: assigns only when it returns an update (assigns copy the snapshot). */
  assigning(step: (args: StepArgs) => Partial<ToolCallContext> | undefined) {
    return enqueueActions<ToolCallContext, ToolCallEvent, unknown, ToolCallEvent, never, never, never, never, never>(
      ({ context, self, enqueue }) => {
        const update = step({ context, self, env: this.of(self) })
        if (update !== undefined) enqueue.assign(update)
      },
    )
  }

  /** A step whose synchronous answer is raised as its `*.done` event in the same macrostep. */
  raising(step: (args: StepArgs) => ToolCallEvent | undefined) {
    return enqueueActions<ToolCallContext, ToolCallEvent, unknown, ToolCallEvent, never, never, never, never, never>(
      ({ context, self, enqueue }) => {
        const event = step({ context, self, env: this.of(self) })
        if (event !== undefined) enqueue.raise(event)
      },
    )
  }
}

/** Sends to the actor only while it runs: a late answer to a call that moved on is dropped. */
export function sendIfActive(self: AnyActorRef, event: ToolCallEvent): void {
  if (self.getSnapshot().status === 'active') self.send(event)
}

/**
 * Runs a step's work, which may answer synchronously or with a promise. A synchronous answer
 * (or throw) is returned as the event it maps to, so an assign can apply it in the same
 * microstep; an asynchronous one is sent to the actor when it settles, and `undefined` returned.
 * Never throws.
 */
export function attempt<T>(
  self: AnyActorRef,
  work: () => T | PromiseLike<T>,
  onValue: (value: T) => ToolCallEvent,
  onError: (error: unknown) => ToolCallEvent,
): ToolCallEvent | undefined {
  let result: T | PromiseLike<T>
  try {
    result = work()
  } catch (error) {
    return onError(error)
  }
  if (!isThenable(result)) return safeBuild(onValue, result, onError)
  result.then(
    (value) => sendIfActive(self, safeBuild(onValue, value, onError)),
    (error: unknown) => sendIfActive(self, onError(error)),
  )
  return undefined
}

function safeBuild<T>(
  onValue: (value: T) => ToolCallEvent,
  value: T,
  onError: (error: unknown) => ToolCallEvent,
): ToolCallEvent {
  try {
    return onValue(value)
  } catch (error) {
    return onError(error)
  }
}

export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  )
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
 * replaced by a note of its size. The call itself keeps everything, for an interrupted result.
 */
function boundProgress(env: CallEnv, data: unknown): unknown {
  if (typeof data !== 'string') return data
  const room = env.services.progressLogChars - env.progressLogged
  env.progressLogged += data.length
  if (data.length <= room) return data
  const kept = Math.max(0, room)
  return `${data.slice(0, kept)}[… ${data.length - kept} characters of progress not kept in the log]`
}

/** The tail of all progress as text, never more than PARTIAL_TAIL_CHARS (plus the marker) in memory. */
function keepTail(env: CallEnv, data: unknown): void {
  const text = typeof data === 'string' ? data : (JSON.stringify(data) ?? '')
  const joined = env.partial + text
  env.partial = joined.length > PARTIAL_TAIL_CHARS ? joined.slice(-PARTIAL_TAIL_CHARS) : joined
  env.partialCut ||= joined.length > PARTIAL_TAIL_CHARS
}

export function controllerOf(env: CallEnv): AbortController {
  env.controller ??= new AbortController()
  return env.controller
}

/** The context handed to the tool's own functions; built once per call. */
export function toolContextOf(env: CallEnv, turnId: string, toolUseId: string): ToolContext {
  if (env.toolContext === undefined) {
    const { services } = env
    env.toolContext = {
      get signal() {
        return controllerOf(env).signal
      },
      cwd: services.cwd,
      turnId,
      toolUseId,
      ports: services.ports,
      mayRead: (path: string) => services.permissions.mayRead(path),
      onProgress: (data: unknown) => {
        // A tool that goes on after its call was answered (a block tool in a discarded turn)
        // reports to no one: the log must not get events after the call's result.
        if (env.emitted) return
        keepTail(env, data)
        if (env.progressEvents > PROGRESS_LOG_EVENTS) return
        env.progressEvents++
        const logged =
          env.progressEvents > PROGRESS_LOG_EVENTS
            ? `[… further progress of this call is not logged (more than ${PROGRESS_LOG_EVENTS} reports)]`
            : boundProgress(env, data)
        services.log.append({ type: 'tool.progress', turnId, toolUseId, data: logged })
        services.onProgress?.(turnId, toolUseId, logged)
      },
    }
  }
  return env.toolContext
}
