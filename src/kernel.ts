/**
 * The composition root: wires the ports, the tool-call machine, the scheduler and the log.
 */
import { createMemoryLog } from './adapters/memory-log.store.js'
import { GuardedLog } from './actors/turn/guarded-log.js'
import { sessionConfigured } from './session-config.js'
import { loadBashGrammar } from './adapters/bash-grammar.js'
import { commandReadOnly, installedBashParser } from './permissions/shell/installed.js'
import { randomIds, systemClock } from './adapters/system.js'
import { PROGRESS_LOG_CHARS, type CallServices } from './actors/tool-call/call-scope.js'
import {
  clockTimers,
  DEFAULT_TIMEOUT_GRACE_MS,
  timingProblem,
  type CallTimers,
} from './actors/tool-call/call-timing.js'
import type { HookRunner } from './hooks/hook-runner.js'
import { createPermissionPolicy, PERMISSION_MODES, type CanUseTool, type PermissionMode } from './permissions/policy.js'
import { compileRules, deniedOutright, type RuleConfig, type RuleSet } from './permissions/ruleset.js'
import { Grants } from './permissions/grants.js'
import { DEFAULT_PROTECTED_NAMES, type PathJudge } from './permissions/paths.js'
import { realPathOf } from './adapters/real-path.js'
import { createHookRunner } from './hooks/runner.js'
import type { HooksConfig } from './hooks/config.js'
import { API_FORMATS, type ApiFormat, type ApiToolOf } from './tools/to-api-format.js'
import { KernelPool } from './tools/pool/kernel-pool.js'
import { poolSnapshot, type PoolSnapshot } from './tools/pool/assemble-pool.js'
import { checkDeferralOptions, type DeferralOptions } from './tools/pool/threshold.js'
import type { ToolSource } from './tools/tool-source.types.js'
import { provideToolCallMachine, type CallObserver } from './actors/tool-call/tool-call.actor.js'
import { startTurn, type TurnControl, type TurnDeps } from './actors/turn/turn.js'
import type { ChildCall, ChildRunner, TurnBelow } from './actors/tool-call/call-scope.js'
import type { ChildOptions, ChildSession } from './tools/child.types.js'
import {
  childScope,
  childSession,
  childSpecOf,
  type ChildSpec,
  type OpenChildTurn,
  type PolicyInputs,
  type Scope,
} from './child-scope.js'
import type { EarlyStart, PendingApproval, Turn, TurnResult } from './actors/turn/turn.types.js'
import { pendingApprovals, withChildTurns } from './projections/approvals.projection.js'
import type { GrantScope } from './permissions/grants.js'
import { answerEvent, resumedTurn } from './actors/turn/resume.js'
import { recover } from './events/recovery.js'
import { toolUsesOf, type AssistantMessage } from './intake/assistant-message.js'
import type { KernelEvent, KernelEventInput } from './events/event.schema.js'
import { projectTurnMessage } from './projections/messages.projection.js'
import { toOpenAIToolMessages, type OpenAIToolMessage } from './projections/openai.projection.js'
import { toResponsesInputItems, type ResponsesToolOutputItem } from './projections/openai-responses.projection.js'
import { toMessageParam, type ToolResultMessageParam } from './intake/message-param.js'
import { checkOptionsObject } from './util/known-options.js'
import type { EventLog, ResultStore, SessionState, ShellAnalyzer, ToolPorts } from './ports/index.js'
import type { EventStore } from './ports/event-store.port.js'
import { openSession, type OpenedSession, type SessionLeaseOptions } from './adapters/session-event.store.js'
import { createFileSearch } from './adapters/file-search.js'
import { createWebClient } from './adapters/web-client.js'
import { nodeFileSystem } from './adapters/node-fs.js'
import { createDefaultResultStore } from './adapters/result-store.js'
import { DEFAULT_MESSAGE_BUDGET_CHARS } from './actors/turn/budget.js'
import { isAbsolute } from 'node:path'
import { createProcessRunner } from './adapters/process-runner.js'
import { createBackgroundShells } from './adapters/background-shells.js'
import type { ChildEnvironmentOptions } from './adapters/child-environment.js'
import type { SandboxProvider } from './ports/sandbox.port.js'
import {
  buildSandboxes,
  checkSandboxOptions,
  withSandboxed,
  type SandboxConfig,
  type SandboxOptions,
} from './sandbox-config.js'
import { ToolRegistry } from './tools/tool-registry.js'
import { checkApiToolsOptions, checkKernelOptions, checkTurnOptions } from './kernel-options.js'
import type { Tool } from './tools/tool.types.js'
import type { KernelProgressByName } from './tools/progress.types.js'
import { SessionContext } from './actors/turn/session-context.js'
import { realDirectoryOf } from './adapters/real-directory.js'
import type { SessionView } from './tools/context-change.js'
import { callToolAsTurn, type CallToolOptions, type CallToolResult } from './call-tool.js'
import { checkSnapshotEvery, snapshotWriter } from './actors/turn/snapshot-writer.js'

export const DEFAULT_MAX_CONCURRENCY = 10

