import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
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
