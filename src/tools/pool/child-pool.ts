/**
 * A child session's pool (docs/subagents.md §Deferred tools): the child's tools split as the
 * kernel's pool splits its own — the same deferral threshold, its own rules and mode — with a
 * loaded set of its own, read from the log (the `tool.loaded` events under its call) and added to
 * by its own ToolSearch and by its calls. Nothing a child loads reaches its parent's pool.
 */
import type { KernelEvent, KernelEventInput } from '../../events/event.schema.js'
import { createToolSearch, TOOL_SEARCH_NAME } from '../builtin/tool-search.tool.js'
import type { ApiFormat, ApiToolOf } from '../to-api-format.js'
import type { Tool } from '../tool.types.js'
import { assemblePool, type Pool } from './assemble-pool.js'
import { poolApiTools } from './pool-api-tools.js'
import { loadedEvent, loadedFromLog, referencedFromLog, type LoadHow } from './pool-log.js'
import type { PoolLoader } from './pool-loader.js'
import type { DeferralOptions } from './threshold.js'

/** What a child's pool is built from: its scope, and the kernel's pool settings. */
export interface ChildPoolInput {
  /** The child's tools (the kernel's ToolSearch among them, when the child may search). */
  tools: readonly Tool[]
  /** A rule of the child's denies the tool outright. */
  denied: (tool: Tool) => boolean
  mode: () => string
  /** The tool is switched off in the kernel's pool (`isEnabled`). */
  disabled: (name: string) => boolean
  deferral: DeferralOptions | undefined
  /** The kernel's `toolFormat`: what ToolSearch answers in for formats without references. */
  format: ApiFormat
  /** The call the child runs under: its loads are the log's `tool.loaded` under this id. */
  parentToolUseId: string
  log: { read(): readonly KernelEvent[]; append(event: KernelEventInput): unknown }
}

export class ChildPool {
  readonly #o: ChildPoolInput
  readonly #loaded: string[]
  readonly #referenced: string[]
  /** The child's own ToolSearch, searching and loading this pool; absent when the child may not search. */
  readonly toolSearch: Tool | undefined
  /** The child's tools, its own ToolSearch in place of the kernel's. */
  readonly tools: readonly Tool[]

  constructor(input: ChildPoolInput) {
    this.#o = input
    const events = input.log.read()
    this.#loaded = loadedFromLog(events, input.parentToolUseId)
    this.#referenced = referencedFromLog(events, input.parentToolUseId)
    const searches = input.tools.some((tool) => tool.name === TOOL_SEARCH_NAME)
    this.toolSearch = searches
      ? createToolSearch({
          pool: () => this.current(),
          format: () => input.format,
          connecting: () => [],
          load: (name, how, at) => this.#load(name, how, at),
        })
      : undefined
    const own = this.toolSearch
    this.tools = input.tools.map((tool) => (tool.name === TOOL_SEARCH_NAME && own !== undefined ? own : tool))
  }

  /**
   * The pool now. A child without ToolSearch defers nothing: a tool it could not find would be a
   * tool it could not call.
   */
  current(): Pool {
    return assemblePool({
      tools: this.tools.filter((tool) => tool !== this.toolSearch),
      denied: this.#o.denied,
      mode: this.#o.mode(),
      loaded: this.#loaded,
      referenced: this.#referenced,
      enabled: (tool) => !this.#o.disabled(tool.name),
      deferral: this.toolSearch === undefined ? { mode: 'never' } : (this.#o.deferral ?? {}),
    })
  }

  /** The child's `tools` parameter for `format`. */
  apiTools<F extends ApiFormat>(format: F): Array<ApiToolOf[F]> {
    return poolApiTools(this.current(), format, this.toolSearch)
  }

  /** What the validate step asks of the child's pool. */
  loader(): PoolLoader {
    return {
      isUnloaded: (name) => this.current().deferred.some((tool) => tool.name === name),
      load: (name, at) => this.#load(name, 'call', at),
      outOfMode: (name) =>
        this.current().filtered.some((f) => f.name === name && f.reason === 'mode') ? this.#o.mode() : undefined,
    }
  }

  #load(name: string, how: LoadHow, at: { turnId: string; toolUseId: string }): void {
    if (this.#loaded.includes(name)) return
    this.#loaded.push(name)
    if (how === 'search' || how === 'select') this.#referenced.push(name)
    this.#o.log.append(loadedEvent(name, how, at.turnId, at.toolUseId))
  }
}
