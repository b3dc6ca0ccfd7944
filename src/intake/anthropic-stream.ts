/**
 * Intake of Anthropic Messages API stream events (`stream: true`), as the official SDK yields
 * them: tool_use blocks assembled from `input_json_delta` fragments per block index, handed on
 * as each block stops; the stop reason from `message_delta`; the end at `message_stop` or an
 * `error` event. Text and thinking blocks are ignored. Every event is a trust boundary: a
 * malformed one is a TypeError naming what is wrong.
 */
import { z } from 'zod'
import { StreamIntake, type IncomingToolUse } from './incoming.js'
import { parseToolInput } from './json-input.js'
import { assertDirected } from './misdirected.js'
import { describeValue } from '../util/describe-value.js'

const Index = z.number().int().nonnegative()
const StreamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message_start'), message: z.looseObject({}) }),
  z.looseObject({
    type: z.literal('content_block_start'),
    index: Index,
    content_block: z.looseObject({
      type: z.string(),
      id: z.string().optional(),
      name: z.string().optional(),
      input: z.unknown().optional(),
    }),
  }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index: Index,
    delta: z.looseObject({ type: z.string(), partial_json: z.string().optional() }),
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index: Index }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullable().optional() }),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({
    type: z.literal('error'),
    error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }),
  }),
])
const KNOWN = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
])

interface OpenBlock {
  id: string
  name: string
  ordinal: number
  fragments: string[]
  initial: unknown
}

export class AnthropicStreamIntake extends StreamIntake {
  readonly #open = new Map<number, OpenBlock>()
  #ordinal = 0
  #stopReason: string | null = null

  /**
   * Takes one raw stream event. Unknown event types are ignored (the API may add some); values
   * that are recognisably something else (a content block, a whole message, an OpenAI chunk or
   * Responses event) are a TypeError naming the method that takes them.
   */
  push(raw: unknown): void {
    assertDirected(raw, 'turn.push')
    const type = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown }).type : undefined
    if (typeof type !== 'string')
      throw new TypeError(`push expects an Anthropic stream event with a string "type", got ${describeValue(raw)}`)
    if (!KNOWN.has(type)) return
    const parsed = StreamEventSchema.safeParse(raw)
    if (!parsed.success) throw new TypeError(`malformed ${type} event: ${z.prettifyError(parsed.error)}`)
    if (this.ended) throw new TypeError(`${type} event after the message ended`)
    const event = parsed.data
    switch (event.type) {
      case 'content_block_start':
        this.#start(event.index, event.content_block)
        return
      case 'content_block_delta': {
        const block = this.#open.get(event.index)
        if (block !== undefined && event.delta.type === 'input_json_delta')
          block.fragments.push(event.delta.partial_json ?? '')
        return
      }
      case 'content_block_stop': {
        const block = this.#open.get(event.index)
        if (block === undefined) return
        this.#open.delete(event.index)
        this.sink.toolUse(assemble(block))
        return
      }
      case 'message_delta':
        if (event.delta.stop_reason !== undefined) this.#stopReason = event.delta.stop_reason
        return
      case 'message_stop':
        this.end(this.#stopReason)
        return
      case 'error':
        this.end(
          'error',
          `the stream failed: ${event.error.type ?? 'error'}${event.error.message !== undefined ? ` (${event.error.message})` : ''}`,
        )
        return
      default:
        return
    }
  }

  /** Hands on the blocks still open as cut off, and takes no more events. */
  override close(stopReason: string | null, detail?: string): void {
    this.ended = true
    for (const block of [...this.#open.values()].sort((a, b) => a.ordinal - b.ordinal)) {
      this.sink.toolUse({
        id: block.id,
        name: block.name,
        index: block.ordinal,
        input: block.fragments.join(''),
        inputError: cutOff(stopReason, detail),
      })
    }
    this.#open.clear()
  }

  #start(
    index: number,
    block: { type: string; id?: string | undefined; name?: string | undefined; input?: unknown },
  ): void {
    // Text, thinking and server_tool_use blocks (run by the API itself) are not ours to run.
    if (block.type !== 'tool_use') return
    if (block.id === undefined || block.id === '' || block.name === undefined) {
      throw new TypeError(`content_block_start at index ${index}: a tool_use block needs an id and a name`)
    }
    if (this.#open.has(index)) throw new TypeError(`content_block_start at index ${index}: that block is already open`)
    this.#open.set(index, {
      id: block.id,
      name: block.name,
      ordinal: this.#ordinal++,
      fragments: [],
      initial: block.input,
    })
  }
}

function assemble(block: OpenBlock): IncomingToolUse {
  const text = block.fragments.join('')
  // Without deltas the block carried its whole input at start (non-streamed input).
  const parsed = text === '' && block.initial !== undefined ? { input: block.initial } : parseToolInput(text)
  return { id: block.id, name: block.name, index: block.ordinal, ...parsed }
}

export function cutOff(stopReason: string | null, detail: string | undefined): string {
  const why = detail ?? `the message ended with stop reason ${stopReason ?? 'none'}`
  return `it was cut off before the JSON was complete — ${why}`
}
