/**
 * The real path of an existing directory, or undefined for anything else: what the session asks
 * before it moves its working directory (docs/session-context.md).
 */
import { realpathSync, statSync } from 'node:fs'

export function realDirectoryOf(path: string): string | undefined {
  try {
    const real = realpathSync.native(path)
    return statSync(real).isDirectory() ? real : undefined
  } catch {
    return undefined
  }
}
