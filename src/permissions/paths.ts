/**
 * Paths are judged where they resolve: a rule, acceptEdits and the protected list look at the
 * path the model wrote *and* at where it really points (symlinks resolved, the file system's own
 * spelling). A deny or ask rule catches either; an allow, acceptEdits or "inside the working
 * directory" needs both. A path whose real location cannot be found (a loop of links) is judged
 * as outside everything allowed and inside everything protected: fail-closed.
 */
import { isAbsolute, resolve, sep } from 'node:path'
import { guarded } from '../util/guarded.js'
import { insideOf } from './rules.js'

/** Directories a change to which always asks, in every mode (as Claude Code's defaults). */
export const DEFAULT_PROTECTED_NAMES = ['.git', '.claude', '.vscode', '.idea'] as const

export interface PathJudge {
  readonly cwd: string
  /** Where a path really points; throws when that cannot be found. */
  readonly realPath: (path: string) => string
  /** Directory names protected wherever they appear (`.git`, also `sub/.git`). */
  readonly protectedNames: readonly string[]
  /** Absolute directories protected as a whole (the kernel's own log and result directories). */
  readonly protectedDirs: readonly string[]
}

/**
 * The judge for one decision: each path resolved once however many rules and checks look at it
 * (a failure too). Made per decision, never kept: the file system may change between calls.
 */
export function resolvingOnce(judge: PathJudge): PathJudge {
  const seen = new Map<string, { real: string } | { error: unknown }>()
  const realPath = (path: string): string => {
    let found = seen.get(path)
    if (found === undefined) {
      try {
        found = { real: judge.realPath(path) }
      } catch (error) {
        found = { error }
      }
      seen.set(path, found)
    }
    if ('error' in found) throw found.error
    return found.real
  }
  return { ...judge, realPath }
}

/** The lexical absolute path, and the real one (undefined when it cannot be resolved). */
export function candidates(judge: PathJudge, path: string): { lexical: string; real: string | undefined } {
  const lexical = isAbsolute(path) ? resolve(path) : resolve(judge.cwd, path)
  return { lexical, real: guarded(() => judge.realPath(lexical), undefined) }
}

/** Where the working directory really is, or its name when that cannot be found. */
export function realCwd(judge: PathJudge, cwd: string = judge.cwd): string {
  return guarded(() => judge.realPath(cwd), cwd)
}

/**
 * Both the path as written and where it points lie inside the working directory, and the latter
 * is not cwd itself (cwd as written resolves to cwd's real location, so one test covers both).
 */
export function insideWorkingDir(judge: PathJudge, path: string): boolean {
  const { lexical, real } = candidates(judge, path)
  if (real === undefined) return false
  const realRel = insideOf(realCwd(judge), real)
  return insideOf(judge.cwd, lexical) !== undefined && realRel !== undefined && realRel !== ''
}

/** Why a change to `path` must ask whatever the mode, or undefined. */
export function protectedReason(judge: PathJudge, path: string): string | undefined {
  const { lexical, real } = candidates(judge, path)
  if (real === undefined) return `where ${path} points cannot be resolved (a loop of symbolic links?)`
  for (const candidate of [lexical, real]) {
    const name = candidate.split(sep).find((part) => judge.protectedNames.includes(part))
    if (name !== undefined) return `${path} is inside ${name}, which is protected: changes there always ask first`
    const dir = judge.protectedDirs.find((d) => insideOf(d, candidate) !== undefined)
    if (dir !== undefined)
      return `${path} is inside ${dir}, which toolkernel keeps for itself: changes there always ask first`
  }
  return undefined
}
