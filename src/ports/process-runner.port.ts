/** How a shell command ended. */
export interface ProcessResult {
  /** stdout and stderr merged in the order they were written. */
  output: string
  exitCode: number | null
  timedOut: boolean
  /** Stopped by the abort signal. */
  aborted: boolean
  /** Set when the command could not be started at all. */
  startError?: string
}

/** Runs shell commands. The whole process tree is killed on timeout or abort. */
export interface ProcessRunner {
  run(
    command: string,
    options: { cwd: string; timeoutMs: number; signal: AbortSignal; onOutput?: (chunk: string) => void },
  ): Promise<ProcessResult>
}
