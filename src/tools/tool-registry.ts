import type { PoolLoader } from './pool/pool-loader.js'
import type { Tool } from './tool.types.js'

/**
 * Tools by name and alias. Names are exact (the model is told them); aliases must not collide.
 * The set changes only between turns (`replace`), when the kernel applies a pool change.
 */
export class ToolRegistry {
  #byName = new Map<string, Tool>()
  #tools: readonly Tool[] = []
  /**
   * The kernel's pool, for the validate step's unloaded-call rule (a deferred tool called
   * before it was loaded). Absent for a kernel without deferred tools.
   */
  loader: PoolLoader | undefined

  /** @throws Error when two tools share a name or an alias: the kernel could not tell them apart. */
  constructor(tools: readonly Tool[]) {
    this.replace(tools)
  }

  get tools(): readonly Tool[] {
    return this.#tools
  }

  /**
   * Replaces the whole set, checked first: on a collision the registry stays as it was.
   *
   * @throws Error when two tools share a name or an alias.
   */
  replace(tools: readonly Tool[]): void {
    const byName = new Map<string, Tool>()
    for (const tool of tools) {
      for (const key of [tool.name, ...tool.aliases]) {
        const existing = byName.get(key)
        if (existing !== undefined) {
          throw new Error(`tool name "${key}" is used by both ${existing.name} and ${tool.name}`)
        }
        byName.set(key, tool)
      }
    }
    this.#byName = byName
    this.#tools = tools
  }

  find(name: string): Tool | undefined {
    return this.#byName.get(name)
  }

  /** Every name the model may use: canonical names, then aliases. */
  names(): string[] {
    return [...this.#byName.keys()]
  }
}
