/** Names one saved result: the call's id within its turn (the same id may come back in a later turn). */
export interface ResultKey {
  readonly turnId: string
  readonly toolUseId: string
}

/** Output that streams into the store as it is produced (a command's output), never held whole in memory. */
export interface ResultWriter {
  /** Where the output is kept, for the model to read back. */
  readonly path: string
  write(chunk: string): void
  /** Flushes and closes; the file is complete once this settles. */
  close(): Promise<void>
}

/** Where oversize tool output goes (the budget step, and tools that stream large output). */
export interface ResultStore {
  /** The directory the store keeps its files in, when it is one (an OS sandbox keeps it writable). */
  readonly dir?: string
  /** Saves `content` under a name derived from `key` (never outside the store) and returns its path. */
  save(key: ResultKey, content: string): Promise<string>
  /**
   * Opens a file for output that arrives in chunks; named like `save`'s, distinct from it. A
   * store without it cannot take streamed output: tools then keep only a bounded head and tail.
   */
  open?(key: ResultKey): Promise<ResultWriter>
}
