/**
 * Re-execution replay: runs the scheduler and the tool-call machines again over a recorded log,
 * with every outside answer — tool outputs and errors, progress, hook results, the user's
 * permission answers, where output was persisted — read from the log, each released at the point
 * the log recorded it. No tool, hook or prompt runs. The current tools' schemas, predicates and
 * mappers and the current permission rules decide; the first event where the engine now decides
 * differently is reported.
 */
import { toolResultBlock, type EventOf, type KernelEvent, type KernelEventInput } from '../events/event.schema.js'
import { StampingLog } from '../adapters/memory-log.store.js'
import { readSavedResult } from '../adapters/result-store.js'
import type { HookOutcome, HookRunner } from '../hooks/hook-runner.js'
import type { TurnControl } from '../actors/turn/turn.js'
import { earlyStartOf } from '../actors/turn/resume.js'
import { combineHookResults } from '../hooks/combine.js'
import type { IncomingToolUse } from '../intake/incoming.js'
import { createKernelInternals, type KernelInternals, type KernelOptions } from '../kernel.js'
import { sandboxOptionsOf } from '../sandbox-config.js'
import type { PermissionAnswer, PermissionMode, PermissionRequest } from '../permissions/policy.js'
import type { DescribeContext, Tool } from '../tools/tool.types.js'
import type { ApiFormat } from '../tools/to-api-format.js'
import type { DeferralOptions } from '../tools/pool/threshold.js'
import { recordedSources } from '../tools/pool/recorded-source.js'
import { indexRecording, stripPrefix, type Recording } from './recorded.js'
import { canonicalJson } from '../util/canonical-json.js'
import { checkLogOrder, isShellEvent } from '../events/log-order.js'
import { inDecisionOrder } from './decision-order.js'
import { isThenable } from '../util/is-thenable.js'
import { ERRNO_CODES, isErrorName, TelemetrySafeError } from '../events/error-class.js'
import type { CallTimers } from '../actors/tool-call/call-timing.js'
import { NESTED_PARK } from '../actors/tool-call/call-scope.js'
import { toolErrorPrefix } from '../tools/result-text.js'
import { inputRejections, savedOutputs, withoutGivenText, type NotChecked } from './not-checked.js'
import { changeContext, type ContextChange } from '../tools/context-change.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

export interface ReplayOptions {
  tools: readonly Tool[]
  /** Working directory. Default: the one the log recorded. */
  cwd?: string
  /** Rules and mode to decide with. Default: those the log recorded (give others to test a rule change). */
  permissions?: KernelOptions['permissions']
  /** Characters a turn's message may carry. Default: the limit the log recorded (session.configured). */
  messageBudgetChars?: number
  /**
   * Reads back output the recording persisted, to rebuild its preview. Default: only regular
   * files named as toolkernel's result store names them — a log is input, and replaying an
   * untrusted one must not print whatever file it names. An app with its own store passes its own.
   * Output it cannot read back is stood in for by its recorded size, and its preview is listed in
   * the result's `notChecked`, not compared.
   */
  readResult?: (path: string) => string | undefined
  /**
   * Tools replayed without their schema (stand-ins built from the log): where the log shows one
   * rejected an input (`invalid_input`), the tool must reject it again, but the rejection's text —
   * which only the schema could write — is the log's, not compared, and listed in the result's
   * `notChecked` (present when this option is given, or when a saved output could not be read back).
   */
  inputNotChecked?: readonly string[]
}

export interface Divergence {
  /** Position (seq) in the recorded log of the first event that differs. */
  position: number
  turnId: string
  /** What the log says happened there (undefined: the engine now does more). */
  expected: KernelEvent | undefined
  /** What the engine decides now (undefined: the engine now stops short). */
  actual: KernelEventInput | undefined
  message: string
}

/**
 * What a replay found. `log` is the log the engine wrote as it re-executed (to project, e.g.
 * `projectTelemetry(result.log, { replayed: true })` for spans marked as replayed).
 */
export type ReplayResult =
  | {
      ok: true
      turns: number
      events: number
      log: readonly KernelEvent[]
      /**
       * The checks left to the log (input checks of `inputNotChecked` tools, previews of saved output
       * that could not be read back): present when `inputNotChecked` is given or when there is one.
       */
      notChecked?: readonly NotChecked[]
    }
  | {
      ok: false
      turns: number
      divergence: Divergence
      log: readonly KernelEvent[]
      /** The checks left to the log before the divergence (present as on success). */
      notChecked?: readonly NotChecked[]
    }

/**
 * Whether the log was written by toolkernel before 0.2, whose scheduler heard of a finished call
 * one microtask late (a log without session.configured is older still).
 */
function writtenBefore02(configured: EventOf<'session.configured'> | undefined): boolean {
  if (configured === undefined) return true
  const [major = 0, minor = 0] = configured.toolkernel.split('.').map((part) => Number.parseInt(part, 10))
  return major === 0 && minor < 2
}

/** A recorded save that failed: replay's result store fails the same way. */
class SaveFailed extends Error {}

/**
 * Output marker for a result whose text the log does not hold: output it persisted (the saved text,
 * or its stand-in; savedOutputs) or held when the process died (its size alone).
 */
const KEPT_OUT = Symbol('output kept out of the log')

