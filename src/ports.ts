/**
 * The kernel's ports: every capability that touches time, identity, storage or the outside
 * world. Types only. The kernel wires real adapters (src/actors/adapters); tests and replay
 * supply their own.
 */
import type { Observable } from 'rxjs'
import type { KernelEvent, KernelEventInput } from './events/event.schema.js'

/** Wall-clock time in milliseconds since the epoch. */
export interface Clock {
  now(): number
}

/** Produces ids for turns (and anything else the kernel must name). */
export interface IdGenerator {
  next(prefix: string): string
}

/**
 * An append-only event log. `append` stamps the envelope (`v`, `seq`, `at`) and returns the
 * stored event; nothing is ever rewritten or removed.
 */
export interface EventLog {
  append(event: KernelEventInput): KernelEvent
  /** Every event appended so far, in order. */
  read(): readonly KernelEvent[]
  /** Events as they are appended (live only; use `read()` for history). */
  readonly events$: Observable<KernelEvent>
  /** Flushes and releases resources (a file descriptor for the JSONL store). */
  close(): void
}

/** Where oversize tool output goes (the budget step). */
export interface ResultStore {
  /** Saves `content` under a name derived from `toolUseId` (never outside the store) and returns its path. */
  save(toolUseId: string, content: string): Promise<string>
}

/** What `FileSystem.stat` reports; `undefined` from `stat` means the path does not exist. */
export interface FileStat {
  kind: 'file' | 'directory' | 'other'
  size: number
  mtimeMs: number
}

/** The file operations the built-in tools need. Paths are absolute. */
export interface FileSystem {
  stat(path: string): Promise<FileStat | undefined>
  readFile(path: string): Promise<Uint8Array>
  /** Writes the file (mode 0644), creating missing parent directories (0755). */
  writeFile(path: string, content: string): Promise<void>
  /** Names in a directory (empty when it does not exist). */
  readdir(path: string): Promise<string[]>
}

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
  run(command: string, options: { cwd: string; timeoutMs: number; signal: AbortSignal; onOutput?: (chunk: string) => void }): Promise<ProcessResult>
}

export interface GlobMatch {
  /** Relative to the search root, with forward slashes. */
  path: string
  mtimeMs: number
}

export interface GrepOptions {
  pattern: string
  /** A directory or a file, absolute. */
  root: string
  glob?: string
  ignoreCase: boolean
  context: number
  mode: 'content' | 'files_with_matches' | 'count'
  limit: number
}

export interface GrepResult {
  /** Lines of output as the Grep tool shows them. */
  lines: string[]
  /** More matched than `limit`. */
  truncated: boolean
  /** Which engine answered: ripgrep or the built-in search. */
  engine: 'ripgrep' | 'builtin'
}

/** File search for the Glob and Grep tools, honouring ignore files. */
export interface FileSearch {
  glob(pattern: string, root: string): Promise<GlobMatch[]>
  grep(options: GrepOptions): Promise<GrepResult>
}

/** Per-kernel scratch state the tools share (what Read recorded, for Write and Edit). Never global. */
export interface SessionState {
  get<T>(key: string): T | undefined
  set<T>(key: string, value: T): void
}

/** The ports a tool receives in its context. */
export interface ToolPorts {
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly fs: FileSystem
  readonly processes: ProcessRunner
  readonly search: FileSearch
  readonly session: SessionState
}
