/**
 * What the validate step needs of the pool: whether a tool is offered in this mode, whether it is
 * deferred and unloaded, and how to load one.
 */
export interface PoolLoader {
  /** The tool is in the pool, deferred, and not loaded yet. */
  isUnloaded(name: string): boolean
  /** Records `tool.loaded` for a call to a deferred tool (`how: 'call'`). */
  load(name: string, at: { turnId: string; toolUseId: string }): void
  /** The permission mode leaves the tool out of the pool (its `modes`): the call must not run. */
  outOfMode(name: string): string | undefined
}
