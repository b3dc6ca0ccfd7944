import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createWriteStream } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve, sep } from 'node:path'
import type { ResultStore } from '../ports/index.js'

/**
 * The file name for a tool_use id: the id itself when it is made of safe characters (real ids
 * are), otherwise the safe characters plus a hash of the id, so two odd ids never share a file and
 * no id (`../../etc/x`) can name a path outside the store.
 */
export function resultFileName(toolUseId: string): string {
  const safe = toolUseId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100)
  if (safe === toolUseId && safe !== '') return `${safe}.txt`
  const hash = createHash('sha256').update(toolUseId).digest('hex').slice(0, 12)
  return `${safe.replace(/^_+/, '') || 'result'}-${hash}.txt`
}

/**
 * A result store in a directory (created on first save).
 *
 * @example
 * createKernel({ tools, results: createDirectoryResultStore('/var/tmp/agent-results') })
 */
export function createDirectoryResultStore(dir: string): ResultStore {
  const root = resolve(dir)
  return {
    async save({ toolUseId }, content) {
      const path = join(root, resultFileName(toolUseId))
      if (!path.startsWith(root + sep)) throw new Error(`refusing to write outside the result store: ${path}`)
      await mkdir(root, { recursive: true, mode: 0o755 })
      await writeFile(path, content, { mode: 0o644 })
      return path
    },
    async open({ toolUseId }) {
      const path = join(root, `stream-${resultFileName(toolUseId)}`)
      if (!path.startsWith(root + sep)) throw new Error(`refusing to write outside the result store: ${path}`)
      await mkdir(root, { recursive: true, mode: 0o755 })
      const stream = createWriteStream(path, { mode: 0o644 })
      return {
        path,
        write: (chunk) => void stream.write(chunk),
        close: () =>
          new Promise<void>((done, fail) => stream.end((error?: Error | null) => (error ? fail(error) : done()))),
      }
    },
  }
}

/** The text a result store saved, for replay to rebuild a preview; undefined when it is gone. */
export function readSavedResult(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
