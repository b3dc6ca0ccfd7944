import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import type { FileKind } from '../../ports/file-system.port.js'
import type { FileSystem } from '../../ports/index.js'
import { closest } from '../input-errors.js'
import type { ToolContext, ValidationResult } from '../tool.types.js'
import { showName } from '../../util/show-name.js'

/** A validation message for a path that is not absolute, naming the absolute path it would have meant. */
export function absolutePathProblem(path: string, cwd: string, field = 'file_path'): string | undefined {
  if (isAbsolute(path)) return undefined
  return `${field} must be an absolute path; "${path}" is relative. Did you mean ${resolve(cwd, path)}?`
}

/** validateInput's answer for a path field: absolute, or an error naming the absolute path meant. */
export function absolutePathCheck(path: string | undefined, cwd: string, field = 'file_path'): ValidationResult {
  const problem = path === undefined ? undefined : absolutePathProblem(path, cwd, field)
  return problem === undefined ? { result: true } : { result: false, message: problem }
}

/** "no such file X — did you mean Y?", with a similar name from the same directory when there is one. */
export async function missingFileMessage(fs: FileSystem, path: string): Promise<string> {
  const dir = dirname(path)
  const names = await fs.readdir(dir)
  if (names.length === 0 && (await fs.stat(dir)) === undefined)
    return `no such file ${path} (the directory ${dir} does not exist either)`
  const guess = closest(basename(path), names)
  // The guess is a name from the disk: escaped, so it cannot forge a line (docs/decisions/tools.md).
  return guess !== undefined
    ? `no such file ${path} — did you mean ${showName(join(dir, guess))}?`
    : `no such file ${path}`
}

/** Lines in `cat -n` style: the number right-aligned in six columns, a tab, the text. */
export function numberLines(lines: readonly string[], firstLine: number): string {
  return lines.map((line, i) => `${String(firstLine + i).padStart(6)}\t${line}`).join('\n')
}

const SPECIAL_KINDS: Record<Exclude<FileKind, 'file' | 'directory'>, string> = {
  fifo: 'a FIFO (named pipe)',
  'character-device': 'a character device',
  'block-device': 'a block device',
  socket: 'a socket',
  other: 'a special file',
}

/** "a FIFO (named pipe)", "a character device", … : what a special file is, for messages. */
export function specialFileWords(kind: Exclude<FileKind, 'file' | 'directory'>): string {
  return SPECIAL_KINDS[kind]
}

/** Per call: the real path each written path had when the call was validated (before it was approved). */
const approved = new WeakMap<ToolContext, Map<string, string>>()

/**
 * Notes where `path` really points now, as the call is validated: the permission step, which
 * comes next, judges this same real path, and the app is asked about it. `writeTarget` compares.
 * A path whose links loop is not noted (writing it then fails as the permission step does).
 */
export function pinRealPath(context: ToolContext, path: string): void {
  const realPath = context.ports.fs.realPath
  if (realPath === undefined) return
  let real: string
  try {
    real = realPath(path)
  } catch {
    return
  }
  let pins = approved.get(context)
  if (pins === undefined) approved.set(context, (pins = new Map()))
  pins.set(path, real)
}

/**
 * Where a write to `path` must go: the real path it had when the call was validated and
 * approved. If a symlink put in its way since (while the approval prompt was open, say) makes it
 * lead elsewhere now, this throws and nothing is written (docs/decisions/tools.md).
 */
export function writeTarget(context: ToolContext, path: string): string {
  const realPath = context.ports.fs.realPath
  if (realPath === undefined) return path
  const now = realPath(path)
  const then = approved.get(context)?.get(path)
  if (then !== undefined && now !== then)
    throw new Error(
      `${path} changed since the call was approved: it led to ${then} then and leads to ${now} now (a symbolic link was put in its way); nothing was written. Check the path, and call again if it is still what you mean`,
    )
  return then ?? now
}