export interface KernelOptions {
  tools: readonly Tool[]
  /** Working directory handed to tools. Default `process.cwd()`. */
  cwd?: string
  /** Most calls running at once. Default: env `TOOLKERNEL_MAX_CONCURRENCY`, else 10. */
  maxConcurrency?: number
  /**
   * Asked when a call needs approval. It may answer at once, or `{ behavior: 'defer' }`: the call
   * parks for `kernel.answer` (docs/approvals.md). Without it, every "ask" parks.
   */
  canUseTool?: CanUseTool
  /**
   * What an "ask" nobody answers in the turn does: `'park'` (default) — the call waits for
   * `kernel.answer`, in this process or another, and the turn settles with it in `pending`; or
   * `'deny'` — it is denied at once with a message saying the app cannot ask (for apps that can
   * never wait for a person).
   */
  approvals?: 'park' | 'deny'
  /**
   * Permission rules and mode, written as in Claude Code's settings.json:
   * `{ mode: 'default', allow: ['Bash(npm run test:*)'], deny: ['Read(./.env)'] }`.
   */
  permissions?: RuleConfig & {
    mode?: PermissionMode
    /**
     * More directories whose changes always ask, in every mode: names (`secrets`, protected
     * wherever they appear) or absolute paths. Always protected: .git, .claude, .vscode, .idea.
     */
    protect?: readonly string[]
  }
  /** PreToolUse / PostToolUse / PostToolUseFailure hooks: shell commands or in-process functions. */
  hooks?: HooksConfig
  /** Text progress per call kept in the log before a note replaces the rest. Default 32,000. */
  progressLogChars?: number
  /** Which calls may start while the model is still streaming (docs/design.md §Scheduling). Default 'safe'. */
  earlyStart?: EarlyStart
  /** Where oversize output is persisted (the budget step). Default: a directory under the OS temp dir. */
  results?: ResultStore
  /** Characters one turn's message may carry before fresh results are persisted. Default 200,000. */
  messageBudgetChars?: number
  /**
   * The event log. Default: in memory, keeping every event; for a long session keep only recent
   * turns with `log: createMemoryLog(clock, { retainTurns: n })`.
   */
  log?: EventLog
  /**
   * A shared event store (PostgreSQL from `toolkernel/postgres`, a JSONL directory, memory): with
   * `session`, the kernel takes the session's lease, reads its stream, recovers calls a crashed
   * owner left open, and continues at the stream's version. Turns wait until that is done.
   */
  store?: EventStore
  /** The session this kernel runs (the store's stream): a session id such as `session-42`. */
  session?: string
  /** The session's lease on the store: owner name, time to live, how long to wait for a crashed owner's. */
  lease?: SessionLeaseOptions
  /**
   * The environment of Bash and command hooks: built from an allowlist (PATH, HOME, USER, SHELL,
   * the locale, TZ, TMPDIR …), never the app's whole `process.env`. `allow` adds names (a
   * trailing `*` is a prefix); `set` adds or overrides values.
   */
  environment?: ChildEnvironmentOptions
  /**
   * An OS sandbox for Bash and command hooks (docs/sandbox.md): `mode` `read-only`,
   * `workspace-write` or `off`; `network` `'off'` (default), `'on'` or `{ allowDomains }` (through a
   * proxy); more `writable` paths; a tool's own settings in `tools`. Where it cannot run (no
   * bubblewrap), calls fail, never unsandboxed.
   */
  sandbox?: SandboxOptions
  /**
   * Every capability the kernel and the tools use, replaceable in one place (tests, replay, an
   * app's own file system): time, ids, the file system, the shell, file search, the web
   * (WebFetch), and the hook runner (which replaces running the `hooks` configuration
   * altogether). Default: the real ones.
   */
  ports?: KernelPorts
  /**
   * Sets of tools that change while the kernel runs (MCP servers, plugins): read between turns,
   * each change recorded as `pool.changed`.
   */
  toolSources?: readonly ToolSource[]
  /**
   * The provider format the model talks: what ToolSearch answers in (`tool_reference` blocks for
   * Anthropic, definitions as text otherwise) and what `pool.assembled` hashes. Default 'anthropic'.
   */
  toolFormat?: ApiFormat
  /**
   * When deferrable tools (`shouldDefer`) are deferred. Default: automatically, past 10 % of
   * 200,000 tokens or 100 tools.
   */
  deferral?: DeferralOptions
  /**
   * The deadline, in milliseconds, for every tool that declares no `timeoutMs` of its own: at it
   * a 'cancel' tool is aborted and a 'block' tool, after `timeoutGraceMs`, abandoned; the model
   * reads a `timed_out` result. Default: none. Bash and MCP tools keep their own timeouts.
   */
  toolTimeoutMs?: number
  /** What a 'block' tool gets past its deadline to finish before it is abandoned. Default 1,000 ms. */
  timeoutGraceMs?: number
  /**
   * Records a `session.snapshot` every this many top-level turns (issue 33): what a resume needs
   * of the log so far, so a store opens the session from its last snapshot, not its whole
   * stream (docs/stores.md §Snapshots). 0 or false: none. Default 50.
   */
  snapshotEvery?: number | false
}

/** The capabilities `createKernel` takes in `ports`; each defaults to the real one. */
export interface KernelPorts extends Partial<Pick<ToolPorts, 'clock' | 'ids' | 'fs' | 'processes' | 'search' | 'web'>> {
  readonly hookRunner?: HookRunner
  /** What builds the `sandbox` option's sandboxes. Default: bubblewrap found on PATH. */
  readonly sandbox?: SandboxProvider
}

/**
 * A person's answer to a parked call: allow (once, or for the session with `grant`; with edited
 * input, validated again), or deny with a message for the model. `digest`, when given, must be
 * the pending call's: an answer for other input is refused.
 */
export type ApprovalAnswer =
  | { behavior: 'allow'; updatedInput?: unknown; grant?: GrantScope; digest?: string }
  | { behavior: 'deny'; message: string; digest?: string }

/** What each provider format gets back for a turn: the shape `kernel.handOver({ format })` returns. */
export interface HandOverMessageOf {
  anthropic: ToolResultMessageParam
  'openai-chat': OpenAIToolMessage[]
  'openai-responses': ResponsesToolOutputItem[]
}

/**
 * The session's last turn as a process that takes the session over finds it: the `tool_result`
 * message(s) to send next, in the provider's format, and whether recovery closed it.
 */