const REPLAY_OPTIONS = optionNames<ReplayOptions>()(
  'tools',
  'cwd',
  'permissions',
  'messageBudgetChars',
  'readResult',
  'inputNotChecked',
)

/**
 * Re-executes a log and compares.
 *
 * @example
 * const result = await replay(parseJsonl(text).events, { tools: builtinTools, cwd })
 * if (!result.ok) console.log(result.divergence.message)
 */
export async function replay(recordedLog: readonly KernelEvent[], options: ReplayOptions): Promise<ReplayResult> {
  checkOptionsObject('replay', options, REPLAY_OPTIONS)
  const order = checkLogOrder(recordedLog)
  if (!order.ok) {
    const at = recordedLog.find((e) => e.seq === order.seq)
    const divergence = { position: order.seq, turnId: at?.turnId ?? '', expected: at, actual: undefined }
    const message = `the log is out of order: ${order.problem}`
    return { ok: false, turns: 0, divergence: { ...divergence, message }, log: [], ...reported([], options) }
  }
  const events = inDecisionOrder(recordedLog)
  const turnIds = events.filter((e) => e.type === 'turn.started').map((e) => e.turnId)
  // Each turn gets its own recording and gates: a tool_use id may come back in a later turn.
  const now: Current = {
    recording: indexRecording([]),
    gates: new Gates(),
    activity: new Activity(),
    attempts: noAttempts(),
    disabled: new Set(),
    changes: new Map(),
    described: new Map(),
    byArrival: true,
    saved: new Map(),
  }
  const log = new StampingLog({ now: () => 0 })
  let turnIndex = 0
  // A log that records isEnabled switches (pool.changed disabled / enabled) answers isEnabled itself.
  const switches = events.some((e) => e.type === 'pool.changed' && (e.disabled ?? e.enabled) !== undefined)
  // A text the log recorded as sent when it changed is an outside answer: the replayed tool gives it back.
  const described = new Set(events.flatMap((e) => (e.type === 'tools.described' ? e.tools.map((t) => t.name) : [])))
  const replayTools = options.tools.map((tool) => recordedTool(tool, now, switches, described.has(tool.name)))
  // Tools the app registered between turns join the replay kernel where the log says they did.
  const registeredLater = new Set(
    events.flatMap((e) => (e.type === 'pool.changed' && e.source === 'app' ? e.added : [])),
  )
  // Tools of a source (an MCP server) join as the log says that source offered them, names and all.
  const recorded = recordedSources(events, replayTools)
  /**
   * A kernel as the one that ran `turn` was configured: its session.configured (each kernel logs
   * one with its first turn) and the turn's turn.started. The first kernel starts with the tools
   * the app had not registered later; a later one (a session resumed) with the tools it recorded.
   */
  const kernelFor = (turn: readonly KernelEvent[], first: boolean): KernelInternals => {
    const started = turn[0] as EventOf<'turn.started'>
    const configured =
      turn.find((e): e is EventOf<'session.configured'> => e.type === 'session.configured') ??
      events.find((e): e is EventOf<'session.configured'> => e.type === 'session.configured')
    const own = configured === undefined || first ? undefined : new Set(configured.tools.map((t) => t.name))
    const tools = replayTools.filter(
      (tool) =>
        !recorded.sourced.has(tool.name) && (own === undefined ? !registeredLater.has(tool.name) : own.has(tool.name)),
    )
    const cwd = options.cwd ?? started.cwd
    const permissions = permissionsOf(options, started)
    const messageBudgetChars = options.messageBudgetChars ?? configured?.limits.messageBudgetChars
    return createKernelInternals(
      {
        tools,
        toolSources: recorded.sources,
        ...(cwd !== undefined ? { cwd } : {}),
        ...(permissions !== undefined ? { permissions } : {}),
        ...(messageBudgetChars !== undefined ? { messageBudgetChars } : {}),
        maxConcurrency: started.maxConcurrency,
        progressLogChars: Infinity,
        // The kernel's default deadline as recorded: which calls have one is the engine's decision.
        ...(configured?.limits.toolTimeoutMs !== undefined ? { toolTimeoutMs: configured.limits.toolTimeoutMs } : {}),
        ...(configured?.limits.timeoutGraceMs !== undefined
          ? { timeoutGraceMs: configured.limits.timeoutGraceMs }
          : {}),
        // The pool's settings as recorded: ToolSearch's answers and pool.assembled depend on them.
        ...(configured?.pool !== undefined
          ? { toolFormat: configured.pool.format as ApiFormat, deferral: configured.pool.deferral as DeferralOptions }
          : {}),
        // The sandbox as recorded (issue 30): re-executed commands run under it, and it is logged again.
        ...(configured?.sandbox !== undefined ? { sandbox: sandboxOptionsOf(configured.sandbox) } : {}),
        ports: {
          clock: { now: () => 0 },
          ids: {
            next: (prefix) =>
              prefix === 'turn' ? (turnIds[turnIndex++] ?? `turn_replay_${turnIndex}`) : `${prefix}_replay`,
          },
          hookRunner: recordedHooks(now, (event) => void log.append(event)),
        },
        log,
        // An "ask" nobody answered parked the call, or (before 0.4, or where the app chose so) was denied.
        approvals: configured?.approvals ?? 'deny',
        // An app that could not be asked was not: "ask" denied unasked, and so it must be in replay.
        ...(configured?.asks === false
          ? {}
          : {
              canUseTool: (request: PermissionRequest) => now.gates.wait<PermissionAnswer>(`perm:${request.toolUseId}`),
            }),
        results: {
          save: async ({ toolUseId }) => {
            const saved = await now.gates.wait<string | SaveFailed>(`save:${toolUseId}`)
            if (saved instanceof SaveFailed) throw saved
            return saved
          },
        },
      },
      {
        legacyDispatch: writtenBefore02(configured),
        timers: recordedTimers(now),
        // A turn whose log has no budget.held or budget.decided never had a result wait for
        // another (or was written before they did): its results are claimed as they arrive.
        budgetByArrival: () => now.byArrival,
      },
    )
  }
  const turns = groupTurns(events)
  /** Some turn's engine stopped short of the log, so the rest of it was walked at quiet moments. */
  let unpaced = false
  const unchecked = new Set(options.inputNotChecked ?? [])
  const notChecked: NotChecked[] = []
  let kernel: KernelInternals | undefined
  for (const turnEvents of turns) {
    readSwitches(now, turnEvents)
    // The first turn, and each turn where another kernel took over the session, gets its kernel;
    // a kernel decides nothing before its shell grammar is loaded, so the walk waits for it.
    if (kernel === undefined || turnEvents.some((e) => e.type === 'session.configured')) {
      kernel = kernelFor(turnEvents, kernel === undefined)
      await kernel.ready()
    }
    recorded.advance(turnEvents)
    applyAppChanges(kernel, turnEvents, replayTools)
    // The app's mode changes between turns, set again where the log recorded them.
    for (const e of turnEvents)
      if (e.type === 'session.changed' && e.source === 'app' && e.mode !== undefined)
        kernel.setMode(e.mode as PermissionMode)
    // Descriptions that read the context or are async are resolved before the turn, as they were.
    await kernel.ready()
    now.recording = indexRecording(turnEvents)
    const saved = savedOutputs(turnEvents[0]?.turnId ?? '', now.recording, options.readResult ?? readSavedResult)
    now.saved = saved.texts
    now.byArrival = !turnEvents.some((e) => e.type === 'budget.held' || e.type === 'budget.decided')
    now.gates = new Gates()
    now.activity = new Activity()
    now.attempts = noAttempts()
    if (!(await replayTurn(kernel, log, turnEvents, now))) unpaced = true
    const given = [...inputRejections(recordedPart(turnEvents), unchecked), ...saved.unread]
    const divergence = compare(recordedPart(turnEvents), kernel.log.read(), new Set(given.map((g) => g.toolUseId)))
    notChecked.push(...given.filter((g) => divergence === undefined || g.position < divergence.position))
    if (divergence !== undefined)
      return { ok: false, turns: turns.length, divergence, log: log.read(), ...reported(notChecked, options) }
  }
  if (unpaced) pacing.okUnpaced++
  return {
    ok: true,
    turns: turns.length,
    events: events.length,
    log: log.read(),
    ...reported(notChecked, options),
  }
}

