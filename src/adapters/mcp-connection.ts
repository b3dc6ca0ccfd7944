/**
 * One MCP server over the official v2 client: connects (stdio or Streamable HTTP), lists tools,
 * follows `list_changed`, calls tools with a timeout that progress resets and a hard maximum,
 * answers elicitations through the app, and restarts the server with capped backoff when it
 * goes away. Every failure of a call becomes an `McpCallError` with a code and a clear text.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { Transport } from '@modelcontextprotocol/client'
import { z } from 'zod'
import type { McpServerConfig } from '../mcp/config.js'
import type {
  McpCallOptions,
  McpCallResult,
  McpConnection,
  McpConnectionState,
  McpResourceListing,
  McpResourceRead,
} from '../mcp/connection.types.js'
import * as errors from '../mcp/errors.js'
import { McpCallError } from '../mcp/errors.js'
import type { McpElicitHandler } from '../mcp/elicitation.js'
import { answerElicitation } from '../mcp/elicitation.js'
import { sdkFailure } from './mcp-sdk-errors.js'
import { cappedFetch } from './mcp-http-cap.js'
import { DEFAULT_MAX_MESSAGE_BYTES, McpStdioTransport, settlesWithin } from './mcp-stdio.transport.js'

export interface McpConnectionOptions {
  readonly server: string
  readonly config: McpServerConfig
  readonly cwd: string
  readonly clientInfo: { name: string; version: string }
  /** Idle timeout of a call: reset by each progress notification. */
  readonly callTimeoutMs: number
  /** Hard maximum of a call, whatever progress it reports. */
  readonly maxCallTimeoutMs: number
  readonly connectTimeoutMs: number
  readonly restart: { readonly initialDelayMs: number; readonly maxDelayMs: number }
  readonly elicit?: McpElicitHandler
  /** The largest JSON-RPC message a server may send (stdio or HTTP), in bytes (default 64 MiB). */
  readonly maxMessageBytes?: number
}

interface Live {
  readonly client: Client
  readonly transport: Transport
  readonly stdio: McpStdioTransport | undefined
  /** Over HTTP: why the server's last answer was cut at the size cap, if it was (a protocol break). */
  readonly breach: { reason?: string }
}

/** Opens a connection and starts connecting in the background. */
export function openMcpConnection(options: McpConnectionOptions): McpConnection {
  return new SdkConnection(options)
}

class SdkConnection implements McpConnection {
  readonly server: string
  private current: Live | undefined
  private status: McpConnectionState = 'connecting'
  private listed: readonly unknown[] = []
  private fault: string | undefined
  private failures = 0
  private timer: NodeJS.Timeout | undefined
  private readonly listeners = new Set<() => void>()
  private readonly running = new Set<McpCallOptions>()
  private waiters: ((ready: boolean) => void)[] = []
  private probing = false
  private resources = false

  constructor(private readonly options: McpConnectionOptions) {
    this.server = options.server
    void this.connect()
  }

  state(): McpConnectionState {
    return this.status
  }
  tools(): readonly unknown[] {
    return this.listed
  }
  lastFault(): string | undefined {
    return this.fault
  }
  pid(): number | undefined {
    return this.current?.stdio?.pid
  }
  stderrTail(): readonly string[] {
    return this.current?.stdio?.stderrTail() ?? []
  }
  hasResources(): boolean {
    return this.resources
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  whenReady(signal: AbortSignal): Promise<boolean> {
    if (this.status === 'ready') return Promise.resolve(true)
    if (this.status === 'closed' || signal.aborted) return Promise.resolve(false)
    return new Promise((resolve) => {
      const done = (ready: boolean): void => {
        signal.removeEventListener('abort', onAbort)
        resolve(ready)
      }
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((waiter) => waiter !== done)
        resolve(false)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.waiters.push(done)
    })
  }

  async callTool(name: string, args: unknown, options: McpCallOptions): Promise<McpCallResult> {
    const live = await this.ready(options.signal)
    this.running.add(options)
    try {
      const result = await live.client.callTool(
        { name, arguments: (args ?? {}) as Record<string, unknown> },
        {
          signal: options.signal,
          timeout: this.options.callTimeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: this.options.maxCallTimeoutMs,
          onprogress: (progress) => options.onProgress(progress),
        },
      )
      return result as McpCallResult
    } catch (error) {
      throw await this.classify(error, live, options.signal)
    } finally {
      this.running.delete(options)
    }
  }

  /** `resources/list`, page after page: the same request path, timeouts and failures as a tool call. */
  async listResources(signal: AbortSignal): Promise<McpResourceListing> {
    const resources: unknown[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor }
      const result = await this.send('resources/list', params, ResourcePage, signal)
      resources.push(...result.resources)
      if (result.nextCursor === undefined || result.nextCursor === cursor) return { resources }
      cursor = result.nextCursor
    }
    return { resources, truncated: `its resources/list did not end after ${MAX_PAGES} pages` }
  }

