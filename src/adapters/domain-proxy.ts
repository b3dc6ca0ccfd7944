/**
 * `sandbox.network: { allowDomains }` (docs/decisions/processes.md, 157): an HTTP proxy outside the
 * sandbox that lets through only the listed domains, and the forwarder inside it.
 *
 * - The proxy (here, in the app's process) listens on a unix socket in a private directory (700).
 *   It takes `CONNECT host:port` (HTTPS and any TCP tunnelled through it) and absolute-form HTTP
 *   requests (`GET http://host/path`); a host not on the list gets 403 and no connection is made.
 *   It resolves names itself, so the sandbox needs no DNS.
 * - The sandbox keeps its own network namespace (only a loopback nobody else is on). The socket's
 *   directory is bound into it, and the command runs under a small forwarder (node, the app's own
 *   program) that listens on the sandbox's 127.0.0.1 and pipes each connection to the socket, then
 *   starts the command with HTTP_PROXY / HTTPS_PROXY / ALL_PROXY pointing at it.
 *
 * So the only way out of the sandbox is the proxy: a program that ignores the proxy variables
 * reaches nothing. Matching is on the name the client asks for (exact, or `*.suffix` for its
 * subdomains); what that name resolves to is the name's owner's business, as in Claude Code.
 */
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import type { IncomingMessage, Server } from 'node:http'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { builtin } from '../util/builtin.js'

/** The port the forwarder listens on inside the sandbox (its loopback is its own). */
export const SANDBOX_PROXY_PORT = 3128

/** One proxy for one sandbox policy: its socket, started once. */
export interface DomainProxy {
  /** The directory holding the socket (bound into the sandbox at the same path). */
  readonly dir: string
  readonly socket: string
  /** Starts listening (once); rejects when the socket cannot be bound. */
  start(): Promise<void>
  close(): Promise<void>
}

/** A proxy allowing `domains` (`example.com` exactly, `*.example.com` its subdomains); it listens from `start`. */
export function createDomainProxy(domains: readonly string[]): DomainProxy {
  // Once per process: what processes killed by a signal left (their exit handler never ran).
  swept ??= sweepStaleProxyDirs(tmpdir()).catch(() => 0)
  const dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`))
  made.add(dir)
  const socket = join(dir, 'proxy.sock')
  const allowed = (host: string): boolean => domains.some((pattern) => domainMatches(pattern, host))
  let server: Server | undefined
  let started: Promise<void> | undefined
  return {
    dir,
    socket,
    start() {
      started ??= new Promise<void>((resolve, reject) => {
        server = proxyServer(allowed)
        server.once('error', reject)
        server.listen(socket, () => {
          server?.unref()
          resolve()
        })
      })
      return started
    },
    async close() {
      const running = server
      server = undefined
      if (running !== undefined) await new Promise<void>((resolve) => running.close(() => resolve()))
      rmSync(dir, { recursive: true, force: true })
      made.delete(dir)
    },
  }
}

/** Whether an allowDomains entry matches a host: exact, or `*.suffix` for the suffix's subdomains (not itself). */
export function domainMatches(pattern: string, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '')
  const want = pattern.toLowerCase().replace(/\.$/, '')
  if (want.startsWith('*.')) return name.endsWith(want.slice(1)) && name.length > want.length - 1
  return name === want
}

const LABEL = '[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?'
const DOMAIN = new RegExp(`^(\\*\\.)?${LABEL}(?:\\.${LABEL})*\\.?$`, 'i')

/** Why an allowDomains entry is not a host name or `*.suffix`, or undefined. */
export function allowDomainProblem(entry: unknown): string | undefined {
  if (typeof entry === 'string' && DOMAIN.test(entry)) return undefined
  return `${JSON.stringify(entry)} is not a host name (example.com) or a suffix pattern (*.example.com)`
}

function proxyServer(allowed: (host: string) => boolean): Server {
  const { createServer, request: httpRequest } = builtin('node:http')
  const { connect } = builtin('node:net')
  const server = createServer((req, res) => {
    const url = absolute(req)
    if (url === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain' })
      res.end('toolkernel sandbox proxy: only absolute http:// requests and CONNECT are proxied\n')
      return
    }
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (!allowed(host)) {
      res.writeHead(403, { 'content-type': 'text/plain' })
      res.end(refusal(host))
      return
    }
    const headers = { ...req.headers }
    delete headers['proxy-connection']
    delete headers['proxy-authorization']
    const upstream = httpRequest(
      {
        host,
        port: url.port === '' ? 80 : Number(url.port),
        method: req.method,
        path: url.pathname + url.search,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' })
      res.end(`toolkernel sandbox proxy: ${host} could not be reached (${error.message})\n`)
    })
    req.pipe(upstream)
  })
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on('error', () => undefined)
    const target = hostAndPort(req.url ?? '')
    if (target === undefined || !allowed(target.host)) {
      const text = target === undefined ? 'CONNECT takes host:port\n' : refusal(target.host)
      client.end(
        `HTTP/1.1 ${target === undefined ? '400 Bad Request' : '403 Forbidden'}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      )
      return
    }
    let connected = false
    const upstream = connect(target.port, target.host, () => {
      connected = true
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    upstream.on('error', (error) => {
      if (!connected)
        client.end(
          `HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n\r\n${target.host} could not be reached (${error.message})\n`,
        )
      else client.destroy()
    })
    client.on('close', () => upstream.destroy())
  })
  server.on('clientError', (_error, socket) => socket.destroy())
  return server
}

