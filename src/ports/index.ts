/**
 * The kernel's ports: every capability that touches time, identity, storage or the outside
 * world, one per file, types only. Real adapters are in src/adapters; tests and replay supply their own.
 */
export type { Clock } from './clock.port.js'
export type { IdGenerator } from './ids.port.js'
export type { EventLog } from './event-log.port.js'
export type { ResultKey, ResultStore, ResultWriter } from './result-store.port.js'
export type { FileKind, FileStat, FileSystem, OpenReadOptions } from './file-system.port.js'
export type { ProcessResult, ProcessRunner, ProcessRunOptions } from './process-runner.port.js'
export type { GlobMatch, GrepOptions, GrepResult, FileSearch } from './file-search.port.js'
export type { SessionState } from './session-state.port.js'
export type { CommandVerdict, ShellAnalyzer } from './shell-analyzer.port.js'
export type { ToolPorts } from './tool-ports.port.js'
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
