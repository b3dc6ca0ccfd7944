/**
 * What a path is, as `stat` sees it after following symlinks. Everything but `file` and
 * `directory` is a special file that a reader must never open: a FIFO blocks its reader until a
 * writer comes, and a device such as /dev/zero never ends.
 */
export type FileKind = 'file' | 'directory' | 'fifo' | 'character-device' | 'block-device' | 'socket' | 'other'

/** What `FileSystem.stat` reports; `undefined` from `stat` means the path does not exist. */
export interface FileStat {
  kind: FileKind
  size: number
  mtimeMs: number
}

/** Options for `FileSystem.openRead`. */
export interface OpenReadOptions {
  /** Stops the reading (the iteration throws) when aborted. */
  signal?: AbortSignal
}

/** The file operations the built-in tools need. Paths are absolute. */
export interface FileSystem {
  /** What the path is, following symlinks; undefined when it does not exist. Never opens it. */
  stat(path: string): Promise<FileStat | undefined>
  readFile(path: string): Promise<Uint8Array>
  /**
   * The bytes of a regular file from its start, a chunk at a time, so that a reader keeps only
   * what it needs (Read streams a range of lines). Leaving the loop early closes the file. Throws
   * for a path that is not a regular file, without opening a FIFO or a device first.
   *
   * @example
   * for await (const chunk of fs.openRead('/var/log/big.log', { signal })) if (scan(chunk)) break
   */
  openRead(path: string, options?: OpenReadOptions): AsyncIterable<Uint8Array>
  /** Writes the file (mode 0644), creating missing parent directories (0755). */
  writeFile(path: string, content: string): Promise<void>
  /** Names in a directory (empty when it does not exist). */
  readdir(path: string): Promise<string[]>
}