  async readResource(uri: string, signal: AbortSignal): Promise<McpResourceRead> {
    return await this.send('resources/read', { uri }, ReadResult, signal)
  }

  /** The live connection once it is ready; a connection that is down (or never came up) fails the request. */
  private async ready(signal: AbortSignal): Promise<NonNullable<typeof this.current>> {
    if (this.status === 'connecting' && !(await this.whenReady(signal)))
      throw new McpCallError(
        'mcp_connection_closed',
        errors.downText(this.server, this.fault ?? 'it did not connect'),
        false,
      )
    const live = this.current
    if (this.status !== 'ready' || live === undefined)
      throw new McpCallError('mcp_connection_closed', errors.downText(this.server, this.downReason()), false)
    return live
  }

  /** One request other than `tools/call`, with the call's checks, timeouts and error classes. */
  private async send<T extends z.ZodType>(
    method: string,
    params: Record<string, unknown>,
    schema: T,
    signal: AbortSignal,
  ): Promise<z.infer<T>> {
    const live = await this.ready(signal)
    try {
      return await live.client.request({ method, params } as never, schema as never, {
        signal,
        timeout: this.options.callTimeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: this.options.maxCallTimeoutMs,
      })
    } catch (error) {
      throw await this.classify(error, live, signal)
    }
  }

  async close(): Promise<void> {
    this.setState('closed')
    clearTimeout(this.timer)
    const live = this.current
    this.current = undefined
    await live?.client.close().catch(() => undefined)
    this.wake(false)
  }

  private async connect(): Promise<void> {
    this.setState('connecting')
    const live = this.makeLive()
    this.current = live
    try {
      await live.client.connect(live.transport, { timeout: this.options.connectTimeoutMs })
      const tools = await this.listTools(live)
      if (this.current !== live) return
      this.listed = tools
      this.resources = live.client.getServerCapabilities()?.resources !== undefined
      this.failures = 0
      this.fault = undefined
      this.setState('ready')
      this.wake(true)
    } catch (error) {
      if (this.current !== live || this.status === 'closed') return
      this.fault = `it did not connect: ${this.connectFailure(error, live)}`
      await live.client.close().catch(() => undefined)
      this.wentDown()
    }
  }

  private makeLive(): Live {
    const { config } = this.options
    const capabilities = this.options.elicit !== undefined ? { elicitation: { form: {} } } : {}
    const client = new Client(this.options.clientInfo, { capabilities })
    const stdio =
      config.type === 'http'
        ? undefined
        : new McpStdioTransport(
            config,
            this.options.cwd,
            this.options.maxMessageBytes === undefined ? {} : { maxMessageBytes: this.options.maxMessageBytes },
          )
    const breach: { reason?: string } = {}
    const max = this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
    const transport: Transport =
      stdio ??
      new StreamableHTTPClientTransport(new URL((config as { url: string }).url), {
        requestInit: { headers: (config as { headers?: Record<string, string> }).headers ?? {} },
        // The cap is enforced as the bytes arrive; a breach drops the connection, as on stdio.
        fetch: cappedFetch(max, (reason) => {
          breach.reason ??= reason
          void client.close().catch(() => undefined)
        }),
      })
    const live: Live = { client, transport, stdio, breach }
    client.onclose = () => this.lost(live)
    client.onerror = (error) => {
      if (stdio === undefined) void this.probe(live, error)
    }
    client.setNotificationHandler('notifications/tools/list_changed', () => this.refresh(live))
    const elicit = this.options.elicit
    if (elicit !== undefined)
      client.setRequestHandler('elicitation/create', async (request) => {
        const answer = await answerElicitation(elicit, this.server, request.params, [...this.running])
        return answer
      })
    return live
  }

