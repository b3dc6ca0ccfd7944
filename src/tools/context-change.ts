/**
 * A tool's result may change the session for the calls after it (Claude Code's
 * `contextModifier`): the working directory, environment entries for child processes, app data,
 * the permission mode. The tool returns `changeContext(output, change)`; the kernel applies the
 * change only from a call that ran alone, records it (`session.changed`), and resume and replay
 * read it back (docs/session-context.md).
 */
import type { TodoItem } from './todos.js'

/** What a tool may change for the calls after it. Every field is optional; absent fields stay. */
export interface ContextChange {
  /**
   * The new working directory (absolute, or relative to the current one). It must be an existing
   * directory inside the kernel's configured `cwd` (the workspace); otherwise it is refused.
   */
  readonly cwd?: string
  /** Environment entries for child processes (Bash): a string sets one, `null` removes it. */
  readonly env?: Readonly<Record<string, string | null>>
  /** App data entries (JSON values): a value sets one, `null` removes it. */
  readonly data?: Readonly<Record<string, unknown>>
  /** The permission mode (one of PERMISSION_MODES). */
  readonly mode?: string
}

/** The session as the calls of a turn see it (`ToolContext.session`). */
export interface SessionView {
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly data: Readonly<Record<string, unknown>>
  readonly mode: string
  /** The mode the session was in before it entered plan mode (while it is in plan mode). */
  readonly modeBeforePlan: string | undefined
  /**
   * The task list TodoWrite last saved (empty when none): read from `data`'s reserved
   * `toolkernel.todos` entry (docs/session-context.md §The task list).
   */
  readonly todos: readonly TodoItem[]
}

/** The brand of a tool's output that carries a change; `Symbol.for`, so two copies of toolkernel agree. */
const CHANGED: unique symbol = Symbol.for('toolkernel.contextChange') as never

/** A tool's output with a context change attached: what `changeContext` returns. */
export interface ContextChanged<O> {
  readonly [CHANGED]: ContextChange
  readonly output: O
}

/**
 * The output, with a change to the session for the calls after this one. The model sees only
 * `output` (mapped as usual); the change goes to the kernel.
 *
 * @example
 * call: async (input, context) => changeContext(`now in ${input.dir}`, { cwd: input.dir })
 */
export function changeContext<O>(output: O, change: ContextChange): ContextChanged<O> {
  if (change === null || typeof change !== 'object' || Array.isArray(change))
    throw new TypeError('changeContext: the change must be an object such as { cwd } or { env }')
  return { [CHANGED]: change, output }
}

/** What a tool returned, split into its output and the change it carries (if any). */
export function splitToolReturn(value: unknown): { output: unknown; change?: ContextChange } {
  if (value !== null && typeof value === 'object' && CHANGED in value) {
    const changed = value as ContextChanged<unknown>
    return { output: changed.output, change: changed[CHANGED] }
  }
  return { output: value }
}
