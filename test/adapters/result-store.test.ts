/** The directory result store on real temp directories: private, exclusive, never following a planted link. */
import {
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createDirectoryResultStore, defaultResultStoreDir, resultFileName } from '../../src/adapters/result-store.js'

const dirs: string[] = []
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-results-test-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const mode = (path: string) => lstatSync(path).mode & 0o777
const key = { turnId: 'turn_1', toolUseId: 'toolu_01' }
const uid = process.getuid?.()

describe('file names', () => {
  it('derive from the call, with a hash of turn and id: never outside the store, never shared', () => {
    expect(resultFileName(key)).toMatch(/^toolu_01-[0-9a-f]{12}\.txt$/)
    expect(resultFileName({ turnId: 't', toolUseId: '../../etc/x' })).toMatch(/^etc_x-[0-9a-f]{12}\.txt$/)
    expect(resultFileName({ turnId: 't', toolUseId: 'a/b' })).not.toBe(
      resultFileName({ turnId: 't', toolUseId: 'a_b' }),
    )
    expect(resultFileName({ ...key, turnId: 'turn_2' })).not.toBe(resultFileName(key))
    expect(resultFileName({ turnId: 't', toolUseId: '-rf' })).toMatch(/^rf-/)
    expect(resultFileName(key, 2)).toBe(resultFileName(key).replace(/\.txt$/, '-2.txt'))
  })
})

describe('createDirectoryResultStore', () => {
  it('creates its directory 0700 and each file 0600', async () => {
    const root = join(scratch(), 'a', 'store')
    const store = createDirectoryResultStore(root)
    const path = await store.save(key, 'data')
    expect(mode(root)).toBe(0o700)
    expect(mode(path)).toBe(0o600)
    expect(readFileSync(path, 'utf8')).toBe('data')
    const writer = await (store.open?.(key) ?? Promise.reject(new Error('no open')))
    writer.write('chunk 1, ')
    writer.write('chunk 2')
    await writer.close()
    expect(mode(writer.path)).toBe(0o600)
    expect(readFileSync(writer.path, 'utf8')).toBe('chunk 1, chunk 2')
    expect(writer.path).not.toBe(path)
  })

  it('keeps the same id in two turns, and the same call saved twice, in separate files', async () => {
    const root = join(scratch(), 'store')
    const store = createDirectoryResultStore(root)
    const first = await store.save(key, 'turn 1')
    const second = await store.save({ ...key, turnId: 'turn_2' }, 'turn 2')
    const again = await store.save(key, 'turn 1, again')
    expect(new Set([first, second, again]).size).toBe(3)
    expect([first, second, again].map((p) => readFileSync(p, 'utf8'))).toEqual(['turn 1', 'turn 2', 'turn 1, again'])
    expect(readdirSync(root)).toHaveLength(3)
  })

  it('never follows a symlink planted at the next file name: its target is unchanged, the save goes elsewhere', async () => {
    const dir = scratch()
    const root = join(dir, 'store')
    mkdirSync(root, { mode: 0o700 })
    const target = join(dir, 'precious.txt')
    writeFileSync(target, 'keep me')
    symlinkSync(target, join(root, resultFileName(key)))
    symlinkSync(join(dir, 'dangling'), join(root, `stream-${resultFileName(key)}`))
    const store = createDirectoryResultStore(root)
    const path = await store.save(key, 'attacker wanted this in precious.txt')
    const writer = await (store.open?.(key) ?? Promise.reject(new Error('no open')))
    writer.write('streamed')
    await writer.close()
    expect(readFileSync(target, 'utf8')).toBe('keep me')
    expect(readdirSync(dir).sort()).toEqual(['precious.txt', 'store'])
    expect(path).toBe(join(root, resultFileName(key, 1)))
    expect(lstatSync(path).isFile()).toBe(true)
    expect(lstatSync(writer.path).isFile()).toBe(true)
    expect(readFileSync(path, 'utf8')).toBe('attacker wanted this in precious.txt')
  })

  it('refuses a store directory that is a symlink, saying so', async () => {
    const dir = scratch()
    mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 })
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'store'))
    await expect(createDirectoryResultStore(join(dir, 'store')).save(key, 'x')).rejects.toThrow(
      /result store .*store: it is a symbolic link/,
    )
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([])
  })

  it('repairs an existing directory of ours that others can read: it becomes 0700', async () => {
    const root = join(scratch(), 'store')
    mkdirSync(root, { mode: 0o755 })
    await createDirectoryResultStore(root).save(key, 'x')
    expect(mode(root)).toBe(0o700)
  })

  it.skipIf(uid !== 0)(
    'refuses a directory owned by another user, naming the owner (needs root to set one up)',
    async () => {
      const root = join(scratch(), 'store')
      mkdirSync(root, { mode: 0o700 })
      chownSync(root, 4242, 4242)
      await expect(createDirectoryResultStore(root).save(key, 'x')).rejects.toThrow(
        /belongs to user 4242, not to this process/,
      )
      expect(readdirSync(root)).toEqual([])
    },
  )
})

describe('defaultResultStoreDir', () => {
  it('is private to this user: under XDG_RUNTIME_DIR when that is ours, else a per-user directory in tmp', () => {
    const runtime = join(scratch(), 'run')
    mkdirSync(runtime, { mode: 0o700 })
    expect(defaultResultStoreDir({ XDG_RUNTIME_DIR: runtime })).toBe(join(runtime, 'toolkernel-results'))
    const open = join(scratch(), 'open')
    mkdirSync(open, { mode: 0o777 })
    const fallback = join(tmpdir(), uid === undefined ? 'toolkernel-results' : `toolkernel-results-${uid}`)
    expect(defaultResultStoreDir({ XDG_RUNTIME_DIR: open })).toBe(fallback)
    expect(defaultResultStoreDir({ XDG_RUNTIME_DIR: 'relative/dir' })).toBe(fallback)
    expect(defaultResultStoreDir({})).toBe(fallback)
  })
})

describe('reading a saved result back (replay)', () => {
  it('reads only regular files named as the store names them: a log cannot make replay print any file', async () => {
    const { readSavedResult, createDirectoryResultStore: store } = await import('../../src/adapters/result-store.js')
    const { mkdtempSync, symlinkSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = mkdtempSync(join(tmpdir(), 'tk-saved-'))
    const path = await store(join(dir, 'store')).save({ turnId: 't', toolUseId: 'toolu_1' }, 'the output')
    expect(readSavedResult(path)).toBe('the output')
    writeFileSync(join(dir, 'secret.txt'), 'private')
    expect(readSavedResult(join(dir, 'secret.txt'))).toBeUndefined()
    expect(readSavedResult('/etc/passwd')).toBeUndefined()
    symlinkSync('/etc/passwd', join(dir, 'toolu_2-0123456789ab.txt'))
    expect(readSavedResult(join(dir, 'toolu_2-0123456789ab.txt'))).toBeUndefined()
  })
})