export interface HandOver<F extends ApiFormat = 'anthropic'> {
  turnId: string
  /** The turn's results (all of them once it is over), as `runTurn` would have returned them. */
  message: HandOverMessageOf[F]
  /** Calls of it still waiting for a person: answer them with `kernel.answer`, then send. */
  pending: PendingApproval[]
  /** Recovery closed it: the process that ran it ended before it finished (some results say so). */
  recovered: boolean
  /** Every call of it has its result. */
  over: boolean
}

export interface TurnOptions {
  /** Interrupts the turn: queued calls are cancelled, running 'cancel' tools aborted. */
  signal?: AbortSignal
}

export interface StreamTurnOptions extends TurnOptions {
  /** Which calls may start while the model is still streaming. Default: the kernel's. */
  earlyStart?: EarlyStart
}

export interface Kernel<P = unknown> {
  readonly log: EventLog
  readonly tools: readonly Tool[]
  /**
   * The `tools` request parameter for a provider: the pool of the next turn — enabled tools, less
   * those a rule denies outright or the mode leaves out; deferred tools as the provider defers
   * them (Anthropic and OpenAI Responses `defer_loading`; OpenAI Chat: left out until loaded).
   * Applies pool changes waiting for a turn boundary first. Default format: 'anthropic'.
   *
   * @example
   * await openai.chat.completions.create({ model, messages, tools: kernel.apiTools({ format: 'openai-chat' }) })
   */
  apiTools<F extends ApiFormat = 'anthropic'>(options?: { format: F }): Array<ApiToolOf[F]>
  /** Adds tools between turns (recorded as `pool.changed`, source 'app'). @throws Error for a name already taken. */
  registerTools(tools: readonly Tool[]): void
  /** Removes tools the app registered, between turns. @throws Error for a name that is not the app's. */
  removeTools(names: readonly string[]): void
  /** Re-reads the tool sources now (between turns they are read anyway) and applies waiting changes. */
  refreshTools(): PoolSnapshot
  /**
   * Loads deferred tools for the model (how: 'app'; recorded at the next turn's start).
   * @throws Error for a name that is not a deferred tool of the pool.
   */
  loadTools(names: readonly string[]): void
  /**
   * Runs every tool call of an assistant message and answers each with one `tool_result`. Takes
   * the SDKs' own values with no cast: an `Anthropic.Message`; an OpenAI `ChatCompletionMessage`,
   * `ChatCompletion.Choice` or whole `ChatCompletion` (one choice); an OpenAI Responses `Response`
   * or its `output` array. Rejects only for a malformed or misdirected value (the app's bug, with
   * a TypeError naming the method to call instead); whatever a tool does, it resolves. A message
   * that did not end in tool use (`max_tokens`, `length`, `content_filter`, an incomplete
   * response) runs nothing: every call is voided with a result that says why.
   *
   * @example
   * const response = await anthropic.messages.create({ model, max_tokens, messages, tools: kernel.apiTools() })
   * const { message } = await kernel.runTurn(response)
   * messages.push({ role: 'assistant', content: response.content }, message)
   */
  runTurn(message: AssistantMessage, options?: TurnOptions): Promise<TurnResult>
  /**
   * Starts a streaming turn: push the model's stream events as they arrive; safe calls start
   * while the model is still talking.
   *
   * @example
   * const turn = kernel.startTurn({ signal })
   * for await (const event of stream) turn.push(event)
   * const { message } = await turn.result()
   */
  startTurn(options?: StreamTurnOptions): Turn<P>
  /**
   * A kernel like this one over a stored log: turns the log left open (a crash) are closed first
   * with interrupted results (`recover`), and the session's grants are honoured.
   */
  resume(log: EventLog): Kernel
  /**
   * The calls parked for a person's answer in this session (docs/approvals.md), read from the log:
   * a kernel that resumes the session — in another process, after a crash — lists the same.
   */
  pendingApprovals(): PendingApproval[]
  /**
   * Answers a parked call and goes on with its turn: resolves with the turn's next result — the
   * whole message once no call is pending, the same as if the turn had never paused. An answer is
   * bound to the input the person saw (pass the pending call's `digest` to make sure) and is given
   * once.
   *
   * @throws Error when no call `toolUseId` is waiting (never parked, already answered, already
   * has its result), or the digest names other input; TypeError for an answer of the wrong shape.
   * @example
   * let result = await kernel.runTurn(response)
   * for (const call of result.pending) result = await kernel.answer(call.toolUseId, await askPerson(call))
   * messages.push({ role: 'assistant', content: response.content }, result.message)
   */
  answer(toolUseId: string, answer: ApprovalAnswer): Promise<TurnResult>
  /**
   * Runs one tool call the app makes itself, outside a model turn: a turn of one `tool_use`
   * block (id `call_…`), through all nine steps — validation, hooks, permissions, budget — and
   * into the log like any other. Resolves with the call's `tool_result` block, the tool's output
   * and the turn's events; whatever the tool does, it resolves. A call whose ask nobody answers
   * parks: `pending` lists it and `kernel.answer` goes on with it (docs/approvals.md).
   *
   * @throws Error for a name that is no tool of the kernel (the app's bug, not the model's);
   * TypeError for options of the wrong shape.
   * @example
   * const { result, output } = await kernel.callTool('Read', { file_path: '/repo/README.md' })
   */
  callTool(name: string, input: unknown, options?: CallToolOptions): Promise<CallToolResult>
  /**
   * Sets the permission mode between turns (docs/session-context.md): in force at once — the
   * pool, the permission policy and the hooks' `permission_mode` follow it — and recorded as
   * `session.changed` with the next turn's start; resume and replay honour it.
   * @throws Error for a mode that is not one of PERMISSION_MODES, or while a turn is running.
   */
  setMode(mode: PermissionMode): void
  /** The session as it stands: working directory, environment entries, app data, mode. */
  readonly session: SessionView
  /**
   * What to send next when this kernel takes a session over (another process ran it, or crashed
   * in it): the last turn's `tool_result` message(s) in the provider's format — after a crash,
   * with the results recovery gave the calls that were cut off. The app keeps the conversation;
   * when it ends with that turn's assistant message, this is what goes after it
   * (docs/stores.md). Undefined for a session without turns. Default format: 'anthropic'.
   *
   * @example
   * await kernel.ready()
   * const last = kernel.handOver()
   * if (last !== undefined && last.pending.length === 0) messages.push(last.message)
   */
  handOver<F extends ApiFormat = 'anthropic'>(options?: { format: F }): HandOver<F> | undefined
  /**
   * Settles once the kernel can start turns: a store-backed session is open, the tools'
   * descriptions are resolved (asynchronous ones awaited; docs/pool.md §Descriptions). Rejects if
   * the session cannot open, or with the error of a description that fails, naming its tool.
   */
  ready(): Promise<void>
  /**
   * Stops every background shell this kernel started (Bash `run_in_background`; SIGTERM to each
   * process group, SIGKILL after a grace) and records their exits, then makes the log durable and,
   * for a store-backed session, stops renewing and gives its lease up.
   */
  close(): Promise<void>
  /**
   * The same as `close()`, under the name resource-owning objects use; where the runtime has
   * `Symbol.asyncDispose`, the kernel has it too (`await using kernel = createKernel(…)`).
   */
  dispose(): Promise<void>
}

