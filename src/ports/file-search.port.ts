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
