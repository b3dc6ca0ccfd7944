import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { nodeFileSystem, READ_CHUNK_BYTES } from '../../src/adapters/node-fs.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-fs-'))
  dirs.push(dir)
  return dir
}

const openFds = (): number => readdirSync('/proc/self/fd').length

describe('nodeFileSystem', () => {
  it('tells special files apart in stat, following symlinks, without opening them', async () => {
    const dir = scratch()
    execFileSync('mkfifo', [join(dir, 'pipe')])
    expect(await nodeFileSystem.stat(join(dir, 'pipe'))).toMatchObject({ kind: 'fifo' })
    expect(await nodeFileSystem.stat('/dev/null')).toMatchObject({ kind: 'character-device' })
    expect(await nodeFileSystem.stat(dir)).toMatchObject({ kind: 'directory' })
    expect(await nodeFileSystem.stat(join(dir, 'missing'))).toBeUndefined()
  })

  it('openRead gives the file in chunks, and refuses a FIFO or a device at once', async () => {
    const dir = scratch()
    const content = Buffer.from('0123456789abcdef'.repeat((READ_CHUNK_BYTES * 2.5) / 16))
    writeFileSync(join(dir, 'f'), content)
    const chunks: Uint8Array[] = []
    for await (const chunk of nodeFileSystem.openRead(join(dir, 'f'))) chunks.push(chunk)
    expect(chunks.map((c) => c.length)).toEqual([READ_CHUNK_BYTES, READ_CHUNK_BYTES, READ_CHUNK_BYTES / 2])
    expect(Buffer.concat(chunks).equals(content)).toBe(true)
    execFileSync('mkfifo', [join(dir, 'pipe')])
    const drain = async (path: string) => {
      for await (const chunk of nodeFileSystem.openRead(path)) void chunk
    }
    await expect(drain(join(dir, 'pipe'))).rejects.toThrow('is a FIFO (named pipe), not a regular file')
    await expect(drain('/dev/zero')).rejects.toThrow('/dev/zero is a character device, not a regular file')
  })

  it.skipIf(!existsSync('/proc/self/fd'))('closes the file when the reader leaves early or is aborted', async () => {
    const dir = scratch()
    writeFileSync(join(dir, 'f'), Buffer.alloc(READ_CHUNK_BYTES * 4, 'x'))
    const before = openFds()
    for await (const chunk of nodeFileSystem.openRead(join(dir, 'f'))) if (chunk.length > 0) break
    expect(openFds()).toBe(before)
    const controller = new AbortController()
    const aborted = (async () => {
      for await (const chunk of nodeFileSystem.openRead(join(dir, 'f'), { signal: controller.signal })) {
        if (chunk.length > 0) controller.abort(new Error('stop'))
      }
    })()
    await expect(aborted).rejects.toThrow('stop')
    expect(openFds()).toBe(before)
  })
})

describe('nodeFileSystem.writeFile (issue 30: check-then-use)', () => {
  it('never follows a symlink in the final component, nor writes into a FIFO', async () => {
    const dir = scratch()
    const outside = scratch()
    writeFileSync(join(outside, 'target'), 'kept')
    symlinkSync(join(outside, 'target'), join(dir, 'link'))
    await expect(nodeFileSystem.writeFile(join(dir, 'link'), 'PLANTED')).rejects.toThrow(
      /symbolic link.*nothing was written/,
    )
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('kept')
    execFileSync('mkfifo', [join(dir, 'pipe')])
    await expect(nodeFileSystem.writeFile(join(dir, 'pipe'), 'x')).rejects.toThrow(/FIFO/)
  })

  it('writes only into the approved directory: one swapped for a link after the check is refused', async () => {
    const dir = scratch()
    const outside = scratch()
    mkdirSync(join(dir, 'sub'))
    const approved = nodeFileSystem.realPath?.(join(dir, 'sub', 'f.txt')) as string
    expect(approved).toBe(join(realpathSync(dir), 'sub', 'f.txt'))
    rmSync(join(dir, 'sub'), { recursive: true })
    symlinkSync(outside, join(dir, 'sub'))
    await expect(nodeFileSystem.writeFile(approved, 'PLANTED', { approvedRealPath: approved })).rejects.toThrow(
      /resolves to .* not .* nothing was written/,
    )
    expect(existsSync(join(outside, 'f.txt'))).toBe(false)
    await nodeFileSystem.writeFile(join(outside, 'g.txt'), 'ok', {
      approvedRealPath: join(realpathSync(outside), 'g.txt'),
    })
    expect(readFileSync(join(outside, 'g.txt'), 'utf8')).toBe('ok')
  })
})
