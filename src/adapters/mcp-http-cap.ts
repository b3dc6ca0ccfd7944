/**
 * The size cap on MCP messages over Streamable HTTP, enforced where the bytes arrive: a `fetch`
 * for the SDK's transport whose response bodies are counted as they stream. A JSON body is one
 * answer, counted whole; an event stream is counted per event (the bytes since the last blank
 * line), so a long-lived stream of small messages is never cut. Past the cap, the body is
 * cancelled (the request is aborted, nothing more is read or buffered), the read fails, and the
 * connection is told once, so it can drop the connection as a protocol break, as the stdio
 * transport does (docs/decisions/mcp.md, 155).
 */

/** What the connection learns when a server goes past the cap. */
export type CapBreach = (reason: string) => void

/** A `fetch` whose response bodies fail past `maxBytes` per message, calling `breach` once per breach. */
export function cappedFetch(maxBytes: number, breach: CapBreach, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init)
    if (response.body === null) return response
    const eventStream = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream')
    const body = response.body.pipeThrough(counter(maxBytes, eventStream, breach))
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
}

/** The text of a breach, as the stdio transport words it. */
export function tooLargeText(maxBytes: number): string {
  return `it sent a message larger than ${maxBytes} bytes (the cap on one MCP message)`
}

function counter(maxBytes: number, eventStream: boolean, breach: CapBreach): TransformStream<Uint8Array, Uint8Array> {
  let count = 0
  // Event streams: whether the last byte ended a line (so a newline now is the blank line ending an event).
  let atLineStart = false
  return new TransformStream({
    transform(chunk, controller) {
      if (!eventStream) count += chunk.byteLength
      else
        for (const byte of chunk) {
          if (byte === CR) continue
          if (byte === LF) {
            if (atLineStart) count = 0
            atLineStart = true
          } else {
            atLineStart = false
            count++
          }
          if (count > maxBytes) break
        }
      if (count > maxBytes) {
        const reason = tooLargeText(maxBytes)
        breach(reason)
        // Erroring the stream cancels the body below it: the response is aborted, not drained.
        controller.error(new McpMessageTooLarge(reason))
        return
      }
      controller.enqueue(chunk)
    },
  })
}

const CR = 13
const LF = 10

/** The error a capped body fails with. */
export class McpMessageTooLarge extends Error {
  override readonly name = 'McpMessageTooLarge'
}