/**
 * `notChecked` for a caller that named tools whose input checks replay cannot make, or when some
 * check was left to the log; nothing otherwise.
 */
function reported(notChecked: NotChecked[], options: ReplayOptions): { notChecked?: readonly NotChecked[] } {
  return options.inputNotChecked === undefined && notChecked.length === 0 ? {} : { notChecked }
}

/**
 * What the log says of the session before a turn: the tools switched off or on (the kernel asks
 * isEnabled when it assembles the turn's pool), and the context changes its calls returned.
 */
function readSwitches(now: Current, turnEvents: readonly KernelEvent[]): void {
  now.changes = new Map()
  for (const e of turnEvents) {
    if (e.type === 'pool.changed') {
      for (const name of e.disabled ?? []) now.disabled.add(name)
      for (const name of e.enabled ?? []) now.disabled.delete(name)
    }
    if (e.type === 'session.changed' && e.changedBy !== undefined && e.requested !== undefined)
      now.changes.set(e.changedBy, e.requested)
    if (e.type === 'tools.described') for (const t of e.tools) now.described.set(t.name, t.description)
    if (e.type === 'session.configured')
      for (const t of e.tools) if (t.definition !== undefined) now.described.set(t.name, t.definition.description)
  }
}

/** The app's registrations and removals recorded for this turn, made again before it starts. */
function applyAppChanges(kernel: KernelInternals, turnEvents: readonly KernelEvent[], tools: readonly Tool[]): void {
  for (const change of turnEvents) {
    if (change.type !== 'pool.changed' || change.source !== 'app') continue
    const added = new Set(change.added)
    kernel.removeTools(change.removed)
    kernel.registerTools(tools.filter((tool) => added.has(tool.name)))
  }
}

function permissionsOf(
  options: ReplayOptions,
  started: EventOf<'turn.started'> | undefined,
): KernelOptions['permissions'] {
  if (options.permissions !== undefined) return options.permissions
  const recorded = started?.permissions
  return recorded === undefined ? undefined : { ...recorded, mode: recorded.mode as PermissionMode }
}

/** Releases of recorded answers, each opened when the walk reaches its event. */
class Gates {
  readonly #waiting = new Map<string, (value: unknown) => void>()
  readonly #released = new Map<string, unknown>()
  readonly #sinks = new Map<string, (data: unknown) => void>()
  readonly #early = new Map<string, unknown[]>()