/**
 * What replay drives: a turn with the mode and early-start policy a recorded turn had.
 * @internal Not in the published types (stripInternal): it reaches the engine's own types.
 */
export interface KernelInternals extends Kernel {
  /** Opens a turn; with `child`, a child turn as the log recorded it (replay). */
  openTurn(
    mode: 'batch' | 'stream',
    earlyStart: EarlyStart,
    child?: { spec: ChildSpec; parentToolUseId: string },
  ): TurnControl
}

/**
 * Creates a kernel.
 *
 * @throws Error for options that could never work: tools that share a name, a bad rule, a bad
 * concurrency cap, a bad hooks configuration.
 * @example
 * const kernel = createKernel({ tools: [echo], cwd: process.cwd() })
 * const { message } = await kernel.runTurn(assistantMessage)
 */
export function createKernel<const O extends KernelOptions>(options: O): Kernel<KernelProgressByName<O>> {
  // The progress type is the tools' own, keyed by tool name: an update's `tool` narrows its data (decisions 144, 173).
  return createKernelInternals(options) as Kernel<KernelProgressByName<O>>
}

/** The kernel with what replay needs to drive recorded turns. @internal Not in the published types. */
export function createKernelInternals(
  options: KernelOptions,
  internal: {
    legacyDispatch?: boolean
    observeCalls?: CallObserver
    timers?: CallTimers
    /** Asked as each turn opens: claim the budget as results arrive (replay of a log from before budget.decided). */
    budgetByArrival?: () => boolean
  } = {},
): KernelInternals {
  checkKernelOptions(options)
  const snapshotEvery = checkSnapshotEvery(options.snapshotEvery)
  if (options.store !== undefined || options.session !== undefined) return storeKernel(options)
  const clock = options.ports?.clock ?? systemClock
  const ids = options.ports?.ids ?? randomIds
  const live = new Set<TurnControl>()
  // A failing store stops every running turn (after the append that failed has returned).
  const log = new GuardedLog(options.log ?? createMemoryLog(clock), clock, (reason) =>
    queueMicrotask(() => {
      for (const turn of live) turn.interrupt('fail', reason)
    }),
  )
  const config = resolveConfig(options)
  // The session's cwd, env, data and mode, as the log has changed them (docs/session-context.md).
  const session = new SessionContext(
    { workspace: config.cwd, mode: config.mode, directory: realDirectoryOf },
    log.read(),
  )
  const pool = new KernelPool({
    tools: config.registry.tools,
    sources: options.toolSources ?? [],
    registry: config.registry,
    denied: (tool) => deniedOutright(config.rules, tool),
    mode: () => session.mode,
    cwd: () => session.cwd,
    format: config.toolFormat,
    deferral: options.deferral,
    log,
    busy: () => live.size > 0,
  })
  const timers = internal.timers ?? clockTimers(clock)
  // Issue 33: a snapshot every N turns, so a store resumes from it (docs/stores.md §Snapshots).
  const snapshots = snapshotWriter(snapshotEvery, log)
  // Grants live in the log: a kernel over a resumed log honours the ones given before.
  const grants = Grants.fromLog(log.read(), config.judge)
  const children: ChildRunner = { open: (call, childOptions) => openChild(call, childOptions) }
  const services: CallServices = {
    ...buildServices(options, config, log, { clock, ids, timers, grants }, () => offeredNames(pool), session),
    children,
  }
  const grammar = loadShellGrammar(config.registry)
  const machine = provideToolCallMachine(internal.observeCalls)
  const turnDeps = (turnId = ids.next('turn')): TurnDeps => ({
    ready: installedBashParser() === undefined ? grammar : undefined,
    logFailure: () => log.failure,
    turnId,
    log,
    services,
    machine,
    maxConcurrency: config.maxConcurrency,
    legacyDispatch: internal.legacyDispatch === true,
    messageBudget: config.messageBudget,
    budgetByArrival: internal.budgetByArrival?.() === true,
    permissions: config.permissions,
  })

  let configured = false
  /** Logs the kernel's configuration with the first turn it starts or goes on with. */
  const configure = (turnId: string): void => {
    if (configured) return
    configured = true
    log.append(
      sessionConfigured(turnId, {
        ...config,
        tools: config.registry.tools,
        hooks: options.hooks,
        asks: options.canUseTool !== undefined,
        approvals: config.approvals,
        ...(pool.dynamic ? { pool: pool.settings() } : {}),
      }),
    )
    pool.noteRecorded()
  }
  const refuseFailedLog = (): void => {
    if (log.failure !== undefined) {
      throw new Error(
        `toolkernel: ${log.failure}. The event log failed earlier, so no new turn can be recorded; create a kernel over a working log (kernel.resume(log) closes what was cut off)`,
      )
    }
  }
  /** Turns of this kernel not yet over, running or parked, by id: an answer goes on with the turn in hand. */
  const inHand = new Map<string, TurnControl>()
  /** Tracks a turn while it runs (a failing log stops it) and until it is over (answers reach it). */
  const track = (turn: TurnControl): void => {
    live.add(turn)
    inHand.set(turn.turnId, turn)
    void turn.result().then((result) => {
      live.delete(turn)
      if (result.pending.length === 0) inHand.delete(turn.turnId)
    })
  }
  // Child sessions (docs/subagents.md): each child turn's scope and the turn its parent call is in.
  const root: Scope = {
    tools: () => config.registry.tools,
    rules: withSandboxed(config.rules, services.ports.sandbox),
    permissions: () => ({ ...config.permissions, mode: session.mode }),
    mode: () => session.mode,
    services,
  }
  const scopes = new Map<string, Scope>()
  const parentTurn = new Map<string, string>()
  const policyInputs: PolicyInputs = {
    cwd: config.cwd,
    judge: config.judge,
    grants,
    canUseTool: options.canUseTool,
    approvals: config.approvals,
    shell: KERNEL_SHELL,
    pool: { deferral: options.deferral, format: config.toolFormat, disabled: (name) => pool.isDisabled(name) },
  }
  const openChildTurn: OpenChildTurn = (scope, spec, under, how) => {
    refuseFailedLog()
    const turnId = ids.next('turn')
    scopes.set(turnId, scope)
    parentTurn.set(turnId, spec.parentTurnId)
    log.nest(turnId, under.toolUseId)
    const deps: TurnDeps = {
      ...turnDeps(turnId),
      services: scope.services,
      permissions: scope.permissions(),
      messageBudget: spec.messageBudgetChars ?? config.messageBudget,
      child: spec,
      parentCall: under.opened(),
    }
    const turn = startTurn(deps, { mode: how.mode, earlyStart: how.earlyStart ?? config.earlyStart })
    track(turn)
    return turn
  }
  function openChild(call: ChildCall, childOptions: ChildOptions | undefined): ChildSession {
    const parent = scopes.get(call.turnId) ?? root
    const spec = childSpecOf(parent, call, childOptions)
    const scope = childScope(parent, spec, policyInputs, call.toolUseId)
    return childSession(
      call,
      spec,
      scope,
      { maxTurns: childOptions?.budget?.maxTurns, signal: childOptions?.signal },
      openChildTurn,
    )
  }
  /** The turns a child turn runs under, nearest first. */
  const ancestorsOf = (turnId: string): string[] => {
    const chain: string[] = []
    for (let up = parentTurn.get(turnId); up !== undefined; up = parentTurn.get(up)) chain.push(up)
    return chain
  }

  /** A turn the kernel tracks while it runs, so a failing log can stop it. */
  const open = (mode: 'batch' | 'stream', early: EarlyStart): TurnControl => {
    refuseFailedLog()
    // The descriptions of this turn's pool are resolved before it starts (docs/decisions/tools.md #153).
    pool.prepare('a turn cannot start')
    const turn = startTurn(turnDeps(), { mode, earlyStart: early })
    configure(turn.turnId)
    for (const event of session.takePending(turn.turnId)) log.append(event)
    pool.beginTurn(turn.turnId)
    snapshots?.atTurnStart(turn.turnId)
    track(turn)
    return turn
  }

  async function answer(toolUseId: string, given: ApprovalAnswer): Promise<TurnResult> {
    refuseFailedLog()
    const events = log.read()
    const event = answerEvent(pendingApprovals(events), events, toolUseId, given)
    const turn = inHand.get(event.turnId)
    if (turn !== undefined) {
      const next = turn.answer(toolUseId, event)
      if (!live.has(turn)) track(turn)
      // A child's call (docs/subagents.md): the answer moved every turn above it on; the app
      // goes on with the outermost one.
      const above = ancestorsOf(turn.turnId).flatMap((id) => inHand.get(id) ?? [])
      for (const ancestor of above) if (!live.has(ancestor)) track(ancestor)
      return above.at(-1)?.result() ?? next
    }
    if (pendingApprovals(events).some((p) => p.toolUseId === toolUseId && p.parentToolUseId !== undefined))
      throw new Error(
        `tool call ${toolUseId} waits in a child session whose parent call is not running in this kernel; it cannot go on`,
      )
    // The turn was parked by another kernel (another process, before a crash): read it back.
    if (grammar !== undefined && installedBashParser() === undefined) await grammar
    log.append({ type: 'turn.resumed', turnId: event.turnId, answered: toolUseId })
    configure(event.turnId)
    log.append(event)
    const resumed = resumedTurn(log.read(), event.turnId)
    const goesOn = startTurn(turnDeps(event.turnId), resumed.config, resumed)
    track(goesOn)
    return goesOn.result()
  }

  async function runTurn(message: AssistantMessage, turnOptions: TurnOptions = {}): Promise<TurnResult> {
    checkTurnOptions('kernel.runTurn', turnOptions)
    const { uses, stopReason } = toolUsesOf(message)
    const voids = stopReason !== null && stopReason !== 'tool_use'
    // A message cut short, or a turn already aborted, must start nothing before its end voids it.
    const hold = voids || turnOptions.signal?.aborted === true
    if (grammar !== undefined && installedBashParser() === undefined) await grammar
    if (pool.late) await pool.described()
    const turn = open('batch', hold ? 'none' : 'all')
    for (const use of uses) turn.addIncoming(use)
    turn.attach(turnOptions.signal)
    turn.end(voids ? stopReason : 'tool_use')
    return turn.result()
  }

  // Background shells first: their exits are events, made durable with the rest.
  async function close(): Promise<void> {
    await services.ports.shells?.closeAll()
    // The sandbox's allowDomains proxy (docs/decisions/processes.md, 163).
    await services.ports.sandbox?.close?.()
    // The spawner process of the runner it made; an app's own runner may serve other kernels
    // (docs/decisions/processes.md, 164).
    if (options.ports?.processes === undefined) await services.ports.processes.close?.()
    await log.fence?.()
  }

  return {
    log,
    get tools() {
      return pool.tools
    },
    apiTools: <F extends ApiFormat = 'anthropic'>(apiOptions?: { format: F }) => {
      checkApiToolsOptions(apiOptions)
      return pool.apiTools(checkFormat(apiOptions?.format ?? 'anthropic') as F)
    },
    registerTools: (tools) => pool.register(assertTools(tools, 'registerTools')),
    removeTools: (names) => pool.remove(names),
    refreshTools: () => {
      pool.sync()
      return poolSnapshot(pool.current())
    },
    loadTools: (names) => pool.loadByApp(names),
    setMode: (mode) => {
      if (live.size > 0 && PERMISSION_MODES.includes(mode))
        throw new Error(
          'kernel.setMode: a turn is running; set the mode between turns (a tool changes it with changeContext)',
        )
      session.setMode(mode)
      // Descriptions that read the mode are asked again now (docs/decisions/tools.md #153).
      pool.contextChanged()
    },
    get session() {
      return session.view()
    },
    runTurn,
    callTool: async (name, input, callOptions = {}) => {
      checkTurnOptions('kernel.callTool', callOptions)
      pool.sync()
      const deps = {
        nextId: () => ids.next('call'),
        hasTool: (tool: string) => config.registry.find(tool) !== undefined,
        toolNames: () => config.registry.names(),
        runTurn,
      }
      return await callToolAsTurn(deps, name, input, callOptions)
    },
    pendingApprovals: () => pendingApprovals(log.read()),
    handOver: <F extends ApiFormat = 'anthropic'>(handOptions?: { format: F }) =>
      handOverOf(log.read(), checkHandOverFormat(handOptions)) as HandOver<F> | undefined,
    answer,
    openTurn: (mode, early, child) => {
      if (child === undefined) return open(mode, early)
      // Replay: the child turn as recorded, under a parent call whose stand-in answers as it did
      // and parks where the recording parked (so it hears nothing from the turn).
      const parent = scopes.get(child.spec.parentTurnId) ?? root
      const scope = childScope(parent, child.spec, policyInputs, child.parentToolUseId)
      const under = {
        toolUseId: child.parentToolUseId,
        opened: (): TurnBelow => ({ park: () => undefined, over: () => undefined }),
      }
      return openChildTurn(
        scope,
        child.spec,
        under,
        mode === 'batch' ? { mode, earlyStart: early === 'none' ? 'none' : 'all' } : { mode, earlyStart: early },
      )
    },
    ready: async () => {
      if (grammar !== undefined) await grammar
      await pool.described()
    },
    close,
    dispose: close,
    ...asyncDisposer(close),
    resume: (stored) => {
      for (const event of recover(stored.read())) stored.append(event)
      // The JSONL log writes at a fence synchronously; a failure shows at the next turn's fence.
      stored.fence?.().catch(() => undefined)
      const resumed = createKernelInternals({ ...options, tools: pool.appTools(), log: stored })
      // A mode the app set that no turn has recorded yet goes with it.
      for (const mode of session.pendingModes()) resumed.setMode(mode)
      return resumed
    },
    startTurn: (turnOptions = {}) => {
      checkTurnOptions('kernel.startTurn', turnOptions)
      const turn = open('stream', turnOptions.earlyStart ?? config.earlyStart)
      turn.attach(turnOptions.signal)
      return turn
    },
  }
}

