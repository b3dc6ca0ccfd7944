/**
 * A kernel's pool over time: the tools of the app and of its tool sources, changes applied only
 * between turns (each one a `pool.changed` event), the loaded set mirrored from the log, the
 * pool of each turn (`pool.assembled`), and the kernel's own ToolSearch bound to it.
 */
import type { EventLog } from '../../ports/event-log.port.js'
import type { ToolSource } from '../tool-source.types.js'
import { guarded } from '../../util/guarded.js'
import { createToolSearch, TOOL_SEARCH_NAME } from '../builtin/tool-search.tool.js'
import type { ApiFormat, ApiToolOf } from '../to-api-format.js'
import type { ToolRegistry } from '../tool-registry.js'
import type { DescribeContext, Tool } from '../tool.types.js'
import { describedView, describeTools, readsContext, type Describing, type ToolTexts } from '../describe.js'
import { inputJsonSchema } from '../to-api-format.js'
import { assemblePool, filterReason, poolSnapshot, type Pool } from './assemble-pool.js'
import { paramDigest, poolApiTools } from './pool-api-tools.js'
import { loadedEvent, loadedFromLog, referencedFromLog, type LoadHow } from './pool-log.js'
import { namesFor, withheldOf, type NameEntry, type WithheldEntry } from './source-log.js'
import {
  DEFAULT_CONTEXT_TOKENS,
  DEFAULT_DEFER_MAX_TOOLS,
  DEFAULT_DEFER_SHARE,
  type DeferralOptions,
} from './threshold.js'

export interface KernelPoolOptions {
  /** The app's tools (already checked to be tools). */
  tools: readonly Tool[]
  sources: readonly ToolSource[]
  registry: ToolRegistry
  denied: (tool: Tool) => boolean
  mode: () => string
  /** The session's working directory (descriptions read it). */
  cwd: () => string
  /** The format ToolSearch answers in. */
  format: ApiFormat
  deferral: DeferralOptions | undefined
  log: EventLog
  /** A turn is running: changes wait until it is over. */
  busy: () => boolean
}

type Change = {
  source: string
  added: string[]
  removed: string[]
  skipped: string[]
  names?: NameEntry[]
  withheld?: WithheldEntry[]
  disabled?: string[]
  enabled?: string[]
}

export class KernelPool {
  readonly #o: KernelPoolOptions
  readonly #toolSearch: Tool
  #order: Tool[]
  readonly #origin = new Map<string, string>()
  /** Each source's withheld tools as last recorded (canonical text), so only a change is logged. */
  readonly #withheld = new Map<string, string>()
  readonly #pending: Array<{ added: readonly Tool[]; removed: readonly string[] }> = []
  readonly #unrecorded: Array<Change | { load: string; how: LoadHow }> = []
  readonly #loaded: string[]
  readonly #referenced: string[]
  #version = 0
  #cache: { key: string; pool: Pool } | undefined
  #changed = false
  /** Tools whose `isEnabled()` said false at the last assembly between turns (docs/pool.md §isEnabled). */
  #disabled = new Set<string>()
  // Descriptions (docs/decisions/tools.md #153): each tool's texts as last resolved, the context
  // they were resolved for, texts still on their way, and a text that failed.
  #texts = new Map<Tool, ToolTexts>()
  #textsGen = 0
  #textsFor: string | undefined
  #describing: Describing | undefined
  #fault: Error | undefined
  /** Tools whose texts came as a promise: offered through a view, like those that read the context. */
  readonly #async = new WeakSet<Tool>()
  /** Some text came as a promise: a turn then waits for the texts before it starts. */
  #late = false
  readonly #views = new WeakMap<Tool, Tool>()
  /** The text the log last recorded of each tool (session.configured, tools.described). */
  readonly #sent = new Map<string, string>()