  /** A running call's progress callback: recorded progress is delivered at its recorded moment. */
  sink(toolUseId: string, onProgress: (data: unknown) => void): void {
    this.#sinks.set(toolUseId, onProgress)
    for (const data of this.#early.get(toolUseId) ?? []) onProgress(data)
    this.#early.delete(toolUseId)
  }

  progress(toolUseId: string, data: unknown): void {
    const sink = this.#sinks.get(toolUseId)
    if (sink !== undefined) sink(data)
    else this.#early.set(toolUseId, [...(this.#early.get(toolUseId) ?? []), data])
  }

  wait<T>(key: string): Promise<T> {
    if (this.#released.has(key)) return Promise.resolve(this.#released.get(key) as T)
    return new Promise<T>((resolve) => this.#waiting.set(key, resolve as (value: unknown) => void))
  }

  readonly #nested = new Map<string, (parked: boolean) => void>()

  /** A running stand-in's way to park its call on a child's behalf (docs/subagents.md). */
  nested(toolUseId: string, park: ((parked: boolean) => void) | undefined): void {
    if (park !== undefined) this.#nested.set(toolUseId, park)
  }

  /** The recording parked (`true`) or resumed a running call on a child's behalf. */
  park(toolUseId: string, parked: boolean): void {
    this.#nested.get(toolUseId)?.(parked)
  }

  /** Opens every gate still waiting (with no recorded answer): lets a stopped replay finish. How many it opened. */
  drain(): number {
    const waiting = [...this.#waiting]
    for (const [key, resolve] of waiting) {
      this.#waiting.delete(key)
      resolve(undefined)
    }
    return waiting.length
  }

  release(key: string, value: unknown): void {
    const waiting = this.#waiting.get(key)
    this.#waiting.delete(key)
    if (waiting !== undefined) waiting(value)
    else this.#released.set(key, value)
  }
}

/** The recording and gates of the turn being replayed, and the engine's own outstanding work. */
interface Current {
  recording: Recording
  gates: Gates
  activity: Activity
  /** Per call: the attempts its stand-in tool has been run (replayed) and the walk has reached (recorded). */
  attempts: { replayed: Map<string, number>; recorded: Map<string, number> }
  /** Tools the log has switched off (isEnabled false) as of the turn being replayed. */
  disabled: Set<string>
  /** The context changes the turn's calls returned, by tool_use id. */
  changes: Map<string, Record<string, unknown>>
  /** The texts the log recorded as sent (session.configured, tools.described) as of the turn being replayed. */
  described: Map<string, string>
  /** The turn's results are claimed as they arrive (its log records no budget group). */
  byArrival: boolean
  /** The text of each output the turn saved to the result store, as read back or stood in for (savedOutputs). */
  saved: Map<string, string>
}

const noAttempts = (): Current['attempts'] => ({ replayed: new Map(), recorded: new Map() })

/**
 * Deadlines, graces and backoffs fire where the log shows they did (tool.timed_out,
 * tool.restarted), never on a clock: the engine then decides what it decided then.
 */
function recordedTimers(now: Current): CallTimers {
  return {
    after(kind, toolUseId, attempt, _ms, fn) {
      let live = true
      const key = kind === 'backoff' ? `backoff:${toolUseId}:${attempt}` : `${kind}:${toolUseId}`
      void now.gates.wait(key).then(() => {
        if (live) fn()
      })
      return () => void (live = false)
    },
  }
}

/**
 * Work of the engine's that is not an outside answer (a tool's own asynchronous permission
 * check). The engine is quiet when none is pending and no microtask is left: then, and only then,
 * has an engine that has not decided what the log has before the next answer stopped short
 * (followDecisions); and a turn that is quiet without its result waits for an answer the log
 * does not have.
 */
class Activity {
  #pending = 0
  #quiet: Array<() => void> = []

  track<T>(work: T): T {
    if (!isThenable(work)) return work
    this.#pending++
    const done = (): void => {
      if (--this.#pending === 0) for (const wake of this.#quiet.splice(0)) wake()
    }
    work.then(done, done)
    return work
  }

  /** Settles once microtasks have run and no tracked work is pending. */
  async idle(): Promise<void> {
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      if (this.#pending === 0) return
      await new Promise<void>((resolve) => this.#quiet.push(resolve))
    }
  }
}

function recordedTool(tool: Tool, now: Current, switches: boolean, described: boolean): Tool {
  const copy: Tool = Object.create(tool) as Tool
  // What the validator saw of the world is an outside answer: the recorded verdict, at its moment.
  const validation =
    tool.validateInput === undefined
      ? {}
      : {
          validateInput: (_input: unknown, context: { toolUseId: string }) => {
            const recorded = now.recording.calls.get(context.toolUseId)?.validation
            if (recorded?.immediate === true) return recorded.answer
            return now.gates.wait<{ result: true } | { result: false; message: string }>(
              `validate:${context.toolUseId}`,
            )
          },
        }
  const enabled = switches ? { isEnabled: () => !now.disabled.has(tool.name) } : {}
  const prompt = described
    ? { prompt: (context: DescribeContext) => now.described.get(tool.name) ?? tool.prompt(context) }
    : {}
  return Object.assign(copy, validation, enabled, prompt, {
    // The current tool's own check decides, but an asynchronous one answers at the moment the
    // log recorded its verdict (it may have looked at the world, and its timing is an outside fact).
    checkPermissions: (input: unknown, context: Parameters<Tool['checkPermissions']>[1]) => {
      const answer = tool.checkPermissions(input, context)
      if (!isThenable(answer)) return answer
      return now.activity.track(answer).then(async (verdict) => {
        await now.gates.wait(`check:${context.toolUseId}`)
        return verdict
      })
    },
    // The recorded answer, at the recorded moment: progress first, then the output or the error.
    call: async (_input: unknown, context: { toolUseId: string; onProgress(data: unknown): void }) => {
      const id = context.toolUseId
      now.gates.sink(id, (data) => context.onProgress(data))
      // A call that ran a child session parks where the recording parked on the child's behalf.
      now.gates.nested(id, (context as unknown as Record<symbol, (parked: boolean) => void>)[NESTED_PARK])
      // Each attempt of a retried tool answers as it did: a failure (tool.retrying), then the last.
      const attempt = (now.attempts.replayed.get(id) ?? 0) + 1
      now.attempts.replayed.set(id, attempt)
      await now.gates.wait(`call:${id}:${attempt}`)
      const recorded = now.recording.calls.get(id)
      const failed = recorded?.retries[attempt - 1]
      if (failed !== undefined) throw standInError(failed.error, failed.errorClass)
      const completion = recorded?.completion
      // The process died while its result waited for its siblings': the log has only its size.
      if (completion === undefined && recorded?.heldChars !== undefined)
        return { [KEPT_OUT]: '…'.repeat(recorded.heldChars) }
      if (completion === undefined) return await new Promise(() => {})
      if ('error' in completion) {
        const prefix = toolErrorPrefix(tool.name, 'attempts' in completion ? completion.attempts : undefined)
        throw standInError(
          stripPrefix(completion.error, prefix),
          'errorClass' in completion ? completion.errorClass : undefined,
        )
      }
      const output = 'persisted' in completion ? { [KEPT_OUT]: now.saved.get(id) } : completion.output
      // The context change the call returned, handed back so the engine decides on it again.
      const change = now.changes.get(context.toolUseId)
      return change === undefined ? output : changeContext(output, change as ContextChange)
    },
    // Output the log kept only the size or the file of is mapped as the recording's block was:
    // that text (or as many `…`), an error block if it was one.
    mapToolResultToToolResultBlockParam: (output: unknown, toolUseId: string) => {
      if (output !== null && typeof output === 'object' && KEPT_OUT in output) {
        const isError = now.recording.calls.get(toolUseId)?.mappedError === true
        return toolResultBlock(toolUseId, (output as { [KEPT_OUT]: string })[KEPT_OUT], isError)
      }
      return tool.mapToolResultToToolResultBlockParam(output, toolUseId)
    },
  })
}

/**
 * A recorded error thrown again: its text as recorded and its class, so the replayed events
 * classify as the originals did; an errno class is its `code` and an error name its `name` (taken
 * off the text's head), so a tool's `retryOn` sees what it saw then.
 */
function standInError(text: string, errorClass: string | undefined): Error {
  const error = new TelemetrySafeError(errorClass ?? 'Error', text)
  if (errorClass === undefined) return error
  if (ERRNO_CODES.has(errorClass)) Object.assign(error, { code: errorClass })
  else if (isErrorName(errorClass) && text.startsWith(`${errorClass}: `)) {
    error.message = text.slice(errorClass.length + 2)
    error.name = errorClass
  }
  return error
}

function recordedHooks(now: Current, record: (event: KernelEventInput) => void): HookRunner {
  return {
    has: (phase, _tool, toolUseId) => now.recording.calls.get(toolUseId)?.hooked[phase] === true,
    async run(request) {
      await now.gates.wait(`hook:${request.toolUseId}:${request.phase}`)
      const recorded = now.recording.calls.get(request.toolUseId)
      // The hooks that answered before the step closed; one abandoned by an abort that finished
      // later is logged where the recording has it, by the walk (lateHookEvent).
      const closedAt = recorded?.hookedEvents[request.phase]?.seq ?? Infinity
      for (const event of recorded?.hookEvents[request.phase] ?? []) {
        if (event.seq > closedAt) continue
        record(withoutEnvelope(event))
      }
      const results = recorded?.hooks[request.phase] ?? []
      const step = recorded?.hookedEvents[request.phase]
      // An app's own hook runner logs no hook.finished: the step's recorded outcome is the answer.
      if (results.length === 0 && step !== undefined) return outcomeOf(step)
      return combineHookResults(results, request.phase)
    },
  }
}

/** A hook step's recorded outcome as the runner would have answered it. */
function outcomeOf(event: EventOf<'tool.hooked'>): HookOutcome {
  const outcome: HookOutcome = { outcome: event.outcome, systemMessages: [...(event.systemMessages ?? [])], errors: [] }
  if (event.reason !== undefined) outcome.reason = event.reason
  if (event.decision !== undefined) outcome.decision = event.decision
  if (event.updatedInput !== undefined) outcome.updatedInput = event.updatedInput as Record<string, unknown>
  if (event.additionalContext !== undefined) outcome.additionalContext = event.additionalContext
  return outcome
}

/**
 * The blocks an interruption cut off, as the log recorded them right after it: each one's
 * tool.requested and tool.queued, which the interruption itself hands on (not the walk).
 */
function flushedRun(recorded: readonly KernelEvent[], at: number): KernelEvent[] {
  const run: KernelEvent[] = []
  for (let j = at + 1; recorded[j]?.type === 'tool.requested' || recorded[j]?.type === 'tool.queued'; j++)
    run.push(recorded[j] as KernelEvent)
  return run
}

function groupTurns(events: readonly KernelEvent[]): KernelEvent[][] {
  const turns = new Map<string, KernelEvent[]>()
  for (const event of events) {
    const list = turns.get(event.turnId)
    if (list === undefined) turns.set(event.turnId, [event])
    else list.push(event)
  }
  // checkLogOrder has refused any log where a turn does not begin with its turn.started.
  return [...turns.values()]
}

const incoming = (e: EventOf<'tool.requested'>): IncomingToolUse => ({
  id: e.toolUseId,
  name: e.name,
  index: e.index,
  input: e.input,
  ...(e.inputError !== undefined ? { inputError: e.inputError } : {}),
})
/** Replays one turn; false when its engine stopped short of the log (a divergence, or a bug of replay's). */
async function replayTurn(
  kernel: KernelInternals,
  log: StampingLog,
  recorded: KernelEvent[],
  now: Current,
): Promise<boolean> {
  const { gates, recording, activity } = now
  const settle = () => activity.idle()
  const started = recorded[0] as EventOf<'turn.started'>
  const early = earlyStartOf(started)
  // A child turn (docs/subagents.md) opens under its parent call, with the scope it recorded.
  const child =
    started.child !== undefined && started.parentToolUseId !== undefined
      ? { spec: started.child, parentToolUseId: started.parentToolUseId }
      : undefined
  const follow = followDecisions(log, recordedPart(recorded), activity)
  const turn = kernel.openTurn(started.mode, early, child)
  const controller = new AbortController()
  let i = 1
  if (started.mode === 'batch') {
    // runTurn adds every call, then watches the signal, then ends the message, all at once.
    for (const event of recorded) if (event.type === 'tool.requested') turn.addIncoming(incoming(event))
    const abortAt = recorded.findIndex((e) => e.type === 'turn.aborted')
    const firstDispatch = recorded.findIndex((e) => e.type === 'tool.dispatched')
    if (abortAt >= 0 && (firstDispatch < 0 || abortAt < firstDispatch))
      controller.abort((recorded[abortAt] as EventOf<'turn.aborted'>).reason)
    turn.attach(controller.signal)
    turn.end(recorded.find((e): e is EventOf<'turn.ended'> => e.type === 'turn.ended')?.stopReason ?? 'tool_use')
  } else {
    turn.attach(controller.signal)
  }
  // Each recorded event is reached once the engine has decided all the log has before it. An
  // engine that stops short has diverged (the comparison says where); the rest of the turn is then
  // walked as far as it goes, each answer once the engine has nothing left to do, so the log it
  // re-executed shows what it does with them.
  let following = true
  /** The person's answers given at the turn.resumed before them. */
  const answered = new Set<KernelEvent>()
  try {
    for (; i < recorded.length; i++) {
      const event = recorded[i] as KernelEvent
      if (event.type === 'turn.recovered') break
      if (following) following = await follow.reached(i)
      if (lateHookEvent(event, recording)) {
        // An outside answer like any other: the hook finished, after its step had moved on.
        kernel.log.append(withoutEnvelope(event))
      } else {
        drive(event, recorded, i, turn, controller, gates, started.mode, recording, now.attempts.recorded, answered)
        if (event.type === 'turn.aborted' || event.type === 'turn.discarded') i += flushedRun(recorded, i).length
      }
      if (!following) await settle()
    }
    // A turn the log has whole ends where the log does: its last events decided.
    if (following && i === recorded.length) following = await follow.reached(i)
  } finally {
    follow.stop()
  }
  // A divergence may leave the replay waiting for an answer the log does not have: stop it.
  const done = await Promise.race([
    turn.result().then(() => true),
    settle()
      .then(settle)
      .then(() => false),
  ])
  if (!done) {
    turn.interrupt('discard', 'replay stopped: the engine waited for something the log does not record')
    // Steps after the interruption (a post-hook, say) may wait for answers the log never got:
    // opened empty, as long as some step still waits for one; a turn that then still does not
    // end waits for nothing replay can give, and is a bug to report, not a hang.
    const ended = () => Promise.race([turn.result().then(() => true), settle().then(() => false)])
    while (!(await ended()))
      if (gates.drain() === 0)
        throw new Error(
          `replay of turn ${started.turnId}: the turn neither ends nor waits for an answer after it was stopped`,
        )
  }
  return following
}

/**
 * Replays that found no divergence though some turn's engine stopped short of the log, its rest
 * walked at the engine's quiet moments: an answer replay gave later than the decision it starts.
 * A bug of replay's, never of the log; the tests assert it never happens (test/replay-pacing.setup.ts).
 */
export const pacing = { okUnpaced: 0 }

/**
 * The walk's pace: the engine's decided events of the turn, counted as it appends them. Recorded
 * event i is reached once the engine has appended as many as the log has before it — its answer
 * is then given where the log gave it, whatever the engine did in between (a microtask or a
 * thousand). Only an engine that has not got there and has nothing left to do (no microtask, no
 * tool's own check running) has stopped short: a divergence (replayTurn walks the rest at quiet
 * moments).
 */
function followDecisions(
  log: StampingLog,
  recorded: readonly KernelEvent[],
  activity: Activity,
): { reached(i: number): Promise<boolean>; stop(): void } {
  const turnId = recorded[0]?.turnId
  const before: number[] = []
  let count = 0
  for (const event of recorded) {
    before.push(count)
    if (isDecided(event)) count++
  }
  let seen = 0
  let wake: (() => void) | undefined
  const subscription = log.events$.subscribe((event) => {
    if (event.turnId !== turnId || !isDecided(event)) return
    seen++
    wake?.()
  })
  const reached = async (need: number): Promise<boolean> => {
    while (seen < need) {
      const appended = new Promise<true>((resolve) => (wake = () => resolve(true)))
      if (!(await Promise.race([appended, activity.idle().then(() => false as const)]))) return seen >= need
    }
    return true
  }
  return {
    reached: (i) => reached(before[i] ?? count),
    stop: () => subscription.unsubscribe(),
  }
}

/** The first event after `i` the engine decides (a session's configuration and snapshots aside). */
function nextDecided(recorded: readonly KernelEvent[], i: number): KernelEvent | undefined {
  for (let j = i + 1; j < recorded.length; j++) if (isDecided(recorded[j] as KernelEvent)) return recorded[j]
  return undefined
}

/** A hook that finished after its step closed (it was abandoned by an abort and ran on). */
function lateHookEvent(event: KernelEvent, recording: Recording): event is EventOf<'hook.finished'> {
  if (event.type !== 'hook.finished') return false
  const closed = recording.calls.get(event.toolUseId)?.hookedEvents[event.phase]
  return closed !== undefined && event.seq > closed.seq
}

function drive(
  event: KernelEvent,
  recorded: KernelEvent[],
  i: number,
  turn: TurnControl,
  controller: AbortController,
  gates: Gates,
  mode: 'batch' | 'stream',
  recording: Recording,
  attempts: Map<string, number>,
  given: Set<KernelEvent>,
): void {
  const attemptAt = (toolUseId: string): number => attempts.get(toolUseId) ?? 1
  const answerOf = (answer: EventOf<'permission.answered'>): void => {
    given.add(answer)
    void turn.answer(answer.toolUseId, withoutEnvelope(answer) as EventOf<'permission.answered'>)
  }
  switch (event.type) {
    case 'tool.requested':
      if (mode === 'stream') turn.addIncoming(incoming(event))
      return
    case 'turn.ended':
      if (mode === 'stream') turn.end(event.stopReason)
      return
    case 'turn.aborted':
    case 'turn.discarded': {
      const flushed = flushedRun(recorded, i)
        .filter((e): e is EventOf<'tool.requested'> => e.type === 'tool.requested')
        .map(incoming)
      if (mode === 'batch' && event.type === 'turn.aborted') {
        if (!controller.signal.aborted) controller.abort(event.reason)
      } else turn.interrupt(event.type === 'turn.aborted' ? 'abort' : 'discard', event.reason, flushed)
      return
    }
    case 'tool.progress':
      gates.progress(event.toolUseId, event.data)
      return
    case 'tool.completed':
    case 'tool.errored':
      gates.release(`call:${event.toolUseId}:${attemptAt(event.toolUseId)}`, true)
      return
    case 'tool.cancelled':
      if (event.step === 'call') gates.release(`call:${event.toolUseId}:${attemptAt(event.toolUseId)}`, true)
      return
    case 'tool.retrying':
      gates.release(`call:${event.toolUseId}:${event.attempt}`, true)
      return
    case 'tool.restarted':
      attempts.set(event.toolUseId, event.attempt)
      gates.release(`backoff:${event.toolUseId}:${event.attempt - 1}`, true)
      return
    case 'tool.timed_out':
      // A 'block' tool's grace starts when its deadline fires: both fired by now.
      gates.release(`deadline:${event.toolUseId}`, true)
      gates.release(`grace:${event.toolUseId}`, true)
      return
    case 'budget.held':
      // The tool returned here; its result waited for its running siblings'.
      gates.release(`call:${event.toolUseId}:${attemptAt(event.toolUseId)}`, true)
      return
    case 'budget.decided': {
      // The held results returned before; the group is decided on the arrival of the one whose
      // tool.completed (or tool.errored) follows: that call's answer is given here, where the
      // decision it led to begins.
      for (const id of event.group) gates.release(`call:${id}:${attemptAt(id)}`, true)
      const next = nextDecided(recorded, i)
      if (next?.type === 'tool.completed' || next?.type === 'tool.errored')
        gates.release(`call:${next.toolUseId}:${attemptAt(next.toolUseId)}`, true)
      return
    }
    case 'tool.budgeted':
      // A save that failed fails again, with the recorded reason.
      gates.release(`save:${event.toolUseId}`, event.path ?? new SaveFailed(event.error ?? 'the save failed'))
      return
    case 'tool.validated':
    case 'tool.rejected': {
      // A hook that blocked: its step decided the rejection first, then the hook's own outcome.
      if (event.type === 'tool.rejected' && (event.step === 'preHook' || event.step === 'postHook'))
        gates.release(`hook:${event.toolUseId}:${event.step === 'preHook' ? 'pre' : 'post'}`, true)
      const validation = recording.calls.get(event.toolUseId)?.validation
      if (validation !== undefined) gates.release(`validate:${event.toolUseId}`, validation.answer)
      return
    }
    case 'hook.finished':
    case 'tool.hooked':
      gates.release(`hook:${event.toolUseId}:${event.phase}`, true)
      return
    case 'permission.pending':
      // The prompt deferred (or there was none): the call parked here.
      gates.release(`check:${event.toolUseId}`, true)
      gates.release(`perm:${event.toolUseId}`, { behavior: 'defer' })
      return
    case 'turn.parked':
      // Calls still running among the pending ones wait in a child session: park them here too.
      for (const id of event.pending) gates.park(id, true)
      return
    case 'turn.resumed': {
      gates.park(event.answered, false)
      // A person's answer resumed the turn: the engine decides turn.resumed, then the call's
      // permission.answered, on that one answer — which is given here, where its decision begins.
      const next = nextDecided(recorded, i)
      if (next?.type === 'permission.answered' && next.toolUseId === event.answered) answerOf(next)
      return
    }
    case 'permission.answered':
      // A person's answer is an outside answer: given to the parked call at its recorded moment
      // (unless the turn.resumed before it gave it already).
      if (!given.has(event)) answerOf(event)
      return
    case 'permission.requested':
    case 'permission.granted':
    case 'tool.permitted':
      gates.release(`check:${event.toolUseId}`, true)
      if (event.type === 'permission.granted' || (event.type === 'tool.permitted' && event.source === 'user'))
        gates.release(`perm:${event.toolUseId}`, recording.calls.get(event.toolUseId)?.answer)
      return
    default:
      return
  }
}

/**
 * The part of a turn the engine decided: a turn closed by recovery (the process died) is
 * compared up to the recovery, since replay cannot die the same way.
 */
function recordedPart(turn: KernelEvent[]): KernelEvent[] {
  const cut = turn.findIndex((e) => e.type === 'turn.recovered')
  return cut < 0 ? turn : turn.slice(0, cut)
}

/** A recorded event as an append takes it: its envelope (version, position, time) is the log's. */
function withoutEnvelope(event: KernelEvent): KernelEventInput {
  const { v: _v, seq: _seq, at: _at, ...input } = event
  return input as KernelEventInput
}

/**
 * Events as the engine decides them: without the envelope, keys in a canonical order, and without
 * the texts the log was taken at its word for (`given`: calls whose input check was not made).
 */
function normal(event: KernelEvent | KernelEventInput, given: ReadonlySet<string> = new Set()): string {
  const rest = withoutGivenText(withoutEnvelope(event as KernelEvent), given)
  // The configuration a turn ran with is an input, not a decision: a changed rule shows where it changes one.
  if (rest.type === 'turn.started') {
    delete (rest as { permissions?: unknown }).permissions
    delete (rest as { cwd?: unknown }).cwd
    // Read back from the log when present, defaulted when an older log lacks it: not a decision.
    delete (rest as { earlyStart?: unknown }).earlyStart
  }
  // Which hooks matched is configuration read back from the log (older logs lack it), not a decision.
  if (rest.type === 'tool.parsed') delete (rest as { hooks?: unknown }).hooks
  // A call's flags describe it for people and telemetry (older logs lack them); the decision they led to is compared.
  if (rest.type === 'tool.permitted' || rest.type === 'permission.pending') delete (rest as { flags?: unknown }).flags
  return canonicalJson(rest)
}

/**
 * An event the engine decides, which replay compares: the session's configuration is input to
 * replay, and a session snapshot (issue 33) a copy of what came before it; background shells are
 * outside facts (replay reads their recorded outputs and runs no shell).
 */
function isDecided(e: KernelEvent): boolean {
  return e.type !== 'session.configured' && e.type !== 'session.snapshot' && !isShellEvent(e)
}

function compare(
  recorded: readonly KernelEvent[],
  replayed: readonly KernelEvent[],
  given: ReadonlySet<string>,
): Divergence | undefined {
  const turnId = recorded[0]?.turnId ?? ''
  const was = recorded.filter(isDecided)
  const all = replayed.filter((e) => e.turnId === turnId && isDecided(e))
  // After a recovery cut, what the replayed turn did next (waiting, then being stopped) is not compared.
  const now = was.at(-1)?.type === 'turn.completed' ? all : all.slice(0, was.length)
  for (let k = 0; k < Math.max(was.length, now.length); k++) {
    const expected = was[k]
    const actual = now[k]
    if (expected !== undefined && actual !== undefined && normal(expected, given) === normal(actual, given)) continue
    const position = expected?.seq ?? (was.at(-1)?.seq ?? 0) + 1
    return { position, turnId, expected, actual, message: describeDivergence(position, expected, actual) }
  }
  return undefined
}

function describeDivergence(
  position: number,
  expected: KernelEvent | undefined,
  actual: KernelEventInput | undefined,
): string {
  const show = (e: KernelEvent | KernelEventInput | undefined) => {
    if (e === undefined) return 'nothing'
    const text = normal(e)
    return `${e.type} ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`
  }
  return `at event ${position}: the log has ${show(expected)}, but the engine now decides ${show(actual)}`
}
