/**
 * The shell analysis as the shell tests call it: over the real bash grammar, loaded once per test
 * file (in its `beforeAll`).
 */
import { beforeAll } from 'vitest'
import { loadBashGrammar } from '../../../src/adapters/bash-grammar.js'
import { analyzeShell } from '../../../src/permissions/shell/analyze.js'
import type { BashParser, ShellAnalysis, SimpleCommand } from '../../../src/permissions/shell/shell.types.js'

let parser: BashParser | undefined

beforeAll(async () => {
  parser ??= await loadBashGrammar()
})

/** The loaded grammar, for the functions that take it (readOnlyVerdict …). */
export function bash(): BashParser {
  if (parser === undefined) throw new Error('the bash grammar is loaded in beforeAll: analyse inside a test')
  return parser
}

export function analysis(command: string): ShellAnalysis {
  return analyzeShell(command, bash())
}

/** The commands a command runs; throws (failing the test) if the analysis does not know them. */
export function known(command: string): readonly SimpleCommand[] {
  const result = analysis(command)
  if (result.kind === 'unknown') throw new Error(`expected ${JSON.stringify(command)} to be known: ${result.reason}`)
  return result.commands
}

/** A simple command as `name arg…`. */
export const line = (cmd: SimpleCommand): string => [cmd.name, ...cmd.args].join(' ')

/** What the analysis says, compactly: each command found as `name arg…`, or the reason it is unknown. */
export type Outcome = string[] | { readonly unknown: string }

export function outcome(command: string): Outcome {
  const result = analysis(command)
  if (result.kind === 'unknown') return { unknown: result.reason }
  return result.commands.map(line)
}
