/**
 * The shell analysis: what a bash command line executes, whether it only reads, and how
 * `Bash(…)` permission rules match it. Pure: the grammar comes in as a `BashParser`
 * (see `loadBashGrammar` in adapters/bash-grammar.ts).
 */
export { analyzeShell, MAX_SOURCE_LENGTH } from './analyze.js'
export {
  analyzeCommand,
  clearShellCaches,
  commandReadOnly,
  installBashParser,
  installedBashParser,
} from './installed.js'
export { allowMatches, commandsForRules, covers, denyMatches, matchesSpecifier } from './match.js'
export type { RuleCommand, RuleCommands } from './match.js'
export { commandVerdict, READ_ONLY_TABLE, readOnlyVerdict, readOnlyVerdictOf } from './read-only.table.js'
export type { ReadOnlyRow, ReadOnlyVerdict } from './read-only.table.js'
export { redirectWrites } from './redirects.js'
export type {
  Assignment,
  BashParser,
  Expansion,
  Redirect,
  ShellAnalysis,
  ShellNode,
  ShellTree,
  SimpleCommand,
} from './shell.types.js'
export { WRAPPER_NAMES } from './wrappers.js'
export { namedReads, type NamedReads } from './reads.js'
