import type { BackgroundShells } from './background-shells.port.js'
import type { Clock } from './clock.port.js'
import type { FileSearch } from './file-search.port.js'
import type { FileSystem } from './file-system.port.js'
import type { IdGenerator } from './ids.port.js'
import type { ProcessRunner } from './process-runner.port.js'
import type { ResultStore } from './result-store.port.js'
import type { ToolSandboxes } from './sandbox.port.js'
import type { SessionState } from './session-state.port.js'
import type { ShellAnalyzer } from './shell-analyzer.port.js'
import type { WebClient } from './web-client.port.js'

/** The ports a tool receives in its context. */
export interface ToolPorts {
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly fs: FileSystem
  readonly processes: ProcessRunner
  readonly search: FileSearch
  readonly session: SessionState
  /** Where a tool may stream output too large to keep in memory (the kernel's result store). */
  readonly results: ResultStore
  /** The kernel's shell analysis: whether a command only reads (Bash's read-only verdict). */
  readonly shell: ShellAnalyzer
  /**
   * The kernel's background shells (Bash `run_in_background`, BashOutput, KillShell). Absent
   * (ports an app built itself): background commands are refused with a message saying so.
   */
  readonly shells?: BackgroundShells
  /**
   * The OS sandbox each tool's processes run in, when the app configured one: a tool that starts
   * processes passes `forTool(its name)` to `processes.run` so a tool-level override applies.
   */
  readonly sandbox?: ToolSandboxes
  /**
   * The web, one request at a time (WebFetch). Absent (ports an app built itself): WebFetch says
   * this kernel has no web client.
   */
  readonly web?: WebClient
}