/**
 * A kernel over a session in a shared store: opens the session (lease, stream, recovery of what
 * a crashed owner left open), then is the kernel over that log. Until then, `runTurn` waits and
 * `startTurn` asks for `await kernel.ready()`.
 */
function storeKernel(options: KernelOptions): KernelInternals {
  const { store, session, lease, ...rest } = options
  if (store === undefined || session === undefined)
    throw new TypeError('createKernel: `store` and `session` go together (the session is the stream in the store)')
  const clock = options.ports?.clock ?? systemClock
  let inner: KernelInternals | undefined
  let opened: OpenedSession | undefined
  const opening = openSession(store, session, clock, lease).then(async (open) => {
    opened = open
    for (const event of recover(open.log.read())) open.log.append(event)
    await open.log.fence()
    inner = createKernelInternals({ ...rest, log: open.log })
  })
  // Why the session did not open, for the members used after (ready() rejects with it as it is).
  let failed: { error: unknown } | undefined
  opening.catch((error: unknown) => void (failed = { error }))
  const get = (): KernelInternals => {
    if (inner !== undefined) return inner
    if (failed !== undefined)
      throw new Error(
        `toolkernel: session ${session} could not be opened: ${failed.error instanceof Error ? failed.error.message : String(failed.error)}`,
        { cause: failed.error },
      )
    throw new Error(`toolkernel: session ${session} is still opening; await kernel.ready() before starting a turn`)
  }
  let shape: KernelInternals | undefined
  const close = async (): Promise<void> => {
    await opening.catch(() => undefined)
    await inner?.close()
    await opened?.close()
  }
  const own: Partial<KernelInternals> = {
    apiTools: ((apiOptions?: { format: ApiFormat }) =>
      (inner ?? (shape ??= createKernelInternals({ ...rest, log: createMemoryLog(clock) }))).apiTools(
        apiOptions,
      )) as KernelInternals['apiTools'],
    runTurn: async (message, turnOptions) => (await opening, get().runTurn(message, turnOptions)),
    callTool: async (name, input, callOptions) => (await opening, get().callTool(name, input, callOptions)),
    ready: async () => (await opening, await get().ready()),
    close,
    dispose: close,
    ...asyncDisposer(close),
  }
  // Everything else is the opened kernel's (members added to Kernel follow without a change here).
  return new Proxy(own as KernelInternals, {
    get: (target, key) => {
      if (key in target) return target[key as keyof KernelInternals]
      // Not a kernel member: \`await kernel\` reads \`then\`, inspection reads symbols. Both see none.
      if (key === 'then' || typeof key === 'symbol') return undefined
      if (key === 'tools' && inner === undefined) return options.tools
      const value: unknown = get()[key as keyof KernelInternals]
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(inner) : value
    },
  })
}

