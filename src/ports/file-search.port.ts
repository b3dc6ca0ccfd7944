export interface GlobMatch {
  /** Relative to the search root, with forward slashes. */
  path: string
  mtimeMs: number
}

/** What Glob asks of a search besides the pattern and the root. */
export interface GlobOptions {
  /** Keep only the newest `limit` matches (the rest are counted, not kept). */
  limit?: number
  /** Matches (paths relative to the root) to leave out, before counting: those the model may not read. */
  excluded?: (path: string) => boolean
  /** Stops the search (it rejects) when aborted. */
  signal?: AbortSignal
}

/** The newest matches and how many matched in all. */
export interface GlobResult {
  /** Newest first (ties by path), at most `limit`. */
  matches: GlobMatch[]
  /** Every match not excluded, kept or not. */
  total: number
}

export interface GrepOptions {
  pattern: string
  /** A directory or a regular file, absolute. Anything else (a FIFO, a device) is refused at once. */
  root: string
  glob?: string
  ignoreCase: boolean
  context: number
  mode: 'content' | 'files_with_matches' | 'count'
  limit: number
  /** Stops the search (it rejects) when aborted: the tool call's signal. */
  signal?: AbortSignal
  /** Overrides the search's time limit (the adapter's default, 20 s). */
  timeoutMs?: number
  /** Files (paths relative to the root) to leave out of the result: those the model may not read. */
  excluded?: (path: string) => boolean
}

export interface GrepResult {
  /** Lines of output as the Grep tool shows them. */
  lines: string[]
  /** More matched than `limit`. */
  truncated: boolean
  /** Which engine answered: ripgrep or the built-in search. */
  engine: 'ripgrep' | 'builtin'
}

/**
 * File search for the Glob and Grep tools, honouring ignore files. Grep's results are sorted by
 * path (compared name by name, as ripgrep's `--sort path` does) and line, so every engine gives the
 * same lines, and past the limit the same first ones.
 */
export interface FileSearch {
  /**
   * Files under `root` whose relative paths match `pattern`, newest first. The kernel's search
   * streams the tree and keeps only the newest `limit` (a `GlobResult`); an app's own search may
   * still answer with every match as an array, which the Glob tool then filters and cuts itself.
   */
  glob(pattern: string, root: string, options?: GlobOptions): Promise<GlobResult | GlobMatch[]>
  grep(options: GrepOptions): Promise<GrepResult>
}
