/**
 * The composition root: wires the ports, the tool-call machine, the scheduler and the log.
 */
import { from, lastValueFrom, map, defaultIfEmpty } from 'rxjs'
import type { KernelEvent } from './events/event.schema.js'
import { createMemoryLog } from './events/memory-log.store.js'
import { randomIds, systemClock } from './actors/adapters/system.js'
import type { CallServices } from './actors/call-env.js'
import { noHooks, type HookRunner } from './actors/hooks.js'
import { toolPermissionPolicy, type CanUseTool } from './actors/permission.js'
import { classifySafety } from './actors/safety.js'
import { scheduleCalls, type ScheduledCall } from './actors/scheduler.js'
import { provideToolCallMachine, startToolCall, type CallRequest } from './actors/tool-call.actor.js'
import { toolUsesOf, type AssistantMessage, type ToolUseBlock } from './intake/assistant-message.js'
import { projectTurnMessage, type ToolResultMessage } from './projections/messages.projection.js'
import type { Clock, EventLog, IdGenerator, ResultStore } from './ports.js'
import { ToolRegistry } from './tools/tool-registry.js'
import type { Tool } from './tools/tool.types.js'

export const DEFAULT_MAX_CONCURRENCY = 10

export interface KernelOptions {
  tools: readonly Tool[]
  /** Working directory handed to tools. Default `process.cwd()`. */
  cwd?: string
  /** Most calls running at once. Default: env `TOOLKERNEL_MAX_CONCURRENCY`, else 10. */
  maxConcurrency?: number
  /** Asked when a call needs approval. Without it, "ask" is denied with a message saying so. */
  canUseTool?: CanUseTool
  /** Pre- and post-tool hooks. Default: none. */
  hooks?: HookRunner
  /** Where oversize output is persisted (the budget step). */
  results?: ResultStore
  /** The event log. Default: in memory. */
  log?: EventLog
  clock?: Clock
  ids?: IdGenerator
}

export interface TurnOptions {
  /** Interrupts the turn: queued calls are cancelled, running 'cancel' tools aborted. */
  signal?: AbortSignal
}

export interface TurnResult {
  /** The user message of `tool_result` blocks, in `tool_use` order. */
  message: ToolResultMessage
  /** This turn's events, in log order. */
  events: KernelEvent[]
}

export interface Kernel {
  readonly log: EventLog
  readonly tools: readonly Tool[]
  /**
   * Runs every tool call of an assistant message and answers each with one `tool_result`.
   * Rejects only for a malformed message (the app's bug); whatever a tool does, it resolves.
   */
  runTurn(message: AssistantMessage, options?: TurnOptions): Promise<TurnResult>
}

/**
 * Creates a kernel.
 *
 * @throws Error for options that could never work: tools that share a name, a bad concurrency cap.
 * @example
 * const kernel = createKernel({ tools: [echo], cwd: process.cwd() })
 * const { message } = await kernel.runTurn(assistantMessage)
 */
export function createKernel(options: KernelOptions): Kernel {
  const clock = options.clock ?? systemClock
  const ids = options.ids ?? randomIds
  const log = options.log ?? createMemoryLog(clock)
  const registry = new ToolRegistry(assertTools(options.tools))
  const maxConcurrency = resolveMaxConcurrency(options.maxConcurrency, process.env.TOOLKERNEL_MAX_CONCURRENCY)
  const services: CallServices = {
    registry,
    log,
    cwd: options.cwd ?? process.cwd(),
    ports: { clock, ids },
    hooks: options.hooks ?? noHooks,
    permissions: toolPermissionPolicy(options.canUseTool),
  }
  const machine = provideToolCallMachine()

  async function runTurn(message: AssistantMessage, turnOptions: TurnOptions = {}): Promise<TurnResult> {
    const uses = toolUsesOf(message)
    const turnId = ids.next('turn')
    const first = log.append({ type: 'turn.started', turnId, mode: 'batch', maxConcurrency }).seq
    const calls = uses.map((use, index) => scheduled(turnId, use, index))
    const signal = turnOptions.signal
    const onAbort = (): void => void log.append({ type: 'turn.aborted', turnId, reason: abortReason(signal as AbortSignal) })
    if (signal?.aborted === true) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
    try {
      await lastValueFrom(
        from(calls).pipe(
          scheduleCalls({ maxConcurrency, signal, abortReason }),
          map(() => undefined),
          defaultIfEmpty(undefined),
        ),
      )
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
    log.append({ type: 'turn.completed', turnId, results: uses.length })
    const events = log.read().slice(first).filter((event) => event.turnId === turnId)
    return { message: projectTurnMessage(events, turnId), events }
  }

  function scheduled(turnId: string, use: ToolUseBlock, index: number): ScheduledCall {
    const request: CallRequest = { turnId, toolUseId: use.id, index, name: use.name, input: use.input }
    log.append({ type: 'tool.requested', turnId, toolUseId: use.id, index, name: use.name, input: use.input })
    const safety = classifySafety(registry, use.name, use.input, undefined)
    log.append({ type: 'tool.queued', turnId, toolUseId: use.id, ...safety })
    return {
      toolUseId: use.id,
      safe: safety.safe,
      early: true,
      start: ({ batch, running }) => {
        log.append({ type: 'tool.dispatched', turnId, toolUseId: use.id, batch, running })
        return startToolCall(machine, services, request)
      },
      void: (reason) => startToolCall(machine, services, { ...request, voided: { step: 'parse', code: 'cancelled', message: reason } }),
    }
  }

  return { log, tools: registry.tools, runTurn }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason
  if (typeof reason === 'string' && reason !== '') return reason
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message !== '') return reason.message
  return 'the user interrupted the turn'
}

function assertTools(tools: unknown): readonly Tool[] {
  if (!Array.isArray(tools)) throw new TypeError('createKernel: `tools` must be an array of tools made with buildTool()')
  tools.forEach((tool: unknown, i) => {
    const t = tool as Partial<Tool> | null
    if (t === null || typeof t !== 'object' || typeof t.name !== 'string' || typeof t.call !== 'function' || typeof t.isConcurrencySafe !== 'function') {
      throw new TypeError(`createKernel: tools[${i}] is not a tool made with buildTool()`)
    }
  })
  return tools as readonly Tool[]
}

/** Option, else env, else the default; anything but a positive integer is a configuration error. */
export function resolveMaxConcurrency(option: number | undefined, env: string | undefined): number {
  if (option !== undefined) {
    if (!Number.isInteger(option) || option < 1) throw new RangeError(`createKernel: maxConcurrency must be a positive integer, got ${String(option)}`)
    return option
  }
  if (env !== undefined && env.trim() !== '') {
    const value = Number(env)
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`TOOLKERNEL_MAX_CONCURRENCY must be a positive integer, got ${JSON.stringify(env)}`)
    return value
  }
  return DEFAULT_MAX_CONCURRENCY
}