/** Everything decided from the options alone, checked once: what cannot work throws here. */
interface KernelConfig {
  registry: ToolRegistry
  cwd: string
  mode: PermissionMode
  maxConcurrency: number
  earlyStart: EarlyStart
  messageBudget: number
  messageBudgetChars: number
  toolFormat: ApiFormat
  progressLogChars: number
  judge: PathJudge
  rules: RuleSet
  /** The rules as written, recorded in the log for replay. */
  permissions: { mode: PermissionMode; allow: string[]; ask: string[]; deny: string[]; allowSandboxed?: string[] }
  approvals: 'park' | 'deny'
  /** Deadlines (docs/design.md §Deadlines and retries). */
  timing: { defaultTimeoutMs: number | undefined; graceMs: number }
  /** The sandbox option, checked (recorded in the log). */
  sandbox: SandboxConfig | undefined
}

function resolveConfig(options: KernelOptions): KernelConfig {
  const registry = new ToolRegistry(assertTools(options.tools))
  const cwd = options.cwd ?? process.cwd()
  const mode = options.permissions?.mode ?? 'default'
  if (!PERMISSION_MODES.includes(mode))
    throw new Error(
      `createKernel: permissions.mode must be one of ${PERMISSION_MODES.join(', ')}, got ${JSON.stringify(mode)}`,
    )
  const protect = options.permissions?.protect ?? []
  const judge: PathJudge = {
    cwd,
    realPath: realPathOf,
    protectedNames: [...DEFAULT_PROTECTED_NAMES, ...protect.filter((p) => !isAbsolute(p))],
    protectedDirs: protect.filter((p) => isAbsolute(p)),
  }
  const messageBudget = options.messageBudgetChars ?? DEFAULT_MESSAGE_BUDGET_CHARS
  checkDeferralOptions(options.deferral)
  const approvals = options.approvals ?? 'park'
  if (approvals !== 'park' && approvals !== 'deny')
    throw new Error(`createKernel: approvals must be 'park' or 'deny', got ${JSON.stringify(approvals)}`)
  const timing = timingProblem(options.toolTimeoutMs, options.timeoutGraceMs)
  if (timing !== undefined) throw new RangeError(timing)
  return {
    approvals,
    timing: {
      defaultTimeoutMs: options.toolTimeoutMs,
      graceMs: options.timeoutGraceMs ?? DEFAULT_TIMEOUT_GRACE_MS,
    },
    toolFormat: checkFormat(options.toolFormat ?? 'anthropic'),
    registry,
    cwd,
    mode,
    maxConcurrency: resolveMaxConcurrency(options.maxConcurrency, process.env.TOOLKERNEL_MAX_CONCURRENCY),
    earlyStart: options.earlyStart ?? 'safe',
    messageBudget,
    messageBudgetChars: messageBudget,
    progressLogChars: options.progressLogChars ?? PROGRESS_LOG_CHARS,
    judge,
    rules: compileRules(options.permissions, registry.tools, judge),
    sandbox: checkSandboxOptions(options.sandbox),
    permissions: {
      mode,
      allow: [...(options.permissions?.allow ?? [])],
      ask: [...(options.permissions?.ask ?? [])],
      deny: [...(options.permissions?.deny ?? [])],
      ...(options.permissions?.allowSandboxed !== undefined && {
        allowSandboxed: [...options.permissions.allowSandboxed],
      }),
    },
  }
}

