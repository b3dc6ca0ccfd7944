/**
 * The spawner's helper process (docs/decisions/processes.md, 164): a small node script, run as
 * `node -e SPAWNER_SOURCE toolkernel-spawner`, that starts commands for the app's process so the
 * app never forks per command. It reads requests on its stdin and answers on its stdout, in frames:
 *
 *   u32 LE length of what follows · u8 type · u32 LE run id · payload
 *
 * App → helper: SPAWN (JSON: file, args, cwd, env, stdin, fds), PAUSE, RESUME, ABANDON (destroy
 * the run's output streams). Helper → app: SPAWNED (JSON: pid, /proc stat text, output socket
 * targets — read while the prelude holds the shell on fd 3, then fd 3 is released), FAILED (why
 * spawn failed), STDOUT / STDERR (bytes), STDOUT_CLOSED / STDERR_CLOSED, EXIT (JSON [code, signal]).
 *
 * The helper only starts and reads: every signal (timeout, abort, the group sweep, escaped
 * processes) is sent by the app's process, which knows the pids (spawn-process.ts). When its stdin
 * ends (the app closed it, exited or died), it SIGKILLs the process group of every command still
 * running and exits, so nothing is left behind. It ignores SIGINT and SIGHUP, which a terminal
 * sends to the whole foreground group: it outlives the app by the moment its stdin takes to end,
 * and then cleans up.
 */

export const FRAME = {
  SPAWN: 1,
  PAUSE: 2,
  RESUME: 3,
  ABANDON: 4,
  SPAWNED: 10,
  FAILED: 11,
  STDOUT: 12,
  STDERR: 13,
  STDOUT_CLOSED: 14,
  STDERR_CLOSED: 15,
  EXIT: 16,
} as const

/** The argument that names the helper on its command line (ps, /proc/<pid>/cmdline). */
export const SPAWNER_MARK = 'toolkernel-spawner'

/** One frame. */
export function frame(type: number, id: number, payload?: Buffer | string): Buffer {
  const body = payload === undefined ? EMPTY : typeof payload === 'string' ? Buffer.from(payload) : payload
  const out = Buffer.allocUnsafe(9 + body.length)
  out.writeUInt32LE(5 + body.length, 0)
  out.writeUInt8(type, 4)
  out.writeUInt32LE(id, 5)
  body.copy(out, 9)
  return out
}

const EMPTY = Buffer.alloc(0)

/** Splits a byte stream into frames: push chunks, get (type, id, payload) calls in order. */
export class FrameReader {
  private pending: Buffer = EMPTY

  constructor(private readonly onFrame: (type: number, id: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    let data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    let at = 0
    while (data.length - at >= 4) {
      const length = data.readUInt32LE(at)
      if (data.length - at - 4 < length) break
      this.onFrame(data.readUInt8(at + 4), data.readUInt32LE(at + 5), data.subarray(at + 9, at + 4 + length))
      at += 4 + length
    }
    data = data.subarray(at)
    // A partial frame is copied out, so the chunk it came in is not kept alive whole.
    this.pending = data.length === 0 ? EMPTY : Buffer.from(data)
  }
}

/** The helper's source (CommonJS, no dependencies; the same frame layout as above). */
export const SPAWNER_SOURCE = `'use strict'
const cp = require('node:child_process'), fs = require('node:fs')
const T = ${JSON.stringify(FRAME)}
const runs = new Map()
const out = process.stdout
out.on('error', () => quit())
function send(type, id, payload) {
  const body = payload === undefined ? Buffer.alloc(0) : typeof payload === 'string' ? Buffer.from(payload) : payload
  const head = Buffer.allocUnsafe(9)
  head.writeUInt32LE(5 + body.length, 0); head.writeUInt8(type, 4); head.writeUInt32LE(id, 5)
  out.write(body.length === 0 ? head : Buffer.concat([head, body]))
}
function start(id, r) {
  let child
  try {
    child = cp.spawn(r.file, r.args, { cwd: r.cwd, env: r.env, detached: true,
      stdio: [r.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'] })
  } catch (e) { send(T.FAILED, id, String(e && e.message)); return }
  child.once('error', (e) => { if (child.pid === undefined) send(T.FAILED, id, String(e && e.message)) })
  if (child.pid === undefined) return
  const pid = child.pid
  runs.set(id, child)
  let stat = ''
  try { stat = fs.readFileSync('/proc/' + pid + '/stat', 'utf8') } catch {}
  const targets = r.fds.map((fd) => { try { return fs.readlinkSync('/proc/' + pid + '/fd/' + fd) } catch { return null } })
  send(T.SPAWNED, id, JSON.stringify({ pid, stat, targets }))
  const go = child.stdio[3]
  if (go) { go.on('error', () => {}); go.end('\\n') }
  child.stdout.on('data', (d) => send(T.STDOUT, id, d))
  child.stderr.on('data', (d) => send(T.STDERR, id, d))
  child.stdout.once('close', () => send(T.STDOUT_CLOSED, id))
  child.stderr.once('close', () => send(T.STDERR_CLOSED, id))
  child.once('exit', (code, signal) => send(T.EXIT, id, JSON.stringify([code, signal])))
  child.once('close', () => runs.delete(id))
  if (child.stdin) { child.stdin.on('error', () => {}); child.stdin.end(r.stdin) }
}
let pending = Buffer.alloc(0)
process.stdin.on('data', (chunk) => {
  let data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
  let at = 0
  while (data.length - at >= 4) {
    const length = data.readUInt32LE(at)
    if (data.length - at - 4 < length) break
    const type = data.readUInt8(at + 4), id = data.readUInt32LE(at + 5)
    const body = data.subarray(at + 9, at + 4 + length)
    at += 4 + length
    const child = runs.get(id)
    if (type === T.SPAWN) start(id, JSON.parse(body.toString()))
    else if (child === undefined) continue
    else if (type === T.PAUSE) child.stdout.pause()
    else if (type === T.RESUME) child.stdout.resume()
    else if (type === T.ABANDON) { child.stdout.destroy(); child.stderr.destroy(); runs.delete(id) }
  }
  pending = Buffer.from(data.subarray(at))
})
function quit() {
  for (const child of runs.values()) { try { process.kill(-child.pid, 'SIGKILL') } catch {} }
  process.exit(0)
}
process.stdin.on('end', quit)
process.stdin.on('error', quit)
process.on('SIGTERM', quit)
process.on('SIGINT', () => {})
process.on('SIGHUP', () => {})
`
