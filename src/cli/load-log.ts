/** Reads a log file for the CLI, with errors that say what is wrong and where. */
import { readFileSync, statSync } from 'node:fs'
import { parseJsonl } from '../events/jsonl.js'
import type { KernelEvent } from '../events/event.schema.js'

export class CliError extends Error {}

export function loadLog(path: string, options: { skipCorrupt: boolean; err: (line: string) => void }): KernelEvent[] {
  let size: number
  try {
    const stat = statSync(path)
    if (stat.isDirectory()) throw new CliError(`${path} is a directory, not a log file`)
    size = stat.size
  } catch (error) {
    if (error instanceof CliError) throw error
    throw new CliError(`no such log file: ${path}`)
  }
  if (size > 20 * 1024 * 1024) options.err(`reading ${path} (${(size / 1024 / 1024).toFixed(0)} MiB)…`)
  const parsed = parseJsonl(readFileSync(path, 'utf8'))
  if (parsed.events.length === 0 && parsed.corrupt.length > 0) {
    throw new CliError(
      `${path} is not a toolkernel log: line ${parsed.corrupt[0]?.line}: ${parsed.corrupt[0]?.message}`,
    )
  }
  if (parsed.events.length === 0) throw new CliError(`${path} is empty: no events to read`)
  for (const bad of parsed.corrupt) {
    if (!options.skipCorrupt)
      throw new CliError(`${path}:${bad.line}: ${bad.message} (use --skip-corrupt to go on without it)`)
    options.err(`skipping ${path}:${bad.line}: ${bad.message}`)
  }
  if (parsed.torn) options.err(`${path}: the last line was cut off mid-write (a crash?) and is left out`)
  if (parsed.events.length > 100_000) options.err(`${parsed.events.length} events read`)
  return parsed.events
}