/**
 * The shell analysis the kernel hands its tools (`ports.shell`) and their predicates: the one its
 * permission rules use, with the grammar `loadShellGrammar` loads, so a command is analysed once.
 */
const KERNEL_SHELL: ShellAnalyzer = { readOnly: commandReadOnly }

/** The ports, hook runner and permission policy every call of this kernel uses. */
function buildServices(
  options: KernelOptions,
  config: KernelConfig,
  log: GuardedLog,
  { clock, ids, timers, grants }: Pick<ToolPorts, 'clock' | 'ids'> & { timers: CallTimers; grants: Grants },
  offered: () => readonly string[],
  session: SessionContext,
): CallServices {
  const { registry, rules, cwd, judge } = config
  const record = (event: KernelEventInput): void => void log.append(event)
  const sessionId = ids.next('session')
  const env = options.environment
  const results = options.results ?? createDefaultResultStore()
  const sandboxes = buildSandboxes(
    config.sandbox,
    { ...judge, ...(results.dir === undefined ? {} : { resultsDir: results.dir }) },
    options.ports?.sandbox,
  )
  const processes =
    options.ports?.processes ??
    createProcessRunner({
      ...(env !== undefined ? { env } : {}),
      ...(sandboxes !== undefined ? { sandbox: sandboxes.kernel } : {}),
    })
  return {
    registry,
    // The pool changes between turns: what an unknown-tool text offers is read when it is needed.
    get offeredTools() {
      return offered()
    },
    log,
    cwd,
    session,
    ports: {
      results,
      clock,
      ids,
      fs: options.ports?.fs ?? nodeFileSystem,
      processes,
      shells: createBackgroundShells({ runner: processes, ids, record }),
      search: options.ports?.search ?? createFileSearch(),
      web: options.ports?.web ?? createWebClient(),
      session: mapSession(),
      shell: KERNEL_SHELL,
      ...(sandboxes !== undefined ? { sandbox: sandboxes.tools } : {}),
    },
    hooks:
      options.ports?.hookRunner ??
      createHookRunner(options.hooks, {
        cwd,
        sessionId,
        // Read per hook run: the mode follows kernel.setMode and plan-mode tools.
        get permissionMode() {
          return session.mode
        },
        record,
        ...(env !== undefined ? { environment: env } : {}),
        ...(sandboxes !== undefined ? { sandbox: sandboxes.kernel } : {}),
      }),
    permissions: createPermissionPolicy({
      rules: withSandboxed(rules, sandboxes?.tools),
      // Read per decision: the current mode, not the configured one (docs/session-context.md).
      get mode() {
        return session.mode
      },
      cwd,
      judge,
      grants,
      canUseTool: options.canUseTool,
      approvals: config.approvals,
      record,
      shell: KERNEL_SHELL,
    }),
    results,
    progressLogChars: config.progressLogChars,
    timing: { ...config.timing, timers },
  }
}

