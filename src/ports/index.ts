/**
 * The kernel's ports: every capability that touches time, identity, storage or the outside
 * world, one per file, types only. Real adapters are in src/adapters; tests and replay supply their own.
 */
export type { Clock } from './clock.port.js'
export type { IdGenerator } from './ids.port.js'
export type { EventLog } from './event-log.port.js'
export type { ResultKey, ResultStore, ResultWriter } from './result-store.port.js'
export type { FileKind, FileStat, FileSystem, OpenReadOptions, WriteFileOptions } from './file-system.port.js'
export type {
  BackgroundExit,
  BackgroundProcess,
  BackgroundStartOptions,
  ProcessResult,
  ProcessRunner,
  ProcessRunOptions,
  UnreadOutput,
} from './process-runner.port.js'
export type { BackgroundShells, ShellActor, ShellKilled, ShellRead, ShellStarted } from './background-shells.port.js'
export type { GlobMatch, GlobOptions, GlobResult, GrepOptions, GrepResult, FileSearch } from './file-search.port.js'
export type { SessionState } from './session-state.port.js'
export type { CommandVerdict, ShellAnalyzer } from './shell-analyzer.port.js'
export type { ToolPorts } from './tool-ports.port.js'
export type { HostLookup, ResolvedAddress, WebClient, WebRequestOptions, WebResponse } from './web-client.port.js'
export type {
  CommandLine,
  Sandbox,
  SandboxMode,
  SandboxNetwork,
  SandboxPolicy,
  SandboxProvider,
  SandboxScope,
  ToolSandboxes,
} from './sandbox.port.js'
