import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import type { FileKind } from '../../ports/file-system.port.js'
import type { FileSystem } from '../../ports/index.js'
import { closest } from '../input-errors.js'
import type { ValidationResult } from '../tool.types.js'

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
  return guess !== undefined ? `no such file ${path} — did you mean ${join(dir, guess)}?` : `no such file ${path}`
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
