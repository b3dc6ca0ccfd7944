/** The HTTP size cap counts per message: a whole JSON body, or one event of an event stream. */
import { describe, expect, it } from 'vitest'
import { cappedFetch, McpMessageTooLarge } from '../../src/adapters/mcp-http-cap.js'

/** A fetch that answers with `body` (in 1 KiB pieces) under `type`. */
const answering =
  (body: string, type: string): typeof fetch =>
  async () => {
    const bytes = new TextEncoder().encode(body)
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 1024) controller.enqueue(bytes.subarray(at, at + 1024))
        controller.close()
      },
    })
    return new Response(stream, { headers: { 'content-type': type } })
  }

const read = async (fetcher: typeof fetch) => (await fetcher('http://127.0.0.1/mcp')).text()

describe('cappedFetch', () => {
  it('a JSON body past the cap fails the read and reports the breach once', async () => {
    const breaches: string[] = []
    const fetcher = cappedFetch(
      4096,
      (reason) => breaches.push(reason),
      answering('x'.repeat(5000), 'application/json'),
    )
    await expect(read(fetcher)).rejects.toThrow(McpMessageTooLarge)
    expect(breaches).toEqual(['it sent a message larger than 4096 bytes (the cap on one MCP message)'])
  })

  it('a JSON body at the cap passes whole', async () => {
    const fetcher = cappedFetch(4096, () => undefined, answering('x'.repeat(4096), 'application/json'))
    expect(await read(fetcher)).toHaveLength(4096)
  })

  it('an event stream of many small events is not cut, however long it runs', async () => {
    const event = `event: message\r\ndata: ${'y'.repeat(1000)}\r\n\r\n`
    const breaches: string[] = []
    const fetcher = cappedFetch(4096, (r) => breaches.push(r), answering(event.repeat(50), 'text/event-stream'))
    expect(await read(fetcher)).toHaveLength(event.length * 50)
    expect(breaches).toEqual([])
  })

  it('one event past the cap fails the stream', async () => {
    const event = `event: message\ndata: ${'y'.repeat(3000)}\ndata: ${'y'.repeat(3000)}\n\n`
    const breaches: string[] = []
    const fetcher = cappedFetch(4096, (r) => breaches.push(r), answering(event, 'text/event-stream; charset=utf-8'))
    await expect(read(fetcher)).rejects.toThrow(/larger than 4096 bytes/)
    expect(breaches).toHaveLength(1)
  })
})
