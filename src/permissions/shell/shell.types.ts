/**
 * The types of the shell analysis: a plain syntax tree (what the bash grammar adapter hands over)
 * and the simple commands a script executes. No I/O and no tree-sitter objects live here, so the
 * analysis can be tested, replayed and reasoned about without the WebAssembly grammar.
 */

/**
 * One node of a bash syntax tree, copied out of tree-sitter into plain objects so that the
 * analysis never holds WebAssembly memory (tree-sitter trees must be freed by hand).
 */
export interface ShellNode {
  /** The grammar's node type: `command`, `word`, `"&&"` (anonymous tokens keep their text). */
  readonly type: string
  /** The source text this node covers. */
  readonly text: string
  /** Offsets into the parsed source (JavaScript string indices), end exclusive. */
  readonly start: number
  readonly end: number
  /** Named nodes are grammar rules; unnamed ones are literal tokens such as `;` or `$(`. */
  readonly named: boolean
  /** tree-sitter inserted this node to recover from an error: the input is incomplete. */
  readonly missing: boolean
  /** The field this node fills in its parent (`name`, `argument`, `body` …), if any. */
  readonly field: string | undefined
  readonly children: readonly ShellNode[]
}

/** The result of parsing: the tree, and whether the grammar had to recover from errors. */
export interface ShellTree {
  readonly root: ShellNode
  /** True when the tree contains an ERROR or MISSING node anywhere, or was too deep to copy. */
  readonly hasError: boolean
}

/**
 * A loaded bash grammar. `parse` returns `undefined` when the parser gave up (it never throws
 * for bad input: syntax errors come back as `hasError`).
 */
export interface BashParser {
  parse(source: string): ShellTree | undefined
}

/** `NAME=value` before a command, in `env NAME=value`, or in `export NAME=value`. */
export interface Assignment {
  readonly name: string
  /** The value with quotes resolved, or its raw text when it contains expansions. */
  readonly value: string
}

/** One redirection: `2>&1` is `{ op: '>&', target: '1', fd: 2 }`; `<<EOF` targets `EOF`. */
export interface Redirect {
  readonly op: string
  readonly target: string
  readonly fd?: number
}

/** A simple command the script executes, after wrappers such as `env` or `bash -c` are peeled. */
export interface SimpleCommand {
  /**
   * The command name used for matching: quotes resolved (`r""m` is `rm`), an absolute path
   * reduced to its basename (`/bin/rm` is `rm`); a relative path stays as written (`./x`).
   * The empty string for a statement that only assigns variables (`X=1`).
   */
  readonly name: string
  /**
   * The command word with quotes resolved but the path kept (`/tmp/x/git`): a rule that allows
   * `git` must not allow a program of that name in any directory.
   */
  readonly writtenName: string
  /** Arguments with quotes resolved; an argument with expansions keeps its raw text. */
  readonly args: readonly string[]
  readonly assignments: readonly Assignment[]
  readonly redirects: readonly Redirect[]
  /** The source text of the command as written, wrappers included. */
  readonly text: string
  /** Wrappers seen through, outermost first, e.g. `['bash -c', 'env']`. */
  readonly via: readonly string[]
  /** For each wrapper in `via`, its whole command line (wrapper words and all), outermost first. */
  readonly wrapperLines: readonly string[]
  /** Some argument contains a parameter or command expansion, a glob or a brace expansion. */
  readonly dynamic: boolean
  /** More arguments are supplied at run time (`xargs rm` appends words read from its input). */
  readonly openArgs: boolean
  /** Per argument: the kinds of expansion it contains (empty for a literal word). */
  readonly argExpansions: readonly (readonly Expansion[])[]
}

/**
 * Kinds of run-time expansion a word may contain. `process` is `<(…)` / `>(…)`: a pipe to a
 * command the analysis also reports, named `/dev/fd/N` at run time.
 */
export type Expansion = 'parameter' | 'command' | 'process' | 'arithmetic' | 'glob' | 'brace' | 'tilde'

/**
 * What a shell command executes. `known` lists every simple command that can run (a superset:
 * both branches of an `if`, the bodies of defined functions); `unknown` means the command could
 * not be analysed fully and must never be allowed by a rule nor treated as read-only.
 */
export type ShellAnalysis =
  | { readonly kind: 'known'; readonly commands: readonly SimpleCommand[]; readonly source: string }
  | { readonly kind: 'unknown'; readonly reason: string; readonly source: string }
