/** parseSSE alone: the data payloads of a server-sent-event body. */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseSSE } from '../../src/intake/sse.js'

describe('parseSSE', () => {
  it('one JSON payload per event block; event and comment lines are not data', () => {
    expect(parseSSE('event: a\ndata: {"n":1}\n\n: a comment\nevent: b\ndata: {"n":2}\n\n')).toEqual([
      { n: 1 },
      { n: 2 },
    ])
  })

  it('data lines of one block are joined with newlines; "data:" without a space; CRLF line ends', () => {
    expect(parseSSE('data: [1,\ndata: 2]\n\n')).toEqual([[1, 2]])
    // Joined with a newline, "1" and "2" are not one number.
    expect(() => parseSSE('data: 1\ndata: 2\n\n')).toThrow(/line 1 is not JSON/)
    expect(parseSSE('data:{"tight":true}\r\n\r\ndata:  "two spaces keep one"\r\n\r\n')).toEqual([
      { tight: true },
      'two spaces keep one',
    ])
  })

  it('the last block needs no blank line after it; blank lines alone give nothing', () => {
    expect(parseSSE('data: 1\n\ndata: 2')).toEqual([1, 2])
    expect(parseSSE('\n\n\n')).toEqual([])
    expect(parseSSE('')).toEqual([])
  })

  it("OpenAI's [DONE] sentinel is kept as a string", () => {
    expect(parseSSE('data: {"a":1}\n\ndata: [DONE]\n\n')).toEqual([{ a: 1 }, '[DONE]'])
  })

  it('a payload that is not JSON is a SyntaxError naming the line it starts on', () => {
    const body = 'event: x\ndata: {"ok":1}\n\nevent: y\ndata: {"broken":\ndata: nope\n\n'
    expect(() => parseSSE(body)).toThrow(SyntaxError)
    expect(() => parseSSE(body)).toThrow(/^SSE data at line 5 is not JSON: /)
  })

  it('reads every recorded stream: Anthropic events with a type, OpenAI chunks ending in [DONE]', () => {
    const dir = new URL('../fixtures/streams/', import.meta.url)
    const read = (name: string) => parseSSE(readFileSync(new URL(name, dir), 'utf8'))
    const anthropic = read('anthropic-parallel-reads.sse')
    expect(anthropic[0]).toMatchObject({ type: 'message_start' })
    expect(anthropic.at(-1)).toEqual({ type: 'message_stop' })
    expect(anthropic.every((e) => typeof (e as { type?: unknown }).type === 'string')).toBe(true)
    const openai = read('openai-parallel-tool-calls.sse')
    expect(openai).toHaveLength(17)
    expect(openai.at(-1)).toBe('[DONE]')
  })
})
