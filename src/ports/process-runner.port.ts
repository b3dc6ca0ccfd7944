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
}