function refusal(host: string): string {
  return `toolkernel sandbox proxy: ${host} is not in sandbox.network.allowDomains, so the sandbox may not reach it\n`
}

function absolute(req: IncomingMessage): URL | undefined {
  try {
    const url = new URL(req.url ?? '')
    return url.protocol === 'http:' ? url : undefined
  } catch {
    return undefined
  }
}

/** `host:port` or `[v6]:port` of a CONNECT. */
function hostAndPort(target: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/i.exec(target)
  if (match === null) return undefined
  const port = Number(match[3])
  if (port < 1 || port > 65535) return undefined
  return { host: (match[1] ?? match[2]) as string, port }
}

/**
 * The forwarder run inside the sandbox, as `node -e FORWARDER <socket> <port> <file> <args…>`: it
 * listens on the sandbox's loopback, pipes each connection to the proxy's socket, and runs the
 * command with the proxy variables set (fd 3, the spawner's start signal, passed through), ending as
 * it ends.
 */
export const FORWARDER = `
const net = require('node:net'), cp = require('node:child_process')
const [socket, port, file, ...args] = process.argv.slice(1)
const server = net.createServer((c) => {
  const u = net.connect(socket)
  c.pipe(u); u.pipe(c)
  c.on('error', () => u.destroy()); u.on('error', () => c.destroy())
})
server.on('error', (e) => { process.stderr.write('toolkernel sandbox: the proxy forwarder could not listen (' + e.message + ')\\n'); process.exit(125) })
server.listen(Number(port), '127.0.0.1', () => {
  const p = 'http://127.0.0.1:' + port
  const env = { ...process.env, HTTP_PROXY: p, HTTPS_PROXY: p, ALL_PROXY: p, http_proxy: p, https_proxy: p, all_proxy: p }
  delete env.NO_PROXY; delete env.no_proxy
  const child = cp.spawn(file, args, { stdio: ['inherit', 'inherit', 'inherit', 3], env })
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s))
  child.on('error', (e) => { process.stderr.write(String(e.message) + '\\n'); process.exit(127) })
  child.on('exit', (code, signal) => {
    if (signal !== null) { process.removeAllListeners(signal); process.kill(process.pid, signal) }
    else process.exit(code ?? 1)
  })
})
`

// Directories of proxies never closed (the kernel has no end for them): removed when the app exits.
const made = new Set<string>()
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

const PREFIX = 'toolkernel-proxy-'
const STALE_NAME = /^toolkernel-proxy-(\d+)-[A-Za-z0-9]{6}$/
let swept: Promise<number> | undefined

/**
 * Removes the socket directories in `root` that proxies of ended processes left: a process killed
 * by a signal never runs its exit handler. A directory names its process; it is removed only when
 * it is this user's directory (never a link), its process is gone, and nothing listens on its
 * socket — a process in another pid namespace sharing the temp directory still answers there.
 * How many it removed; errors leave a directory as it is.
 */
export async function sweepStaleProxyDirs(root: string): Promise<number> {
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return 0
  }
  const uid = process.getuid?.()
  let removed = 0
  for (const name of names) {
    const pid = Number(STALE_NAME.exec(name)?.[1] ?? Number.NaN)
    if (!Number.isSafeInteger(pid) || processAlive(pid)) continue
    const dir = join(root, name)
    try {
      const stat = lstatSync(dir)
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue
      if (await socketAnswers(join(dir, 'proxy.sock'))) continue
      rmSync(dir, { recursive: true, force: true })
      removed++
    } catch {
      // Gone already (another process swept it), or not ours to remove.
    }
  }
  return removed
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Whether something accepts a connection on the unix socket at `path` (no socket file: no). */
function socketAnswers(path: string): Promise<boolean> {
  const { connect } = builtin('node:net')
  return new Promise((resolve) => {
    const socket = connect(path)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}
