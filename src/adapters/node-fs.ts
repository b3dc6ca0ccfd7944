import type { Stats } from 'node:fs'
import { constants, existsSync } from 'node:fs'
import { mkdir, open, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { FileKind, OpenReadOptions, WriteFileOptions } from '../ports/file-system.port.js'
import type { FileSystem } from '../ports/index.js'
import { realPathOf } from './real-path.js'

/** How much `openRead` reads at a time: large enough for few reads, small enough to bound memory. */
export const READ_CHUNK_BYTES = 64 * 1024

/** What a `stat` result is, in the port's words. */
export function kindOf(s: Stats): FileKind {
  if (s.isFile()) return 'file'
  if (s.isDirectory()) return 'directory'
  if (s.isFIFO()) return 'fifo'
  if (s.isCharacterDevice()) return 'character-device'
  if (s.isBlockDevice()) return 'block-device'
  if (s.isSocket()) return 'socket'
  return 'other'
}

const KIND_WORDS: Record<Exclude<FileKind, 'file'>, string> = {
  directory: 'a directory',
  fifo: 'a FIFO (named pipe)',
  'character-device': 'a character device',
  'block-device': 'a block device',
  socket: 'a socket',
  other: 'a special file',
}

/** "a FIFO (named pipe)", "a character device", … for messages. */
export function describeKind(kind: Exclude<FileKind, 'file'>): string {
  return KIND_WORDS[kind]
}

const notFound = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

async function* openRead(path: string, options: OpenReadOptions = {}): AsyncGenerator<Uint8Array> {
  const before = await stat(path)
  const kind = kindOf(before)
  if (kind !== 'file') throw new Error(`${path} is ${describeKind(kind)}, not a regular file`)
  // O_NONBLOCK: if the path became a FIFO since the stat, open returns at once instead of waiting
  // for a writer, and the fstat below refuses it. On a regular file the flag changes nothing.
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0))
  try {
    const opened = kindOf(await handle.stat())
    if (opened !== 'file') throw new Error(`${path} is ${describeKind(opened)}, not a regular file`)
    for (;;) {
      options.signal?.throwIfAborted()
      // A fresh buffer each time: the reader may keep a chunk past the next one.
      const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES)
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK_BYTES, null)
      if (bytesRead === 0) return
      yield buffer.subarray(0, bytesRead)
    }
  } finally {
    await handle.close()
  }
}

/** Linux's /proc/self/fd: a path through an open directory, so the file is opened where it was checked. */
let procFd: boolean | undefined
const hasProcFd = (): boolean => (procFd ??= existsSync('/proc/self/fd'))

/**
 * Writes without following a symlink in the final component (O_NOFOLLOW), in the directory that
 * was checked: the directory is opened first, its real path taken from the open handle and
 * compared with the approved one, and the file then opened through that handle
 * (`/proc/self/fd/N/name`), so a directory swapped for a link after the check is not followed
 * either. Where /proc is absent the file is opened by its real path just after the check (a window
 * of one system call). O_NONBLOCK: a FIFO put in its place fails at once instead of waiting for a
 * reader. docs/decisions/tools.md records why.
 */
async function writeChecked(path: string, content: string, options: WriteFileOptions = {}): Promise<void> {
  const dir = dirname(path)
  await mkdir(dir, { recursive: true, mode: 0o755 })
  const directory = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0))
  try {
    const opened = hasProcFd() ? await readlink(`/proc/self/fd/${directory.fd}`) : await realpath(dir)
    const expected = options.approvedRealPath === undefined ? undefined : dirname(options.approvedRealPath)
    if (expected !== undefined && opened !== expected)
      throw new Error(
        `${path}: its directory now resolves to ${opened}, not ${expected} as when the write was approved (a symbolic link was put in its way); nothing was written`,
      )
    const target = hasProcFd() ? `/proc/self/fd/${directory.fd}/${basename(path)}` : join(opened, basename(path))
    const flags =
      constants.O_WRONLY |
      constants.O_CREAT |
      constants.O_TRUNC |
      (constants.O_NOFOLLOW ?? 0) |
      (constants.O_NONBLOCK ?? 0)
    const file = await open(target, flags, 0o644).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ELOOP')
        throw new Error(`${path} is a symbolic link; it is not followed for writing, and nothing was written`)
      if (error.code === 'ENXIO')
        throw new Error(`${path} is a FIFO (named pipe), not a regular file; nothing was written`)
      throw error
    })
    try {
      const kind = kindOf(await file.stat())
      if (kind !== 'file') throw new Error(`${path} is ${describeKind(kind)}, not a regular file; nothing was written`)
      await file.writeFile(content, 'utf8')
    } finally {
      await file.close()
    }
  } finally {
    await directory.close()
  }
}

/** The real file system. */
export const nodeFileSystem: FileSystem = {
  async stat(path) {
    try {
      const s = await stat(path)
      return { kind: kindOf(s), size: s.size, mtimeMs: s.mtimeMs }
    } catch (error) {
      if (notFound(error)) return undefined
      throw error
    }
  },
  readFile: (path) => readFile(path),
  openRead,
  writeFile: writeChecked,
  realPath: realPathOf,
  async readdir(path) {
    try {
      return await readdir(path)
    } catch {
      return []
    }
  },
}
