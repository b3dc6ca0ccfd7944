/**
 * The session's context as it changes: working directory, environment entries for child
 * processes, app data, permission mode. Rebuilt from the log's `session.changed` events (resume,
 * a store-backed kernel, replay), changed by a call that ran alone (`changeContext`) or by the
 * app (`kernel.setMode`). Each decision is an event; nothing changes without one
 * (docs/session-context.md).
 */
import { isAbsolute, join, relative, resolve } from 'node:path'
import type { KernelEvent, KernelEventInput } from '../../events/event.schema.js'
import { PERMISSION_MODES, type PermissionMode } from '../../permissions/policy.js'
import type { ContextChange, SessionView } from '../../tools/context-change.js'
import { todosOf } from '../../tools/todos.js'

export interface SessionContextOptions {
  /** The kernel's configured working directory: the workspace the session's cwd stays inside. */
  readonly workspace: string
  /** The configured permission mode. */
  readonly mode: PermissionMode
  /** The real path of an existing directory; undefined for anything else (the file system's answer). */
  readonly directory: (path: string) => string | undefined
}

type SessionChanged = Extract<KernelEventInput, { type: 'session.changed' }>
type Dropped = { field: string; reason: string }

/** Environment names a child process can be given. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export const SAFE_BATCH_REASON =
  'the call ran in a concurrency-safe batch, where changes to the session are not applied (only a call that runs alone may change it)'

export class SessionContext {
  readonly #o: SessionContextOptions
  #cwd: string
  #env = new Map<string, string>()
  #data = new Map<string, unknown>()
  #mode: PermissionMode
  #modeBeforePlan: PermissionMode | undefined
  /** The app's mode changes not yet in the log: recorded with the next turn's start. */
  #pending: SessionChanged[] = []
  #view: SessionView | undefined

  constructor(options: SessionContextOptions, events: Iterable<KernelEvent> = []) {
    this.#o = options
    this.#cwd = options.workspace
    this.#mode = options.mode
    for (const event of events) if (event.type === 'session.changed') this.#replayed(event)
  }

  get cwd(): string {
    return this.#cwd
  }

  get mode(): PermissionMode {
    return this.#mode
  }

  /** The session as a call sees it: one frozen snapshot until the next change. */
  view(): SessionView {
    if (this.#view !== undefined) return this.#view
    const data = Object.freeze(Object.fromEntries(this.#data))
    this.#view = Object.freeze({
      cwd: this.#cwd,
      env: Object.freeze(Object.fromEntries(this.#env)),
      data,
      mode: this.#mode,
      modeBeforePlan: this.#modeBeforePlan,
      todos: todosOf(data),
    })
    return this.#view
  }

  /**
   * A change a call's result carried: applied when the call ran alone, dropped (with the reason)
   * when it ran in a concurrency-safe batch; what would change nothing is left out. Returns the
   * `session.changed` to record, or undefined when nothing would change.
   */
  fromTool(
    change: ContextChange,
    at: { turnId: string; toolUseId: string; alone: boolean },
  ): SessionChanged | undefined {
    const requested = jsonOf(change) as Record<string, unknown> | undefined
    const { applied, dropped } = this.#decide(change)
    if (Object.keys(applied).length === 0 && dropped.length === 0) return undefined
    const event: SessionChanged = {
      type: 'session.changed',
      turnId: at.turnId,
      source: 'tool',
      changedBy: at.toolUseId,
      ...(requested === undefined ? {} : { requested }),
    }
    if (!at.alone) {
      const all = [...Object.keys(applied).filter((f) => f !== 'previousMode'), ...dropped.map((d) => d.field)]
      return { ...event, dropped: [...new Set(all)].map((field) => ({ field, reason: SAFE_BATCH_REASON })) }
    }
    const decided: SessionChanged = { ...event, ...applied, ...(dropped.length > 0 ? { dropped } : {}) }
    this.#apply(decided)
    return decided
  }

  /**
   * The app sets the mode between turns: in force at once (the next `apiTools()` follows it),
   * recorded with the next turn's start. @throws Error for a mode that is not one of PERMISSION_MODES.
   */
  setMode(mode: unknown): void {
    if (!PERMISSION_MODES.includes(mode as PermissionMode))
      throw new Error(
        `kernel.setMode: the mode must be one of ${PERMISSION_MODES.join(', ')}, got ${JSON.stringify(mode)}`,
      )
    if (mode === this.#mode) return
    const event: SessionChanged = {
      type: 'session.changed',
      turnId: '',
      source: 'app',
      mode: mode as PermissionMode,
      previousMode: this.#mode,
    }
    this.#apply(event)
    this.#pending.push(event)
  }

  /** The app's changes not yet recorded, stamped with the turn that records them (and forgotten). */
  takePending(turnId: string): SessionChanged[] {
    return this.#pending.splice(0).map((event) => ({ ...event, turnId }))
  }

  /** The modes the app set that the log does not have yet (a resumed kernel sets them again). */
  pendingModes(): PermissionMode[] {
    return this.#pending.flatMap((event) => (event.mode === undefined ? [] : [event.mode as PermissionMode]))
  }

  /** What the change would do now: the fields that change something, and what cannot be applied. */
  #decide(change: ContextChange): { applied: Partial<SessionChanged>; dropped: Dropped[] } {
    const applied: Partial<SessionChanged> & Record<string, unknown> = {}
    const dropped: Dropped[] = []
    if (change === null || typeof change !== 'object')
      return { applied, dropped: [{ field: 'change', reason: 'not an object' }] }
    if (change.cwd !== undefined) {
      const cwd = this.#directoryFor(change.cwd)
      if (typeof cwd === 'object') dropped.push({ field: 'cwd', reason: cwd.refused })
      else if (cwd !== this.#cwd) applied.cwd = cwd
    }
    if (change.env !== undefined) {
      const env = this.#entries('env', change.env, dropped, (name, value) => {
        if (!ENV_NAME.test(name)) return `${JSON.stringify(name)} is not an environment variable name`
        if (value !== null && typeof value !== 'string') return `the value of ${name} is not a string or null`
        return undefined
      })
      if (env !== undefined) applied.env = env as Record<string, string | null>
    }
    if (change.data !== undefined) {
      const data = this.#entries('data', change.data, dropped, (name, value) =>
        jsonOf(value) === undefined && value !== undefined ? `the value of ${name} is not JSON` : undefined,
      )
      if (data !== undefined) applied.data = data
    }
    if (change.mode !== undefined) {
      if (!PERMISSION_MODES.includes(change.mode as PermissionMode))
        dropped.push({
          field: 'mode',
          reason: `${JSON.stringify(change.mode)} is not one of ${PERMISSION_MODES.join(', ')}`,
        })
      else if (change.mode !== this.#mode) {
        applied.mode = change.mode
        applied.previousMode = this.#mode
      }
    }
    return { applied, dropped }
  }

  /** The entries of `env` or `data` that change something; bad entries are dropped with a reason. */
  #entries(
    field: 'env' | 'data',
    given: unknown,
    dropped: Dropped[],
    problem: (name: string, value: unknown) => string | undefined,
  ): Record<string, unknown> | undefined {
    if (given === null || typeof given !== 'object' || Array.isArray(given)) {
      dropped.push({ field, reason: `${field} must be an object of entries` })
      return undefined
    }
    const current = field === 'env' ? this.#env : this.#data
    const changed: Record<string, unknown> = {}
    for (const [name, value] of Object.entries(given)) {
      const why = problem(name, value)
      if (why !== undefined) dropped.push({ field: `${field}.${name}`, reason: why })
      // Compared as JSON text: an object value equal to the one in force changes nothing.
      else if (value === null ? current.has(name) : JSON.stringify(current.get(name)) !== JSON.stringify(value))
        changed[name] = value
    }
    return Object.keys(changed).length > 0 ? changed : undefined
  }

  /**
   * The working directory a change asks for, spelled under the workspace; or why it is refused:
   * it must be an existing directory inside the kernel's configured cwd.
   */
  #directoryFor(asked: unknown): string | { refused: string } {
    if (typeof asked !== 'string' || asked === '') return { refused: 'cwd must be a non-empty path' }
    const real = this.#o.directory(resolve(this.#cwd, asked))
    if (real === undefined)
      return { refused: `${asked} is not an existing directory; the working directory stays ${this.#cwd}` }
    const inside = this.#underWorkspace(real)
    return (
      inside ?? {
        refused: `${asked} is outside the workspace ${this.#o.workspace}; the working directory stays ${this.#cwd}`,
      }
    )
  }

  /** The real path spelled under the configured workspace, when it lies inside it. */
  #underWorkspace(real: string): string | undefined {
    const root = this.#o.directory(this.#o.workspace) ?? this.#o.workspace
    const rel = relative(root, real)
    if (rel === '') return this.#o.workspace
    if (rel.startsWith('..') || isAbsolute(rel)) return undefined
    return join(this.#o.workspace, rel)
  }

  /** A recorded change, applied again; a directory that is gone or outside this workspace now leaves the cwd. */
  #replayed(event: Extract<KernelEvent, { type: 'session.changed' }>): void {
    const { v: _v, seq: _seq, at: _at, ...input } = event
    const cwd = input.cwd === undefined ? undefined : this.#directoryFor(input.cwd)
    const { cwd: _recorded, ...rest } = input
    this.#apply(typeof cwd === 'string' ? { ...rest, cwd } : rest)
  }

  #apply(event: SessionChanged): void {
    this.#view = undefined
    if (event.cwd !== undefined) this.#cwd = event.cwd
    for (const [name, value] of Object.entries(event.env ?? {}))
      if (value === null) this.#env.delete(name)
      else this.#env.set(name, value)
    for (const [name, value] of Object.entries(event.data ?? {}))
      if (value === null) this.#data.delete(name)
      else this.#data.set(name, value)
    if (event.mode !== undefined && PERMISSION_MODES.includes(event.mode as PermissionMode)) {
      const from = this.#mode
      this.#mode = event.mode as PermissionMode
      if (this.#mode === 'plan' && from !== 'plan') this.#modeBeforePlan = from
      if (this.#mode !== 'plan') this.#modeBeforePlan = undefined
    }
  }
}

/** A JSON copy of a value (what the log can keep), or undefined when it has none. */
function jsonOf<T>(value: T): T | undefined {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? undefined : (JSON.parse(text) as T)
  } catch {
    return undefined
  }
}