  /** The transport closed: a crash, a kill, a protocol break, or our own close. */
  private lost(live: Live): void {
    // A close while connecting fails the connect, which says why.
    if (this.current !== live || this.status !== 'ready') return
    const stdio = live.stdio
    const exit = stdio?.exit()
    const protocol = stdio?.fault() ?? live.breach.reason
    this.fault =
      protocol !== undefined
        ? `it broke the protocol: ${protocol}`
        : `${errors.describeExit(exit)}${errors.stderrNote(exit?.stderr ?? [])}`
    this.wentDown()
  }

  private wentDown(): void {
    this.setState('down')
    this.wake(false)
    const delay = Math.min(this.options.restart.maxDelayMs, this.options.restart.initialDelayMs * 2 ** this.failures)
    this.failures++
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.connect(), delay)
    this.timer.unref()
  }

  private refresh(live: Live): void {
    this.listTools(live).then(
      (tools) => {
        if (this.current !== live) return
        this.listed = tools
        this.notify()
      },
      () => undefined, // the previous listing stays; a broken connection reports itself through onclose
    )
  }

  /**
   * `tools/list`, every page, read leniently: the SDK's own listing rejects the whole list for one
   * tool whose schema is not `type: "object"`; here each tool is judged on its own (by the source).
   */
  private async listTools(live: Live): Promise<unknown[]> {
    const tools: unknown[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor }
      const result = await live.client.request({ method: 'tools/list', params }, ListPage, {
        timeout: this.options.connectTimeoutMs,
      })
      tools.push(...result.tools)
      if (result.nextCursor === undefined || result.nextCursor === cursor) return tools
      cursor = result.nextCursor
    }
    throw new Error(`its tools/list did not end after ${MAX_PAGES} pages`)
  }

  private async classify(error: unknown, live: Live, signal: AbortSignal): Promise<McpCallError> {
    const breach = live.breach.reason
    if (breach !== undefined && !signal.aborted)
      return new McpCallError('mcp_protocol', errors.protocolText(this.server, breach), true)
    const failure = sdkFailure(error, this.server, this.options, signal.aborted)
    if (failure !== 'connection_lost') return failure
    await this.settled(live)
    const protocol = live.stdio?.fault()
    if (protocol !== undefined)
      return new McpCallError('mcp_protocol', errors.protocolText(this.server, protocol), true)
    if (live.stdio === undefined) this.httpLost(live, error instanceof Error ? error.message : String(error))
    return new McpCallError('mcp_connection_closed', errors.cutOffText(this.server, this.downReason()), true)
  }

  /** Waits (at most a second) for the process to end, so the error can say how it ended. */
  private async settled(live: Live): Promise<void> {
    if (live.stdio !== undefined) await settlesWithin(live.stdio.exited, 1000)
  }

  /**
   * A Streamable HTTP stream broke. The SDK would wait for a response that died with the server,
   * so the server is asked for a ping: no answer takes the connection down, which answers every
   * running call at once (mcp_connection_closed) and schedules the restart.
   */
  private async probe(live: Live, error: Error): Promise<void> {
    if (this.current !== live || this.status !== 'ready' || this.probing) return
    this.probing = true
    try {
      await live.client.ping({ timeout: Math.min(5000, this.options.connectTimeoutMs) })
    } catch {
      if (this.current !== live || this.status !== 'ready') return
      this.fault = `the server stopped answering (${error.message})`
      this.wentDown()
      void live.client.close().catch(() => undefined)
    } finally {
      this.probing = false
    }
  }

  /** HTTP has no process to watch: a request that cannot reach the server takes the connection down. */
  private httpLost(live: Live, message: string): void {
    if (this.current !== live || this.status !== 'ready') return
    this.fault = `the request failed: ${message}`
    void live.client.close().catch(() => undefined)
    this.wentDown()
  }

  private downReason(): string {
    return this.fault ?? 'the connection was lost'
  }

  private connectFailure(error: unknown, live: Live): string {
    if (live.breach.reason !== undefined) return live.breach.reason
    const exit = live.stdio?.exit()
    if (exit !== undefined) return `${errors.describeExit(exit)}${errors.stderrNote(exit.stderr)}`
    return error instanceof Error ? error.message : String(error)
  }

  private setState(state: McpConnectionState): void {
    if (this.status === state) return
    this.status = state
    this.notify()
  }

  private wake(ready: boolean): void {
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter(ready)
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener()
  }
}

const MAX_PAGES = 64
const ListPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() })
const ResourcePage = z.looseObject({ resources: z.array(z.unknown()), nextCursor: z.string().optional() })
const ReadResult = z.looseObject({ contents: z.array(z.unknown()) })