  constructor(options: KernelPoolOptions) {
    this.#o = options
    this.#order = [...options.tools]
    for (const tool of options.tools) this.#origin.set(tool.name, 'app')
    this.#loaded = loadedFromLog(options.log.read())
    this.#referenced = referencedFromLog(options.log.read())
    this.#toolSearch = createToolSearch({
      pool: () => this.current(),
      format: () => options.format,
      connecting: () => this.connecting(),
      load: (name, how, at) => this.load(name, how, at),
    })
    this.#readSources()
    this.#apply()
    this.#readEnabled()
    this.#describe()
  }

  /** The tool's `isEnabled()` said false at the last assembly between turns. */
  isDisabled(name: string): boolean {
    return this.#disabled.has(name)
  }

  /** Whether the pool can change or defer: only then does a turn record `pool.assembled`. */
  get dynamic(): boolean {
    return this.#o.sources.length > 0 || this.#changed || this.#order.some((tool) => tool.shouldDefer === true)
  }

  /** The format and the deferral settings in force (recorded in session.configured). */
  settings(): { format: string; deferral: { mode: string; contextTokens: number; share: number; maxTools: number } } {
    const d = this.#o.deferral ?? {}
    return {
      format: this.#o.format,
      deferral: {
        mode: d.mode ?? 'auto',
        contextTokens: d.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
        share: d.share ?? DEFAULT_DEFER_SHARE,
        maxTools: d.maxTools ?? DEFAULT_DEFER_MAX_TOOLS,
      },
    }
  }

  /** The kernel's ToolSearch (in the registry whenever the pool is dynamic). */
  get toolSearch(): Tool {
    return this.#toolSearch
  }

  /** The tools of the app and the sources, in registry order, ToolSearch not included. */
  get tools(): readonly Tool[] {
    return this.#order
  }

  /** The app's own tools as they stand (given and registered): what a resumed kernel starts with. */
  appTools(): Tool[] {
    return this.#order.filter((tool) => this.#origin.get(tool.name) === 'app')
  }

  /** The pool as it stands (cached until the registry, the loaded set or the mode changes). */
  current(): Pool {
    const key = `${this.#version}:${this.#loaded.length}:${this.#o.mode()}:${this.#textsGen}`
    if (this.#cache?.key !== key) {
      const pool = assemblePool({
        tools: this.#order.map((tool) => this.#shown(tool)),
        denied: this.#o.denied,
        mode: this.#o.mode(),
        loaded: this.#loaded,
        referenced: this.#referenced,
        enabled: (tool) => !this.#disabled.has(tool.name),
        ...(this.#o.deferral !== undefined ? { deferral: this.#o.deferral } : {}),
      })
      this.#cache = { key, pool }
    }
    return this.#cache.pool
  }

  /** The `tools` request parameter, after applying the changes waiting for a turn boundary. */
  apiTools<F extends ApiFormat>(format: F): Array<ApiToolOf[F]> {
    this.sync()
    this.check('kernel.apiTools')
    return poolApiTools(this.current(), format, this.dynamic ? this.#shown(this.#toolSearch) : undefined)
  }

  /** Queues tools the app adds; they join the pool between turns. @throws Error for a name already taken. */
  register(tools: readonly Tool[]): void {
    const taken = new Set([...this.#order.map((t) => t.name), TOOL_SEARCH_NAME])
    for (const p of this.#pending) for (const t of p.added) taken.add(t.name)
    for (const tool of tools)
      if (taken.has(tool.name)) throw new Error(`registerTools: a tool named "${tool.name}" is already registered`)
      else taken.add(tool.name)
    this.#pending.push({ added: [...tools], removed: [] })
  }

  /** Queues the removal of app tools by name. @throws Error for a name the app did not register. */
  remove(names: readonly string[]): void {
    const pending = new Set(this.#pending.flatMap((p) => p.added.map((t) => t.name)))
    for (const name of names)
      if (this.#origin.get(name) !== 'app' && !pending.has(name))
        throw new Error(`removeTools: "${name}" is not a tool the app registered (tool sources remove their own)`)
    this.#pending.push({ added: [], removed: [...names] })
  }

  /** Re-reads the sources and applies what waits, unless a turn is running. */
  sync(): void {
    if (this.#o.busy()) return
    this.#readSources()
    this.#apply()
    this.#readEnabled()
    this.#describe()
  }

  /** The session's mode or cwd changed between turns: texts that read them are asked again now. */
  contextChanged(): void {
    if (!this.#o.busy()) this.#describe()
  }

  /** Some tool's text came as a promise: a turn waits for `described()` before it starts. */
  get late(): boolean {
    return this.#late
  }

  /**
   * Resolves the texts for the pool as it stands (between turns), waiting for asynchronous ones;
   * after a failure, asks once more. @throws DescriptionError naming the tool whose text failed.
   */
  async described(): Promise<void> {
    const failedFor = this.#fault !== undefined && this.#describing === undefined ? this.#textsFor : undefined
    this.sync()
    if (failedFor !== undefined && failedFor === this.#textsFor && !this.#o.busy()) {
      this.#textsFor = undefined
      this.#describe()
    }
    while (this.#describing !== undefined) await this.#describing.done.catch(() => undefined)
    if (this.#fault !== undefined) throw this.#fault
  }

  /**
   * Before a turn starts: the texts must be resolved (a pool with asynchronous texts is assembled
   * first, so the turn's start finds nothing new to wait for).
   * @throws Error while texts are on their way, or the failure of one.
   */
  prepare(where: string): void {
    if (this.#late) this.sync()
    this.check(where)
  }

  /** @throws Error while texts are on their way (await kernel.ready()), or naming the tool whose text failed. */
  check(where: string): void {
    if (this.#describing !== undefined)
      throw new Error(
        `${where}: the descriptions of ${this.#describing.waiting.join(', ')} are still being resolved (an asynchronous description() or prompt()); await kernel.ready() first`,
      )
    if (this.#fault !== undefined)
      throw new Error(`${where}: ${this.#fault.message}. No tool is offered until every description resolves`, {
        cause: this.#fault,
      })
  }

  /** The texts session.configured just recorded: the baseline a later change is recorded against. */
  noteRecorded(): void {
    for (const [tool, texts] of this.#texts) this.#sent.set(tool.name, texts.prompt)
  }

  /**
   * Asks every tool's `isEnabled()` (a throw counts as disabled): a tool that turned off leaves
   * the pool, one that turned on comes back, and the change is recorded with the next turn as
   * `pool.changed` (source 'app', `disabled` / `enabled`). Tools disabled from the start are
   * recorded with the first turn, so a log alone says which tools were offered (replay reads it).
   */
  #readEnabled(): void {
    const now = new Set(this.#order.filter((tool) => !guarded(() => tool.isEnabled(), false)).map((t) => t.name))
    const names = new Set(this.#order.map((tool) => tool.name))
    const disabled = [...now].filter((name) => !this.#disabled.has(name))
    const enabled = [...this.#disabled].filter((name) => !now.has(name) && names.has(name))
    const gone = [...this.#disabled].some((name) => !names.has(name))
    if (disabled.length === 0 && enabled.length === 0 && !gone) return
    this.#disabled = now
    this.#version++
    if (disabled.length === 0 && enabled.length === 0) return
    this.#unrecorded.push({
      source: 'app',
      added: [],
      removed: [],
      skipped: [],
      ...(disabled.length > 0 && { disabled }),
      ...(enabled.length > 0 && { enabled }),
    })
  }

  /** Loads a deferred tool: mirrored at once, recorded in the log (now, or at the next turn's start). */
  load(name: string, how: LoadHow, at?: { turnId: string; toolUseId?: string }): void {
    if (this.#loaded.includes(name)) return
    this.#loaded.push(name)
    if (how === 'search' || how === 'select') this.#referenced.push(name)
    if (at === undefined) this.#unrecorded.push({ load: name, how })
    else this.#o.log.append(loadedEvent(name, how, at.turnId, at.toolUseId))
  }

  /** The app loads deferred tools itself. @throws Error for a name that is not a deferred tool of the pool. */
  loadByApp(names: readonly string[]): void {
    this.sync()
    const searchable = new Set(this.current().searchable.map((tool) => tool.name))
    const wrong = names.filter((name) => !searchable.has(name))
    if (wrong.length > 0)
      throw new Error(
        `loadTools: ${wrong.join(', ')} ${wrong.length > 1 ? 'are' : 'is'} not a deferred tool of the pool`,
      )
    for (const name of names) this.load(name, 'app')
  }

  /** Source ids still connecting. */
  connecting(): string[] {
    return this.#o.sources.filter((s) => guarded(() => s.status().state, 'failed') === 'connecting').map((s) => s.id)
  }

  /** At a turn's start: records the changes applied since the last turn, then what the model is offered. */
  beginTurn(turnId: string): void {
    this.sync()
    for (const entry of this.#unrecorded.splice(0)) {
      if ('load' in entry) this.#o.log.append(loadedEvent(entry.load, entry.how, turnId))
      else this.#o.log.append({ type: 'pool.changed', turnId, ...changeFields(entry) })
    }
    if (this.#describing === undefined && this.#fault === undefined) this.#recordDescribed(turnId)
    if (!this.dynamic) return
    const pool = this.current()
    const tools = poolApiTools(pool, this.#o.format, this.#shown(this.#toolSearch))
    this.#o.log.append({
      type: 'pool.assembled',
      turnId,
      format: this.#o.format,
      ...poolSnapshot(pool),
      ...paramDigest(tools),
      threshold: { ...pool.threshold },
    })
  }

  #readSources(): void {
    for (const source of this.#o.sources) {
      const offered = guarded(() => [...source.tools()], [] as Tool[])
      const mine = this.#order.filter((tool) => this.#origin.get(tool.name) === source.id)
      const now = new Set(offered.map((t) => t.name))
      const removed = mine.filter((t) => !now.has(t.name)).map((t) => t.name)
      const fresh = offered.filter((t) => !mine.some((m) => m.name === t.name))
      const replaced = offered.filter((t) => mine.some((m) => m.name === t.name && m !== t))
      const withheld = this.#withheldChange(source)
      if (removed.length === 0 && fresh.length === 0 && replaced.length === 0 && withheld === undefined) continue
      this.#commit(source.id, fresh, removed, replaced, { source, ...(withheld !== undefined && { withheld }) })
    }
  }

  /**
   * Resolves every tool's texts when the context they read changed since the last time (the
   * registry, a tool switched, the mode, the cwd): at once when all are strings, else in the
   * background — `described()` waits for them, `check` refuses to go on without them.
   */
  #describe(): void {
    const mode = this.#o.mode()
    const cwd = this.#o.cwd()
    const key = JSON.stringify([this.#version, mode, cwd])
    if (key === this.#textsFor) return
    this.#textsFor = key
    this.#fault = undefined
    this.#describing = undefined
    const enabled = (tool: Tool): boolean => !this.#disabled.has(tool.name)
    const offered = this.#order.filter(
      (tool) => filterReason(tool, { denied: this.#o.denied, mode, enabled }) === undefined,
    )
    const shared: DescribeContext = {
      tools: offered.map((tool) => tool.name),
      mode,
      cwd,
      inputSchema: { type: 'object' },
    }
    const contextOf = (tool: Tool): DescribeContext =>
      readsContext(tool) ? { ...shared, inputSchema: guarded(() => inputJsonSchema(tool), shared.inputSchema) } : shared
    const tools = [this.#toolSearch, ...this.#order]
    let answer: Map<Tool, ToolTexts> | Describing
    try {
      answer = describeTools(tools, contextOf)
    } catch (error) {
      this.#fault = error instanceof Error ? error : new Error(String(error))
      return
    }
    if (answer instanceof Map) return this.#settle(answer)
    const describing = answer
    this.#late = true
    for (const tool of tools) if (describing.waiting.includes(tool.name)) this.#async.add(tool)
    this.#describing = describing
    describing.done.then(
      (texts) => {
        if (this.#describing !== describing) return
        this.#describing = undefined
        this.#settle(texts)
      },
      (error: unknown) => {
        if (this.#describing !== describing) return
        this.#describing = undefined
        this.#fault = error instanceof Error ? error : new Error(String(error))
      },
    )
  }

  #settle(texts: Map<Tool, ToolTexts>): void {
    const changed =
      texts.size !== this.#texts.size ||
      [...texts].some(([tool, t]) => {
        const was = this.#texts.get(tool)
        return was?.prompt !== t.prompt || was.description !== t.description
      })
    this.#texts = texts
    if (changed) this.#textsGen++
    this.#publish()
  }

  /** The texts of each tool whose text changed since the log last recorded it, as tools.described. */
  #recordDescribed(turnId: string): void {
    const changed: Array<{ name: string; description: string }> = []
    for (const [tool, { prompt }] of this.#texts) {
      const sent = this.#sent.get(tool.name)
      // A text the log never had (a tool that joined later) is its first: only a change is news.
      if (sent !== prompt) this.#sent.set(tool.name, prompt)
      if (sent !== undefined && sent !== prompt) changed.push({ name: tool.name, description: prompt })
    }
    if (changed.length > 0) this.#o.log.append({ type: 'tools.described', turnId, tools: changed })
  }

  /** The tool as the pool offers it: a view answering the resolved texts when they read the context or are async. */
  #shown(tool: Tool): Tool {
    if (!readsContext(tool) && !this.#async.has(tool)) return tool
    let view = this.#views.get(tool)
    if (view === undefined) {
      view = describedView(tool, () => this.#textsOf(tool))
      this.#views.set(tool, view)
    }
    return view
  }

  #textsOf(tool: Tool): ToolTexts {
    const texts = this.#texts.get(tool)
    if (texts !== undefined) return texts
    throw new Error(
      this.#fault?.message ??
        `the descriptions of tool "${tool.name}" are still being resolved (an asynchronous description() or prompt()); await kernel.ready() first`,
    )
  }

  #apply(): void {
    for (const { added, removed } of this.#pending.splice(0)) this.#commit('app', added, removed, [])
    this.#publish()
  }

  /** The registry: ToolSearch when the pool is dynamic, then each tool as the pool offers it. */
  #publish(): void {
    const registry = [...(this.dynamic ? [this.#toolSearch] : []), ...this.#order].map((tool) => this.#shown(tool))
    this.#o.registry.replace(registry)
    this.#o.registry.loader = {
      isUnloaded: (name) => this.dynamic && this.current().deferred.some((tool) => tool.name === name),
      load: (name, at) => this.load(name, 'call', at),
      outOfMode: (name) =>
        this.current().filtered.some((f) => f.name === name && f.reason === 'mode') ? this.#o.mode() : undefined,
    }
  }

  /** The source's withheld tools when they differ from what the log has of them (recorded as seen). */
  #withheldChange(source: ToolSource): WithheldEntry[] | undefined {
    const withheld = withheldOf(source)
    if (withheld === undefined) return undefined
    const text = JSON.stringify(withheld)
    if ((this.#withheld.get(source.id) ?? '[]') === text) return undefined
    this.#withheld.set(source.id, text)
    return withheld
  }

  #commit(
    source: string,
    added: readonly Tool[],
    removed: readonly string[],
    replaced: readonly Tool[],
    from?: { source: ToolSource; withheld?: WithheldEntry[] },
  ): void {
    const gone = new Set(removed)
    const swap = new Map(replaced.map((t) => [t.name, t]))
    this.#order = this.#order.filter((t) => !gone.has(t.name)).map((t) => swap.get(t.name) ?? t)
    for (const name of gone) this.#origin.delete(name)
    const skipped: string[] = []
    const joined: string[] = []
    for (const tool of added) {
      if (this.#origin.has(tool.name) || tool.name === TOOL_SEARCH_NAME) skipped.push(tool.name)
      else {
        this.#order.push(tool)
        this.#origin.set(tool.name, source)
        joined.push(tool.name)
      }
    }
    this.#version++
    // A source handing out new objects for the same tools changes nothing the model sees.
    if (joined.length === 0 && removed.length === 0 && skipped.length === 0 && from?.withheld === undefined) return
    this.#changed = true
    const names = from === undefined ? [] : namesFor(from.source, joined)
    this.#unrecorded.push({
      source,
      added: joined,
      removed: [...removed],
      skipped,
      ...(names.length > 0 && { names }),
      ...(from?.withheld !== undefined && { withheld: from.withheld }),
    })
  }
}

function changeFields(change: Change): Omit<Change, 'skipped'> & { skipped?: string[] } {
  const { skipped, ...rest } = change
  return skipped.length > 0 ? { ...rest, skipped } : rest
}
