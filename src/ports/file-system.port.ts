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

/** Options for `FileSystem.writeFile`. */
export interface WriteFileOptions {
  /**
   * The real path the write was approved for (docs/design.md §The trust model): the file is
   * written only if, at the moment it is opened, the directory it lands in really is this path's
   * directory. A directory swapped for a symlink since then makes the write throw, writing
   * nothing.
   */
  approvedRealPath?: string
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
  /**
   * Writes the file (mode 0644), creating missing parent directories (0755). A symlink in the
   * final component is never followed (the write throws): pass the real path (`realPath`) to
   * write where a link points. With `approvedRealPath`, the directory is checked as it is opened.
   */
  writeFile(path: string, content: string, options?: WriteFileOptions): Promise<void>
  /**
   * Where the path really points, symlinks resolved (the part that does not exist yet kept as
   * written), as the permission rules judge it. Write and Edit take it when they validate a call
   * and again when they write: a difference means the path was changed in between. Optional: a
   * file system without it gets no such check.
   *
   * @throws Error when the links loop.
   */
  realPath?(path: string): string
  /** Names in a directory (empty when it does not exist). */
  readdir(path: string): Promise<string[]>
}