/**
 * Shell commands are judged from a real bash grammar (WebAssembly, loaded once per process):
 * turns wait for it, so no decision is ever made without it. A grammar that fails to load leaves
 * every command unknown — asked about, never allowed by a rule.
 */
function loadShellGrammar(registry: ToolRegistry): Promise<void> | undefined {
  if (!registry.tools.some((tool) => tool.shellCommand !== undefined) || installedBashParser() !== undefined)
    return undefined
  return loadBashGrammar().then(
    () => undefined,
    () => undefined,
  )
}

/** `[Symbol.asyncDispose]: close`, where the runtime has the symbol (Node 20.4 and later). */
function asyncDisposer(close: () => Promise<void>): Record<symbol, () => Promise<void>> {
  const symbol = (Symbol as { asyncDispose?: symbol }).asyncDispose
  return symbol === undefined ? {} : { [symbol]: close }
}

function mapSession(): SessionState {
  const values = new Map<string, unknown>()
  return { get: <T>(key: string) => values.get(key) as T | undefined, set: (key, value) => void values.set(key, value) }
}

/** The names the model may call now: ToolSearch when it is offered, the tools sent in full, the loaded ones. */
function offeredNames(pool: KernelPool): string[] {
  const current = pool.current()
  const search = current.searching ? [pool.toolSearch.name] : []
  return [...search, ...[...current.visible, ...current.loaded].map((tool) => tool.name)]
}

function checkHandOverFormat(options: unknown): ApiFormat {
  checkOptionsObject('kernel.handOver', options, ['format'])
  return checkFormat((options as { format?: unknown } | undefined)?.format ?? 'anthropic')
}

/** The session's last turn (not a child's), its message in `format`. */
function handOverOf(events: readonly KernelEvent[], format: ApiFormat): HandOver<ApiFormat> | undefined {
  let turnId: string | undefined
  for (let i = events.length - 1; i >= 0 && turnId === undefined; i--) {
    const event = events[i] as KernelEvent
    if (event.type === 'turn.started' && event.parentToolUseId === undefined) turnId = event.turnId
  }
  if (turnId === undefined) return undefined
  const own = events.filter((event) => event.turnId === turnId)
  const discarded = own.some((event) => event.type === 'turn.discarded')
  const content = discarded ? { role: 'user' as const, content: [] } : projectTurnMessage(own, turnId)
  const anthropic = toMessageParam(content)
  const message =
    format === 'anthropic'
      ? anthropic
      : format === 'openai-chat'
        ? toOpenAIToolMessages(content)
        : toResponsesInputItems({ message: content, events: own })
  const over = own.some((event) => event.type === 'turn.completed')
  // Calls waiting for a person, in this turn or a child turn under it, at any depth.
  const pending = over ? [] : pendingApprovals(withChildTurns(events, turnId))
  return { turnId, message, pending, recovered: own.some((event) => event.type === 'turn.recovered'), over }
}

function checkFormat(format: unknown): ApiFormat {
  if (!API_FORMATS.includes(format as ApiFormat))
    throw new TypeError(`apiTools: format must be one of ${API_FORMATS.join(', ')}, got ${JSON.stringify(format)}`)
  return format as ApiFormat
}

function assertTools(tools: unknown, where = 'createKernel'): readonly Tool[] {
  if (!Array.isArray(tools)) throw new TypeError(`${where}: \`tools\` must be an array of tools made with buildTool()`)
  tools.forEach((tool: unknown, i) => {
    const t = tool as Partial<Tool> | null
    if (
      t === null ||
      typeof t !== 'object' ||
      typeof t.name !== 'string' ||
      typeof t.call !== 'function' ||
      typeof t.isConcurrencySafe !== 'function'
    ) {
      throw new TypeError(`${where}: tools[${i}] is not a tool made with buildTool()`)
    }
  })
  return tools as readonly Tool[]
}

/** Option, else env, else the default; anything but a positive integer is a configuration error. */
export function resolveMaxConcurrency(option: number | undefined, env: string | undefined): number {
  if (option !== undefined) {
    if (!Number.isInteger(option) || option < 1)
      throw new RangeError(`createKernel: maxConcurrency must be a positive integer, got ${String(option)}`)
    return option
  }
  if (env !== undefined && env.trim() !== '') {
    const value = Number(env)
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`TOOLKERNEL_MAX_CONCURRENCY must be a positive integer, got ${JSON.stringify(env)}`)
    return value
  }
  return DEFAULT_MAX_CONCURRENCY
}
