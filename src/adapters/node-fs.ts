import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { FileSystem } from '../ports/index.js'

/** The real file system. */
export const nodeFileSystem: FileSystem = {
  async stat(path) {
    try {
      const s = await stat(path)
      return { kind: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', size: s.size, mtimeMs: s.mtimeMs }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
        return undefined
      throw error
    }
  },
  readFile: (path) => readFile(path),
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
