import type { ResultWriter } from './result-store.port.js'
import type { Sandbox } from './sandbox.port.js'

/**
 * How a shell command ended. Its output (stdout and stderr merged in the order written) is kept
 * whole when it is small; otherwise only its beginning (`output`) and end (`tail`), and the whole
 * of it streams to `savedPath`.
 */
export interface ProcessResult {
  /** All of the output when `omittedBytes` is 0; otherwise its beginning. */
  output: string
  /** The end of the output when its middle was omitted; '' otherwise. */
  tail: string
  /** Bytes the command wrote (up to the runner's cap). */
  totalBytes: number
  /** Bytes between `output` and `tail` that are not in memory. */
  omittedBytes: number
  /** Where the full output was saved, when it outgrew memory and the caller gave a place for it. */
  savedPath?: string
  /** Why the full output could not be saved. */
  saveError?: string
  exitCode: number | null
  /** The signal that ended the shell, when it did not exit by itself. */
  exitSignal?: string
  timedOut: boolean
  /** Stopped by the abort signal. */
  aborted: boolean
  /** Set when the command wrote more than the runner's cap and was stopped: the cap, in bytes. */
  outputLimitBytes?: number
  /** Set when the command could not be started at all. */
  startError?: string
  /** Set when the run failed after the command started (the spawner's helper died): why. */
  failure?: string
  /** With `reportCwd`: the directory the shell ended in (`pwd -P`), when it could be told. */
  cwd?: string
  /**
   * What had to be killed, in words, when anything had to be: the process group on timeout, what a
   * finished command left running, processes that left the group (setsid).
   */
  cleanup?: string
}

/** What one run is given. */
export interface ProcessRunOptions {
  cwd: string
  timeoutMs: number
  signal: AbortSignal
  /**
   * Output for a person watching, coalesced: at most one call per ~100 ms or ~8 KB and a bounded
   * number per run (then one note); never the whole of a large output.
   */
  onOutput?: (chunk: string) => void
  /** Opens where the full output streams once it outgrows memory; absent: its middle is dropped. */
  openOutputFile?: () => Promise<ResultWriter>
  /** Report the directory the shell ended in (`ProcessResult.cwd`): Bash keeps it for the next call. */
  reportCwd?: boolean
  /** Environment entries set on top of the runner's own (the session's, docs/session-context.md). */
  env?: Readonly<Record<string, string>>
  /**
   * The sandbox this run's command runs in, overriding the runner's own (a tool's override, see
   * ToolSandboxes). A runner that cannot apply it must not run the command.
   */
  sandbox?: Sandbox
}

/**
 * Runs shell commands, each in its own process group: on timeout or abort the whole tree is
 * killed, and what a finished command leaves running in its group too.
 */
export interface ProcessRunner {
  run(command: string, options: ProcessRunOptions): Promise<ProcessResult>
  /**
   * Starts a command in the background (Bash `run_in_background`): its own process group, no
   * deadline, output kept in bounded memory until taken. Absent: the runner cannot, and Bash
   * says so.
   */
  start?(command: string, options: BackgroundStartOptions): BackgroundProcess
  /**
   * Releases what the runner keeps between commands (its spawner process); a later run starts it
   * again. kernel.close() calls it.
   */
  close?(): Promise<void>
}

/** What a background start is given. */
export interface BackgroundStartOptions {
  cwd: string
  /** The sandbox it runs in, overriding the runner's own (a tool's override); checked by the caller. */
  sandbox?: Sandbox
}

/** Output of a background command not yet read, in bounded memory. */
export interface UnreadOutput {
  /** The beginning of what arrived since the last read. */
  head: string
  /** Its end, when characters between the two were dropped ('' otherwise). */
  tail: string
  /** Characters between `head` and `tail` dropped to keep memory bounded. */
  droppedChars: number
}

/** How a background command ended. */
export interface BackgroundExit {
  exitCode: number | null
  /** The signal that ended the shell, when it did not exit by itself. */
  exitSignal: string | null
  /** Why it could not be started at all. */
  startError?: string
}

/** A command running in the background. */
export interface BackgroundProcess {
  /** The shell's pid, which is also its process group's id; undefined when it did not start. */
  readonly pid: number | undefined
  /** The output that arrived since the last call (stdout and stderr merged), and forgets it. */
  take(): UnreadOutput
  /** Stops it: SIGTERM to its process group, SIGKILL after a grace. */
  stop(): void
  /** Settles once the shell has exited (by itself or stopped) and its output is read. */
  readonly done: Promise<BackgroundExit>
  /** The exit, once `done` has settled (undefined while it runs). */
  readonly exit: BackgroundExit | undefined
}
