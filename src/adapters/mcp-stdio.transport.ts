/**
 * The MCP stdio transport: one child process, JSON-RPC lines on stdin/stdout. Written here rather
 * than taken from the SDK because the client needs what the SDK's transport keeps to itself: the
 * exit code and signal, the last lines of stderr (bounded), and a clear verdict when the server
 * writes something that is not JSON-RPC. Aborting a call never touches the process; only
 * `close()` (shutdown, or a server that broke the protocol) stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/client'
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio'
import type { StdioServerConfig } from '../mcp/config.js'
import type { McpExit } from '../mcp/connection.types.js'

/** Bounds on what is kept from the process. */
export interface StdioLimits {
  /** Lines of stderr kept (the last ones). Default 40. */
  readonly stderrLines?: number
  /** Characters kept per stderr line. Default 500. */
  readonly stderrLineChars?: number
  /** The largest JSON-RPC message accepted on stdout, in bytes. Default 64 MiB. */
  readonly maxMessageBytes?: number
}

/** The default cap on one JSON-RPC message from a stdio server. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

/** A stdio transport that remembers how its process ended. */
export class McpStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private child: ChildProcess | undefined
  private pending: Buffer[] = []
  private pendingBytes = 0
  private readonly stderr: string[] = []
  private stderrPartial = ''
  private received = false
  private closing = false
  private exitInfo: McpExit | undefined
  private protocolFault: string | undefined
  private markExited: () => void = () => undefined
  /** Settles once the process has ended (never rejects). */
  readonly exited = new Promise<void>((resolve) => (this.markExited = resolve))

  constructor(
    private readonly config: StdioServerConfig,
    private readonly cwd: string,
    private readonly limits: StdioLimits = {},
  ) {}

  get pid(): number | undefined {
    return this.child?.pid
  }

  /** How the process ended (undefined while it runs), with the last lines of its stderr. */
  exit(): McpExit | undefined {
    return this.exitInfo
  }

  /** Why the connection was dropped for breaking the protocol, if it was. */
  fault(): string | undefined {
    return this.protocolFault
  }

  stderrTail(): string[] {
    return this.stderrPartial === '' ? [...this.stderr] : [...this.stderr, this.stderrPartial]
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.config.command, this.config.args ?? [], {
        cwd: this.config.cwd ?? this.cwd,
        env: { ...getDefaultEnvironment(), ...this.config.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      })
      this.child = child
      child.once('spawn', () => resolve())
      child.once('error', (error) => {
        this.exitInfo ??= { code: null, signal: null, error: error.message, stderr: this.stderrTail() }
        this.markExited()
        reject(error)
        this.onerror?.(error)
      })
      child.once('close', (code, signal) => this.closed(code, signal))
      child.stdout?.on('data', (chunk: Buffer) => this.readStdout(chunk))
      child.stderr?.on('data', (chunk: Buffer) => this.readStderr(chunk))
      child.stdin?.on('error', (error) => this.onerror?.(error))
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (stdin === undefined || stdin === null || this.exitInfo !== undefined || this.closing)
      return Promise.reject(new Error('the server process is not running'))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once('drain', () => resolve())
    })
  }

  /** Ends the process: stdin closed, then SIGTERM, then SIGKILL if it does not go. */
  async close(): Promise<void> {
    const child = this.child
    if (child === undefined || this.exitInfo !== undefined) return
    this.closing = true
    const gone = new Promise<void>((resolve) => child.once('close', () => resolve()))
    child.stdin?.end()
    if (await settlesWithin(gone, 1000)) return
    child.kill('SIGTERM')
    if (await settlesWithin(gone, 2000)) return
    child.kill('SIGKILL')
    await gone
  }

  private closed(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitInfo ??= { code, signal, stderr: this.stderrTail() }
    this.markExited()
    this.onclose?.()
  }

  /**
   * Splits stdout into lines, each checked against the size cap before it is joined: a message
   * past the cap is never parsed or delivered, and once the protocol is broken nothing more is
   * read (the pipe is destroyed, so a server that keeps writing gets EPIPE, and memory stays
   * bounded by the cap) — docs/decisions/mcp.md, "Hostile servers".
   */
  private readStdout(chunk: Buffer): void {
    if (this.protocolFault !== undefined) return
    const max = this.maxMessageBytes()
    let start = 0
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      if (this.pendingBytes + (newline - start) > max) return this.tooLarge(max)
      this.pending.push(chunk.subarray(start, newline))
      const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '')
      this.pending = []
      this.pendingBytes = 0
      start = newline + 1
      this.readLine(line)
      if (this.protocolFault !== undefined) return
    }
    if (start < chunk.length) {
      if (this.pendingBytes + (chunk.length - start) > max) return this.tooLarge(max)
      this.pending.push(chunk.subarray(start))
      this.pendingBytes += chunk.length - start
    }
  }

  private maxMessageBytes(): number {
    return this.limits.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  }

  /** A message past the cap: what was read of it is dropped, and stdout is read no further. */
  private tooLarge(max: number): void {
    this.pending = []
    this.pendingBytes = 0
    this.child?.stdout?.destroy()
    this.breakProtocol(`it wrote a message larger than ${max} bytes (the cap on one MCP message)`)
  }

  private readLine(line: string): void {
    if (line.trim() === '') return
    let message: JSONRPCMessage
    try {
      message = deserializeMessage(line)
    } catch {
      // A banner before the first message is common and harmless; after it, the stream is broken.
      if (!this.received) return this.keepStderr(`(stdout) ${line}`)
      return this.breakProtocol(`it wrote a line that is not JSON-RPC: ${JSON.stringify(line.slice(0, 120))}`)
    }
    this.received = true
    this.onmessage?.(message)
  }

  private breakProtocol(reason: string): void {
    if (this.protocolFault !== undefined) return
    this.protocolFault = reason
    this.pending = []
    this.pendingBytes = 0
    this.onerror?.(new Error(reason))
    void this.close()
  }

  private readStderr(chunk: Buffer): void {
    const lines = (this.stderrPartial + chunk.toString('utf8')).split('\n')
    this.stderrPartial = (lines.pop() ?? '').slice(0, this.limits.stderrLineChars ?? 500)
    for (const line of lines) this.keepStderr(line)
  }

  private keepStderr(line: string): void {
    const max = this.limits.stderrLineChars ?? 500
    this.stderr.push(line.length > max ? `${line.slice(0, max)}…` : line)
    const keep = this.limits.stderrLines ?? 40
    if (this.stderr.length > keep) this.stderr.splice(0, this.stderr.length - keep)
  }
}

/** Whether `promise` settles within `ms` (the timer never holds the process open). */
export async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
    timer.unref()
  })
  const result = await Promise.race([promise.then(() => true), timeout])
  clearTimeout(timer)
  return result
}
