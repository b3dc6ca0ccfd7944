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
import { startTurn, type TurnControl } from './actors/turn/turn.js'
import type { EarlyStart, Turn, TurnResult } from './actors/turn/turn.types.js'
import { recover } from './events/recovery.js'
import { toolUsesOf, type AssistantMessage } from './intake/assistant-message.js'
import type { KernelEventInput } from './events/event.schema.js'
import type { EventLog, ResultStore, SessionState, ShellAnalyzer, ToolPorts } from './ports/index.js'
import type { EventStore } from './ports/event-store.port.js'
import { openSession, type OpenedSession, type SessionLeaseOptions } from './adapters/session-event.store.js'
import { createFileSearch } from './adapters/file-search.js'
import { nodeFileSystem } from './adapters/node-fs.js'
import { createDefaultResultStore } from './adapters/result-store.js'
import { DEFAULT_MESSAGE_BUDGET_CHARS } from './actors/turn/budget.js'
import { isAbsolute } from 'node:path'
import { createProcessRunner } from './adapters/process-runner.js'
import type { ChildEnvironmentOptions } from './adapters/child-environment.js'
import { ToolRegistry } from './tools/tool-registry.js'
import { checkApiToolsOptions, checkKernelOptions, checkTurnOptions } from './kernel-options.js'
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
   * Every capability the kernel and the tools use, replaceable in one place (tests, replay, an
   * app's own file system): time, ids, the file system, the shell, file search, and the hook
   * runner (which replaces running the `hooks` configuration altogether). Default: the real ones.
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
}

/** The capabilities `createKernel` takes in `ports`; each defaults to the real one. */
export interface KernelPorts extends Partial<Pick<ToolPorts, 'clock' | 'ids' | 'fs' | 'processes' | 'search'>> {
  readonly hookRunner?: HookRunner
}

export interface TurnOptions {
  /** Interrupts the turn: queued calls are cancelled, running 'cancel' tools aborted. */
  signal?: AbortSignal
}

export interface StreamTurnOptions extends TurnOptions {
  /** Which calls may start while the model is still streaming. Default: the kernel's. */
  earlyStart?: EarlyStart
}

export interface Kernel {
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
  startTurn(options?: StreamTurnOptions): Turn
  /**
   * A kernel like this one over a stored log: turns the log left open (a crash) are closed first
   * with interrupted results (`recover`), and the session's grants are honoured.
   */
  resume(log: EventLog): Kernel
  /** Settles once the kernel can start turns (a store-backed session is open); rejects if it cannot open. */
  ready(): Promise<void>
  /** Makes the log durable and, for a store-backed session, stops renewing and gives its lease up. */
  close(): Promise<void>
}

/**
 * What replay drives: a turn with the mode and early-start policy a recorded turn had.
 * @internal Not in the published types (stripInternal): it reaches the engine's own types.
 */
