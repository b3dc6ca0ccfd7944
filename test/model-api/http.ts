/** The HTTP side of the loopback model API: bodies in, JSON and server-sent events out. */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** A rejected request: the status and the error body the real API sends for it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(JSON.stringify(body))
  }
}

/** One server-sent event: `event:` (Anthropic and Responses name theirs) and its data. */
export interface SseEvent {
  event?: string
  data: unknown
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** Formats one event as the APIs do: `event: name` (when named), `data: json`, a blank line. */
export function sseBlock(event: SseEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data)
  return `${event.event !== undefined ? `event: ${event.event}\n` : ''}data: ${data}\n\n`
}

/** Blocks held back: from block `at` on, nothing is sent until what `until()` returns settles. */
export interface SseHold {
  at: number
  until: () => PromiseLike<unknown>
}

/**
 * Sends a stream of SSE blocks; with `dropAfter`, destroys the socket after that many blocks
 * (a dropped connection: the client sees the body end without its final event); with `hold`,
 * waits before block `hold.at` (what came before it written out) until `hold.until()` settles.
 */
export async function sendSse(
  res: ServerResponse,
  blocks: readonly string[],
  headers: Record<string, string> = {},
  dropAfter?: number,
  hold?: SseHold,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  })
  for (const [i, block] of blocks.entries()) {
    if (dropAfter !== undefined && i >= dropAfter) {
      // Let what was written reach the client, then cut the connection without ending the body.
      await new Promise<void>((resolve) => res.write('', () => resolve()))
      res.socket?.destroy()
      return
    }
    if (hold !== undefined && i === hold.at) {
      await new Promise<void>((resolve) => res.write('', () => resolve()))
      await hold.until()
    }
    res.write(block.endsWith('\n\n') ? block : `${block}\n\n`)
  }
  res.end()
}
