/**
 * Fixtures for the OS sandbox tests (issue 30 item 1): a workspace with a git directory beside an
 * "outside" directory, a loopback server that counts connections, and a look at /proc for processes
 * a command left behind.
 */
import { existsSync, readdirSync, readFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pollUntil } from '../processes.js'

export interface Place {
  /** The working directory (writable in workspace-write), with `.git/config`. */
  readonly ws: string
  /** A directory outside it: nothing a sandboxed command does may land here. */
  readonly out: string
  readonly root: string
}

const made: string[] = []

/**
 * A fresh workspace and outside directory; `removePlaces` deletes them all. Under /var/tmp, not the
 * temp dir: the sandbox gives each command a private /tmp, which would hide the outside directory
 * instead of showing it read-only.
 */
export function makePlace(): Place {
  const root = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'toolkernel-sandbox-'))
  made.push(root)
  const ws = join(root, 'ws')
  const out = join(root, 'out')
  mkdirSync(join(ws, '.git'), { recursive: true })
  mkdirSync(out)
  writeFileSync(join(ws, '.git', 'config'), '[core]\n\tbare = false\n')
  return { ws, out, root }
}

export function removePlaces(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** A TCP server on 127.0.0.1 outside any sandbox, counting the connections it accepts. */
export interface Listener {
  readonly port: number
  connections(): number
  close(): Promise<void>
}

export async function listen(): Promise<Listener> {
  let count = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    count++
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
    socket.end('hello\n')
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return {
    port: address.port,
    connections: () => count,
    close: () =>
      new Promise<void>((done) => {
        // A client that keeps its half open (ssh, curl) would hold close() forever.
        for (const socket of sockets) socket.destroy()
        server.close(() => done())
      }),
  }
}

/** A number no other process's command line holds: a `sleep` given it can be found in /proc. */
export function marker(): string {
  return `${4000 + Math.floor(Math.random() * 1000)}.${process.pid}${Math.floor(Math.random() * 1e6)}`
}

/**
 * A shell loop that waits until the daemon's own `sleep M` runs, so a command does not end while the
 * daemon is still on its way out of the command's process group: the runner kills that group when the
 * command ends, and a daemon caught before its setsid dies with it — under load a control then failed
 * and a containment test passed for the wrong reason. It matches the whole command line, not
 * `setsid sh -c 'sleep …'` on its way there.
 */
export const started = (m: string): string => `until pgrep -f "^sleep ${m}$" >/dev/null; do sleep 0.05; done`

/** The pids of running processes whose command line contains `text` (zombies excluded). */
export function processesWith(text: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      if (!cmdline.includes(text)) continue
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') found.push(Number(entry))
    } catch {
      // Gone while we looked.
    }
  }
  return found.filter((pid) => pid !== process.pid)
}

/**
 * Waits up to 20 s (pollUntil) for every process holding `text` to go (the kernel tears a PID
 * namespace down right after its init exits, but not within the same instant); the ones still running.
 */
export async function survivors(text: string): Promise<number[]> {
  await pollUntil(() => processesWith(text).length === 0)
  return processesWith(text)
}

/** Kills what a control run left behind. */
export function killAll(text: string): void {
  for (const pid of processesWith(text)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
}

/** A script for `node -e` that connects to `port` and prints CONNECTED or the error's code. */
export function nodeConnect(port: number): string {
  return `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('CONNECTED'); process.exit(0) }).on('error', (e) => { console.log('REFUSED', e.code); process.exit(3) })"`
}
