/**
 * Where a path really points: symlinks in its existing prefix resolved (a dangling link followed
 * to where a write would land), the spelling the file system has, the part that does not exist
 * yet kept as written. Permissions judge this path, never only the text the model wrote.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'

const MAX_LINKS = 40

/**
 * @throws Error when the links loop or nest deeper than 40 (the caller fails closed).
 */
export function realPathOf(path: string, links = 0): string {
  let head = resolve(path)
  const tail: string[] = []
  for (;;) {
    try {
      const real = realpathSync.native(head)
      return tail.length === 0 ? real : join(real, ...tail.reverse())
    } catch {
      const target = danglingTarget(head)
      if (target !== undefined) {
        if (links >= MAX_LINKS) throw new Error(`${path}: too many levels of symbolic links`)
        return realPathOf(tail.length === 0 ? target : join(target, ...[...tail].reverse()), links + 1)
      }
      const parent = dirname(head)
      if (parent === head) return resolve(path)
      tail.push(basename(head))
      head = parent
    }
  }
}

/** For a symlink whose target does not exist: where the target would be. */
function danglingTarget(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined
    return resolve(dirname(path), readlinkSync(path))
  } catch {
    return undefined
  }
}
