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
