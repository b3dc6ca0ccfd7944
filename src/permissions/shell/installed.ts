/**
 * The process's loaded bash grammar, and the analyses made with it. The grammar is WebAssembly
 * loaded once per process (src/adapters/bash-grammar.ts installs it here); the kernel waits for
 * it before a turn decides anything. Until it is installed every command is `unknown`: never
 * allowed by a rule, never read-only — fail-closed, never a guess.
 *
 * One command is analysed once: the scheduler's safety check, the permission rules, the mode's
 * read-only test and the tool's own check all ask about the same string.
 */
import { analyzeShell } from './analyze.js'
import { clearParsedSpecifiers } from './match.js'
import { readOnlyVerdictOf, type ReadOnlyVerdict } from './read-only.table.js'
import type { BashParser, ShellAnalysis } from './shell.types.js'

let parser: BashParser | undefined
const cache = new Map<string, ShellAnalysis>()
const CACHE_SIZE = 256
// A verdict is a pure function of its analysis; keyed by the (cached) analysis object, it lives as long as it does.
const verdicts = new WeakMap<ShellAnalysis, ReadOnlyVerdict>()

export function installBashParser(loaded: BashParser): void {
  parser = loaded
  cache.clear()
}

/**
 * Forgets every analysis and parsed rule specifier the process keeps. Results never depend on
 * these caches; the mutation suite clears them before each test (test/mutation.setup.ts), since a
 * mutant in code whose result was cached by an earlier test would otherwise never run.
 */
export function clearShellCaches(): void {
  cache.clear()
  clearParsedSpecifiers()
}

export function installedBashParser(): BashParser | undefined {
  return parser
}

/** The analysis of `command` with the installed grammar (unknown when none is installed yet). */
export function analyzeCommand(command: string): ShellAnalysis {
  const hit = cache.get(command)
  if (hit !== undefined) return hit
  const analysis = analyzeShell(command, parser)
  if (parser === undefined) return analysis
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string)
  cache.set(command, analysis)
  return analysis
}

/**
 * Whether a shell command only reads, by the read-only table, with the installed grammar. Before
 * a kernel has loaded the grammar (`createKernel` with Bash does), every command is "not
 * read-only: the shell parser is not loaded".
 */
export function commandReadOnly(command: string): Readonly<ReadOnlyVerdict> {
  const analysis = analyzeCommand(command)
  const hit = verdicts.get(analysis)
  if (hit !== undefined) return hit
  // Frozen: one verdict object answers every caller (safety, read-only, checkPermissions) for the command.
  const verdict = Object.freeze(readOnlyVerdictOf(analysis))
  verdicts.set(analysis, verdict)
  return verdict
}
