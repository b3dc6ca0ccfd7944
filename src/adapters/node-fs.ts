import type { Stats } from 'node:fs'
import { constants } from 'node:fs'
import { mkdir, open, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { FileKind, OpenReadOptions } from '../ports/file-system.port.js'
import type { FileSystem } from '../ports/index.js'

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
  async writeFile(path, content) {
    await mkdir(dirname(path), { recursive: true, mode: 0o755 })
    await writeFile(path, content, { mode: 0o644 })
  },
  async readdir(path) {
    try {
      return await readdir(path)
    } catch {
      return []
    }
  },
}
