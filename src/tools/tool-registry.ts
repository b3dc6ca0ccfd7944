import type { Tool } from './tool.types.js'

/** Tools by name and alias. Names are exact (the model is told them); aliases must not collide. */
export class ToolRegistry {
  readonly #byName = new Map<string, Tool>()
  readonly tools: readonly Tool[]

  /** @throws Error when two tools share a name or an alias: the kernel could not tell them apart. */
  constructor(tools: readonly Tool[]) {
    this.tools = tools
    for (const tool of tools) {
      for (const key of [tool.name, ...tool.aliases]) {
        const existing = this.#byName.get(key)
        if (existing !== undefined) {
          throw new Error(`tool name "${key}" is used by both ${existing.name} and ${tool.name}`)
        }
        this.#byName.set(key, tool)
      }
    }
  }

  find(name: string): Tool | undefined {
    return this.#byName.get(name)
  }

  /** Every name the model may use: canonical names, then aliases. */
  names(): string[] {
    return [...this.#byName.keys()]
  }
}