export interface KernelInternals extends Kernel {
  openTurn(mode: 'batch' | 'stream', earlyStart: EarlyStart): TurnControl
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
export function createKernel(options: KernelOptions): Kernel {
  return createKernelInternals(options)
}

/** The kernel with what replay needs to drive recorded turns. @internal Not in the published types. */
export function createKernelInternals(
  options: KernelOptions,
  internal: { legacyDispatch?: boolean; observeCalls?: CallObserver } = {},
): KernelInternals {
  checkKernelOptions(options)
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
  const pool = new KernelPool({
    tools: config.registry.tools,
    sources: options.toolSources ?? [],
    registry: config.registry,
    denied: (tool) => deniedOutright(config.rules, tool),
    mode: () => config.mode,
    format: config.toolFormat,
    deferral: options.deferral,
    log,
    busy: () => live.size > 0,
  })
  const services = buildServices(options, config, log, { clock, ids }, () => offeredNames(pool))
  const grammar = loadShellGrammar(config.registry)
  const machine = provideToolCallMachine(internal.observeCalls)
  const turnDeps = () => ({
    ready: installedBashParser() === undefined ? grammar : undefined,
    logFailure: () => log.failure,
    turnId: ids.next('turn'),
    log,
    services,
    machine,
    maxConcurrency: config.maxConcurrency,
    legacyDispatch: internal.legacyDispatch === true,
    messageBudget: config.messageBudget,
    permissions: config.permissions,
  })

  let configured = false
  /** A turn the kernel tracks while it runs, so a failing log can stop it. */
  const open = (mode: 'batch' | 'stream', early: EarlyStart): TurnControl => {
    if (log.failure !== undefined) {
      throw new Error(
        `toolkernel: ${log.failure}. The event log failed earlier, so no new turn can be recorded; create a kernel over a working log (kernel.resume(log) closes what was cut off)`,
      )
    }
    const turn = startTurn(turnDeps(), { mode, earlyStart: early })
    if (!configured) {
      configured = true
      log.append(
        sessionConfigured(turn.turnId, {
          ...config,
          tools: config.registry.tools,
          hooks: options.hooks,
          asks: options.canUseTool !== undefined,
          ...(pool.dynamic ? { pool: pool.settings() } : {}),
        }),
      )
    }
    pool.beginTurn(turn.turnId)
    live.add(turn)
    void turn.result().then(() => live.delete(turn))
    return turn
  }

  async function runTurn(message: AssistantMessage, turnOptions: TurnOptions = {}): Promise<TurnResult> {
    checkTurnOptions('kernel.runTurn', turnOptions)
    const { uses, stopReason } = toolUsesOf(message)
    const voids = stopReason !== null && stopReason !== 'tool_use'
    // A message cut short, or a turn already aborted, must start nothing before its end voids it.
    const hold = voids || turnOptions.signal?.aborted === true
    if (grammar !== undefined && installedBashParser() === undefined) await grammar
    const turn = open('batch', hold ? 'none' : 'all')
    for (const use of uses) turn.addIncoming(use)
    turn.attach(turnOptions.signal)
    turn.end(voids ? stopReason : 'tool_use')
    return turn.result()
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
    runTurn,
    openTurn: open,
    ready: async () => {
      if (grammar !== undefined) await grammar
    },
    close: async () => {
      await log.fence?.()
    },
    resume: (stored) => {
      for (const event of recover(stored.read())) stored.append(event)
      // The JSONL log writes at a fence synchronously; a failure shows at the next turn's fence.
      stored.fence?.().catch(() => undefined)
      return createKernelInternals({ ...options, tools: pool.appTools(), log: stored })
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
  opening.catch(() => undefined)
  const get = (): KernelInternals => {
    if (inner !== undefined) return inner
    throw new Error(`toolkernel: session ${session} is still opening; await kernel.ready() before starting a turn`)
  }
  let shape: KernelInternals | undefined
  const own: Partial<KernelInternals> = {
    apiTools: ((apiOptions?: { format: ApiFormat }) =>
      (inner ?? (shape ??= createKernelInternals({ ...rest, log: createMemoryLog(clock) }))).apiTools(
        apiOptions,
      )) as KernelInternals['apiTools'],
    runTurn: async (message, turnOptions) => (await opening, get().runTurn(message, turnOptions)),
    ready: async () => (await opening, await get().ready()),
    close: async () => {
      await opening.catch(() => undefined)
      await opened?.close()
    },
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
  permissions: { mode: PermissionMode; allow: string[]; ask: string[]; deny: string[] }
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
  return {
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
    permissions: {
      mode,
      allow: [...(options.permissions?.allow ?? [])],
      ask: [...(options.permissions?.ask ?? [])],
      deny: [...(options.permissions?.deny ?? [])],
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
  { clock, ids }: Pick<ToolPorts, 'clock' | 'ids'>,
  offered: () => readonly string[],
): CallServices {
  const { registry, rules, mode, cwd, judge } = config
  const record = (event: KernelEventInput): void => void log.append(event)
  const sessionId = ids.next('session')
  const env = options.environment
  const results = options.results ?? createDefaultResultStore()
  return {
    registry,
    // The pool changes between turns: what an unknown-tool text offers is read when it is needed.
    get offeredTools() {
      return offered()
    },
    log,
    cwd,
    ports: {
      results,
      clock,
      ids,
      fs: options.ports?.fs ?? nodeFileSystem,
      processes: options.ports?.processes ?? createProcessRunner(env !== undefined ? { env } : {}),
      search: options.ports?.search ?? createFileSearch(),
      session: mapSession(),
      shell: KERNEL_SHELL,
    },
    hooks:
      options.ports?.hookRunner ??
      createHookRunner(options.hooks, {
        cwd,
        sessionId,
        permissionMode: mode,
        record,
        ...(env !== undefined ? { environment: env } : {}),
      }),
    // Grants live in the log: a kernel over a resumed log honours the ones given before.
    permissions: createPermissionPolicy({
      rules,
      mode,
      cwd,
      judge,
      grants: Grants.fromLog(log.read(), judge),
      canUseTool: options.canUseTool,
      record,
      shell: KERNEL_SHELL,
    }),
    results,
    progressLogChars: config.progressLogChars,
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
