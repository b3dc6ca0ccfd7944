import { createHash } from 'node:crypto'
import { constants, lstatSync, readFileSync } from 'node:fs'
import { chmod, lstat, mkdir, open, unlink, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, isAbsolute, join, resolve, sep } from 'node:path'
import type { ResultKey, ResultStore } from '../ports/index.js'
import { callKey } from '../events/call-key.js'

/**
 * The file name for a saved result: the call's id made of safe characters, then a hash of turn
 * and id — so two odd ids, or one id in two turns, never share a file, and no id
 * (`../../etc/x`) names a path outside the store. `attempt` > 0 gives the next free name when
 * one is taken.
 */
export function resultFileName(key: ResultKey, attempt = 0): string {
  // A leading '-' would read as an option to the commands the model runs on the file.
  const safe =
    key.toolUseId
      .replace(/[^A-Za-z0-9_-]/g, '_')
      .slice(0, 100)
      .replace(/^[_-]+/, '') || 'result'
  const hash = createHash('sha256').update(callKey(key.turnId, key.toolUseId)).digest('hex').slice(0, 12)
  return `${safe}-${hash}${attempt > 0 ? `-${attempt}` : ''}.txt`
}

/**
 * A result store in a directory private to this user: created 0700 on first save (an existing
 * one of ours is made 0700; a symlink or another user's directory is refused), each file created
 * 0600, exclusively and without following links — a name already taken (a planted symlink, an
 * earlier save) moves on to the next free name, nothing is ever overwritten.
 *
 * @example
 * createKernel({ tools, results: createDirectoryResultStore('/var/tmp/agent-results') })
 */
export function createDirectoryResultStore(dir: string): ResultStore {
  const root = resolve(dir)
  return {
    dir: root,
    async save(key, content) {
      const { path, handle } = await createFile(root, key, '')
      try {
        await handle.writeFile(content, 'utf8')
      } catch (error) {
        await handle.close()
        await unlink(path).catch(() => {})
        throw error
      }
      await handle.close()
      return path
    },
    async open(key) {
      const { path, handle } = await createFile(root, key, 'stream-')
      const stream = handle.createWriteStream({ encoding: 'utf8' })
      return {
        path,
        write: (chunk) => void stream.write(chunk),
        close: () =>
          new Promise<void>((done, fail) => stream.end((error?: Error | null) => (error ? fail(error) : done()))),
      }
    },
  }
}

/** The private, per-user directory the kernel keeps oversize results in by default. */
export function createDefaultResultStore(): ResultStore {
  return createDirectoryResultStore(defaultResultStoreDir())
}

/**
 * `$XDG_RUNTIME_DIR/toolkernel-results` when that directory is set, absolute, and private to this
 * user (as the XDG spec promises, but we check); otherwise `<tmp>/toolkernel-results-<uid>`.
 * Either way the store itself is made 0700 and checked to be ours on first save.
 */
export function defaultResultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  const uid = process.getuid?.()
  const runtime = env.XDG_RUNTIME_DIR
  if (runtime !== undefined && isAbsolute(runtime) && isPrivateDir(runtime, uid))
    return join(runtime, 'toolkernel-results')
  return join(tmpdir(), uid === undefined ? 'toolkernel-results' : `toolkernel-results-${uid}`)
}

function isPrivateDir(path: string, uid: number | undefined): boolean {
  try {
    const info = lstatSync(path)
    return info.isDirectory() && (uid === undefined || info.uid === uid) && (info.mode & 0o077) === 0
  } catch {
    return false
  }
}

const CREATE_FLAGS = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW
const MAX_ATTEMPTS = 100

/** Creates the next free file for `key`: exclusively, never through a link, 0600. */
async function createFile(root: string, key: ResultKey, prefix: string): Promise<{ path: string; handle: FileHandle }> {
  await ensurePrivateDir(root)
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const path = join(root, prefix + resultFileName(key, attempt))
    if (!path.startsWith(root + sep)) throw new Error(`refusing to write outside the result store: ${path}`)
    try {
      return { path, handle: await open(path, CREATE_FLAGS, 0o600) }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // EEXIST: taken (O_EXCL also refuses a symlink there); ELOOP: a symlink, on systems that say so.
      if (code !== 'EEXIST' && code !== 'ELOOP') throw error
    }
  }
  throw new Error(
    `cannot save the result of ${key.toolUseId}: ${MAX_ATTEMPTS} file names in ${root} are already taken — clean up the result store`,
  )
}

/** Makes `root` a directory only this user can enter, or says why it cannot be one. */
async function ensurePrivateDir(root: string): Promise<void> {
  // Something already there (a dangling symlink, a file) is judged below, by what it is.
  await mkdir(root, { recursive: true, mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST' && error.code !== 'ENOTDIR') throw error
  })
  const info = await lstat(root)
  const refuse = (why: string) =>
    new Error(`refusing to use the result store ${root}: ${why} — remove it, or give the kernel another directory`)
  if (info.isSymbolicLink()) throw refuse('it is a symbolic link, so results could land wherever it points')
  if (!info.isDirectory()) throw refuse('it is not a directory')
  const uid = process.getuid?.()
  if (uid !== undefined && info.uid !== uid)
    throw refuse(`it belongs to user ${info.uid}, not to this process (user ${uid}), who could read or replace results`)
  if ((info.mode & 0o077) !== 0) await chmod(root, 0o700)
}

/** The text a result store saved, for replay to rebuild a preview; undefined when it is gone. */
export function readSavedResult(path: string): string | undefined {
  // A log is input too: replaying an untrusted one must not print any file it names. Only a
  // regular file (not a link) named the way this store names files, of a size a result can be.
  if (!SAVED_NAME.test(basename(path))) return undefined
  try {
    const stat = lstatSync(path)
    if (!stat.isFile() || stat.size > MAX_SAVED_BYTES) return undefined
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

const SAVED_NAME = /^(stream-)?[A-Za-z0-9_-]{1,100}-[0-9a-f]{12}(-\d+)?\.txt$/
const MAX_SAVED_BYTES = 256 * 1024 * 1024
