import type { Sandbox } from './sandbox.port.js'
import type { UnreadOutput } from './process-runner.port.js'

/** The call acting on a background shell: its turn and tool_use id, for the shell's events. */
export interface ShellActor {
  readonly turnId: string
  readonly toolUseId: string
}

/** A background shell that was started, or why it could not be. */
export type ShellStarted = { shellId: string; pid: number } | { error: string }

/** One read of a shell's new output. */
export interface ShellRead extends UnreadOutput {
  shellId: string
  command: string
  running: boolean
  /** Set once it has exited. */
  exitCode: number | null
  exitSignal: string | null
  /** Lines the filter left out (0 without a filter). */
  filteredLines: number
}

/** A shell KillShell stopped (or found already gone). */
export interface ShellKilled {
  shellId: string
  command: string
  /** It had already exited before the kill: nothing was signalled. */
  alreadyExited: boolean
  exitCode: number | null
  exitSignal: string | null
}

/**
 * The background shells of one kernel (docs/decisions/processes.md "Background shells"): Bash
 * starts them, BashOutput reads them, KillShell stops them, and the kernel stops every one at
 * `close()`. Only shells this kernel started are known: another id is `undefined`.
 */
export interface BackgroundShells {
  start(command: string, options: { cwd: string; by: ShellActor; sandbox?: Sandbox | undefined }): Promise<ShellStarted>
  /** New output since the last read, its lines matching `filter` when given; undefined for an unknown id. */
  read(shellId: string, options: { by: ShellActor; filter?: (line: string) => boolean }): ShellRead | undefined
  /** Stops the shell and waits until it is gone; undefined for an unknown id. */
  kill(shellId: string, options: { by: ShellActor }): Promise<ShellKilled | undefined>
  /** Ids of the shells started so far (running or not). */
  ids(): string[]
  /** Stops every shell still running and waits until all are gone. Later starts are refused. */
  closeAll(): Promise<void>
}
