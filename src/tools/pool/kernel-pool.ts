/**
 * A kernel's pool over time: the tools of the app and of its tool sources, changes applied only
 * between turns (each one a `pool.changed` event), the loaded set mirrored from the log, the
 * pool of each turn (`pool.assembled`), and the kernel's own ToolSearch bound to it.
 */
import type { KernelEventInput } from '../../events/event.schema.js'
import type { EventLog } from '../../ports/event-log.port.js'
import type { ToolSource } from '../tool-source.types.js'
import { guarded } from '../../util/guarded.js'
import { createToolSearch, TOOL_SEARCH_NAME } from '../builtin/tool-search.tool.js'
import type { ApiFormat, ApiToolOf } from '../to-api-format.js'
import type { ToolRegistry } from '../tool-registry.js'
import type { Tool } from '../tool.types.js'
import { assemblePool, poolSnapshot, type Pool } from './assemble-pool.js'
import { paramDigest, poolApiTools } from './pool-api-tools.js'
import { loadedFromLog, referencedFromLog } from './pool-log.js'
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
type LoadHow = 'search' | 'select' | 'call' | 'app'

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
    const key = `${this.#version}:${this.#loaded.length}:${this.#o.mode()}`
    if (this.#cache?.key !== key) {
      const pool = assemblePool({
        tools: this.#order,
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
    return poolApiTools(this.current(), format, this.dynamic ? this.#toolSearch : undefined)
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
    if (!this.dynamic) return
    const pool = this.current()
    const tools = poolApiTools(pool, this.#o.format, this.#toolSearch)
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

  #apply(): void {
    for (const { added, removed } of this.#pending.splice(0)) this.#commit('app', added, removed, [])
    const registry = [...(this.dynamic ? [this.#toolSearch] : []), ...this.#order]
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

function loadedEvent(name: string, how: LoadHow, turnId: string, by?: string): KernelEventInput {
  return { type: 'tool.loaded', turnId, name, how, ...(by !== undefined ? { loadedBy: by } : {}) }
}

function changeFields(change: Change): Omit<Change, 'skipped'> & { skipped?: string[] } {
  const { skipped, ...rest } = change
  return skipped.length > 0 ? { ...rest, skipped } : rest
}
