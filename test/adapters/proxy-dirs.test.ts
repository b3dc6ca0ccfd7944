/**
 * The allowDomains proxy's socket directories (src/adapters/domain-proxy.ts): a process killed by
 * a signal never runs its exit handler, so its directory stays in the temp directory. The next
 * proxy made sweeps those of processes that are gone — a directory names its process, and one is
 * removed only when that process is gone and nothing listens on its socket. Real processes, real
 * sockets, a temp directory of the test's own as the root.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createDomainProxy, sweepStaleProxyDirs } from '../../src/adapters/domain-proxy.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})
const root = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-test-proxy-dirs-'))
  roots.push(dir)
  return dir
}
/** The pid of a process that has ended (a node that exits at once). */
const deadPid = (): number => {
  const run = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' })
  return Number(run.stdout.trim())
}
const dirOf = (at: string, pid: number, tail = 'AbC123'): string => {
  const dir = join(at, `toolkernel-proxy-${pid}-${tail}`)
  mkdirSync(dir, { mode: 0o700 })
  return dir
}

describe('stale proxy directories', () => {
  it('a proxy names its directory after its process, and removes it on close', async () => {
    const proxy = createDomainProxy(['example.com'])
    expect(proxy.dir).toMatch(new RegExp(`toolkernel-proxy-${process.pid}-[A-Za-z0-9]{6}$`))
    await proxy.start()
    expect(existsSync(proxy.socket)).toBe(true)
    await proxy.close()
    expect(existsSync(proxy.dir)).toBe(false)
  })

  it('removes the directories of processes that are gone, with what is in them, and leaves the rest', async () => {
    const at = root()
    const gone = dirOf(at, deadPid())
    writeFileSync(join(gone, 'proxy.sock'), '') // a socket file left behind: nothing listens
    const goneEmpty = dirOf(at, deadPid(), 'Zz9876')
    const mine = dirOf(at, process.pid)
    const other = join(at, 'toolkernel-proxy-Qw12Er') // the old name, without a process: not known
    mkdirSync(other)
    const unrelated = join(at, `something-${deadPid()}-AbC123`)
    mkdirSync(unrelated)
    expect(await sweepStaleProxyDirs(at)).toBe(2)
    expect([gone, goneEmpty].map(existsSync)).toEqual([false, false])
    expect([mine, other, unrelated].map(existsSync)).toEqual([true, true, true])
  })

  it('leaves a directory whose socket still answers, whatever its process id says (another pid namespace)', async () => {
    const at = root()
    const live = dirOf(at, deadPid())
    const server = createServer((socket) => socket.end())
    await new Promise<void>((resolve) => server.listen(join(live, 'proxy.sock'), resolve))
    try {
      expect(await sweepStaleProxyDirs(at)).toBe(0)
      expect(existsSync(live)).toBe(true)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it('never follows a link: a link named like a stale directory is left, and so is what it points to', async () => {
    const at = root()
    const target = join(at, 'precious')
    mkdirSync(target)
    writeFileSync(join(target, 'keep.txt'), 'keep')
    const link = join(at, `toolkernel-proxy-${deadPid()}-LiNk00`)
    symlinkSync(target, link)
    expect(await sweepStaleProxyDirs(at)).toBe(0)
    expect(existsSync(join(target, 'keep.txt'))).toBe(true)
    expect(existsSync(link)).toBe(true)
  })

  it('a missing or unreadable root sweeps nothing', async () => {
    expect(await sweepStaleProxyDirs(join(root(), 'not-there'))).toBe(0)
  })
})
