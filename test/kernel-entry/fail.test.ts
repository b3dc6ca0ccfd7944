/**
 * The one path for a stream that fails mid-way: `turn.fail(error)` in the app's catch. A real
 * Anthropic SDK client reads from a server on loopback that drops the connection halfway through
 * a message; the SDK throws out of the app's loop, and the turn must still end with a result for
 * every call it was given — the started one keeps its result, the unsafe one never runs, the one
 * still streaming is answered as cut off.
 */
import Anthropic from '@anthropic-ai/sdk'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { replay } from '../../src/index.js'
import { testKernel } from '../helpers.js'
import { recordingTools } from './tools.js'

const sse = (event: { type: string }) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
const toolBlock = (index: number, id: string, name: string, json: string[], stop = true) => [
  { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } },
  ...json.map((partial) => ({
    type: 'content_block_delta',
    index,
    delta: { type: 'input_json_delta', partial_json: partial },
  })),
  ...(stop ? [{ type: 'content_block_stop', index }] : []),
]
/** A message cut off by the server: a complete Read, a complete Write, then half a Glob. */
const HALF_A_MESSAGE = [
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  },
  ...toolBlock(0, 'toolu_read', 'Read', ['{"file_path":', '"/a"}']),
  ...toolBlock(1, 'toolu_write', 'Write', ['{"file_path":"/b","content":"x"}']),
  ...toolBlock(2, 'toolu_glob', 'Glob', ['{"pat'], false),
]

let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
  server = undefined
})

/** A Messages API that streams `events` and then drops the connection. */
async function droppingServer(events: readonly { type: string }[]): Promise<string> {
  server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write(events.map(sse).join(''), () => response.socket?.destroy())
    })
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('turn.fail: the SDK throws mid-stream', () => {
  it('the started call keeps its result, the unsafe one is voided, the streaming one is cut off', async () => {
    const { ran, tools } = recordingTools()
    const kernel = testKernel(tools)
    const client = new Anthropic({ baseURL: await droppingServer(HALF_A_MESSAGE), apiKey: 'test', maxRetries: 0 })
    const turn = kernel.startTurn()
    let caught: unknown
    try {
      const stream = await client.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'go' }],
        stream: true,
      })
      for await (const event of stream) turn.push(event)
    } catch (error) {
      caught = error
      turn.fail(error)
    }
    expect(caught).toBeInstanceOf(Error)
    const { message, events } = await turn.result()
    expect(ran).toEqual(['Read /a'])
    expect(message.content.map((b) => b.tool_use_id)).toEqual(['toolu_read', 'toolu_write', 'toolu_glob'])
    expect(message.content[0]).toEqual({ type: 'tool_result', tool_use_id: 'toolu_read', content: 'contents of /a' })
    expect(message.content[1]?.is_error).toBe(true)
    expect(message.content[1]?.content).toMatch(/stream failed before the message ended, so calls not yet started/)
    // The error itself reaches the model through the call it cut off.
    expect(message.content[2]?.content).toMatch(/cut off before the JSON was complete — the stream failed: TypeError/)
    expect(events.find((e) => e.type === 'turn.ended')).toMatchObject({ stopReason: 'error' })
    // The log of a failed turn replays like any other.
    const replayed = await replay(kernel.log.read(), { tools })
    expect(replayed.ok ? 'no divergence' : replayed.divergence.message).toBe('no divergence')
  })

  it('after the message has ended, fail does nothing: the turn finishes as it would have', async () => {
    const { ran, tools } = recordingTools()
    const turn = testKernel(tools).startTurn()
    turn.addToolUse({ id: 'w', name: 'Write', input: { file_path: '/b', content: 'x' } })
    turn.end('tool_use')
    turn.fail(new Error('the iterator threw after message_stop'))
    turn.fail('twice')
    const { message } = await turn.result()
    expect(ran).toEqual(['Write /b'])
    expect(message.content[0]?.content).toBe('wrote /b')
  })

  it('an error that is not an Error still names itself in the results', async () => {
    const turn = testKernel(recordingTools().tools).startTurn()
    for (const event of toolBlock(0, 'w', 'Write', ['{"file_path":'], false)) turn.push(event)
    turn.fail('socket hang up')
    const { message } = await turn.result()
    expect(message.content[0]?.content).toMatch(/the stream failed: socket hang up/)
  })
})
