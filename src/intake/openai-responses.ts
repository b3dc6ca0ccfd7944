/**
 * OpenAI Responses API streams (`stream: true`) onto the intake. A function call opens with
 * `response.output_item.added` (its `call_id` and name), grows by
 * `response.function_call_arguments.delta`, and is complete at `.done` (or its
 * `response.output_item.done`, whichever comes first); a client `tool_search_call` (ToolSearch) is
 * whole at its `response.output_item.done` — so a safe call can start while the model
 * still streams. The stream ends with `response.completed` (tool use when it made calls),
 * `response.incomplete` (cut off: what has not started is voided, as after an Anthropic
 * `max_tokens`), `response.failed` or an `error` event. Other `response.*` events (text,
 * reasoning, hosted tools) carry nothing to run and are skipped; anything that is not a Responses
 * event is a TypeError naming the method that takes it.
 */
import { z } from 'zod'
import { StreamIntake, type IncomingToolUse } from './incoming.js'
import { parseToolInput } from './json-input.js'
import { cutOff } from './anthropic-stream.js'
import { assertDirected } from './misdirected.js'
import { describeValue } from '../util/describe-value.js'
import {
  failureDetail,
  functionCallUse,
  incompleteStopReason,
  refuseCustom,
  toolSearchCallUse,
  type ResponsesFunctionCall,
} from './openai-responses-items.js'

export * from './openai-responses-items.js'

const Index = z.number().int().nonnegative()
const Item = z.looseObject({ type: z.string() })
const TerminalResponse = z.looseObject({
  output: z.array(Item).optional(),
  incomplete_details: z.looseObject({ reason: z.string().optional() }).nullable().optional(),
  error: z
    .looseObject({ code: z.string().nullable().optional(), message: z.string().optional() })
    .nullable()
    .optional(),
})
const EventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('response.output_item.added'), output_index: Index, item: Item }),
  z.looseObject({ type: z.literal('response.output_item.done'), output_index: Index, item: Item }),
  z.looseObject({ type: z.literal('response.function_call_arguments.delta'), output_index: Index, delta: z.string() }),
  z.looseObject({
    type: z.literal('response.function_call_arguments.done'),
    output_index: Index,
    arguments: z.string(),
  }),
  z.looseObject({ type: z.literal('response.completed'), response: TerminalResponse }),
  z.looseObject({ type: z.literal('response.incomplete'), response: TerminalResponse }),
  z.looseObject({ type: z.literal('response.failed'), response: TerminalResponse }),
  z.looseObject({ type: z.literal('error'), code: z.string().nullable().optional(), message: z.string() }),
])
const KNOWN = new Set<string>(EventSchema.options.map((option) => option.shape.type.value))

interface OpenCall {
  callId: string
  name: string
  ordinal: number
  fragments: string[]
}

export class OpenAIResponsesStreamIntake extends StreamIntake {
  /** Calls still streaming, by output_index. */
  readonly #open = new Map<number, OpenCall>()
  /** output_index of calls already handed on, and their call ids (a terminal event repeats them). */
  readonly #doneIndexes = new Set<number>()
  readonly #doneIds = new Set<string>()
  #ordinal = 0

  /** Takes one Responses stream event, as the `openai` SDK yields them. */
  push(raw: unknown): void {
    assertDirected(raw, 'turn.pushOpenAIResponses')
    const type = (raw as { type?: unknown } | null)?.type
    if (typeof type !== 'string' || !(type.startsWith('response.') || type === 'error'))
      throw new TypeError(
        `turn.pushOpenAIResponses expects an OpenAI Responses stream event, got ${describeValue(raw)}`,
      )
    if (!KNOWN.has(type)) return
    const parsed = EventSchema.safeParse(raw)
    if (!parsed.success) throw new TypeError(`malformed ${type} event: ${z.prettifyError(parsed.error)}`)
    if (this.ended) throw new TypeError(`${type} event after the response ended`)
    const event = parsed.data
    switch (event.type) {
      case 'response.output_item.added':
        return this.#added(event.output_index, event.item)
      case 'response.function_call_arguments.delta':
        return void this.#call(event.output_index, event.type).fragments.push(event.delta)
      case 'response.function_call_arguments.done':
        this.#call(event.output_index, event.type)
        return this.#complete(event.output_index, event.arguments)
      case 'response.output_item.done':
        return this.#itemDone(event.output_index, event.item)
      case 'response.completed':
        this.#reconcile(event.response.output)
        return this.end(this.#ordinal > 0 ? 'tool_use' : 'end_turn')
      case 'response.incomplete':
        this.#reconcile(event.response.output)
        return this.end(incompleteStopReason(event.response.incomplete_details?.reason))
      case 'response.failed':
        this.#reconcile(event.response.output)
        return this.end('error', failureDetail(event.response.error))
      case 'error':
        return this.end('error', `the stream failed: ${event.code ?? 'error'} (${event.message})`)
    }
  }

  /** Hands on the calls still open as cut off, and takes no more events. */
  override close(stopReason: string | null, detail?: string): void {
    this.ended = true
    for (const index of [...this.#open.keys()].sort((a, b) => a - b)) {
      const call = this.#open.get(index) as OpenCall
      this.#handOn(index, {
        id: call.callId,
        name: call.name,
        index: call.ordinal,
        input: call.fragments.join(''),
        inputError: cutOff(stopReason, detail),
      })
    }
  }

  #added(index: number, item: { type: string }): void {
    refuseCustom(item.type, `output[${index}]`)
    if (item.type !== 'function_call') return
    const call = item as Partial<ResponsesFunctionCall>
    if (typeof call.call_id !== 'string' || call.call_id === '' || typeof call.name !== 'string')
      throw new TypeError(
        `response.output_item.added at output_index ${index}: a function_call needs a call_id and a name`,
      )
    if (this.#open.has(index) || this.#doneIndexes.has(index))
      throw new TypeError(`response.output_item.added at output_index ${index}: that item was already added`)
    const fragments = typeof call.arguments === 'string' && call.arguments !== '' ? [call.arguments] : []
    this.#open.set(index, { callId: call.call_id, name: call.name, ordinal: this.#ordinal++, fragments })
  }

  #call(index: number, type: string): OpenCall {
    const call = this.#open.get(index)
    if (call === undefined)
      throw new TypeError(
        `${type} at output_index ${index}: no function_call is streaming there (its response.output_item.added did not come first, or it was already done)`,
      )
    return call
  }

  /** The call is complete: `text` is the whole of its arguments, as the API sends it at the end. */
  #complete(index: number, text: string): void {
    const call = this.#open.get(index) as OpenCall
    this.#handOn(index, { id: call.callId, name: call.name, index: call.ordinal, ...parseToolInput(text) })
  }

  #itemDone(index: number, item: { type: string }): void {
    if (item.type === 'tool_search_call') return this.#searchDone(index, item, `output[${index}]`)
    if (item.type !== 'function_call' || this.#doneIndexes.has(index)) return
    if (!this.#open.has(index)) {
      // Never seen streaming (the app began pushing late): the done item is the whole call.
      const use = functionCallUse(item, this.#ordinal, `output[${index}]`)
      if (this.#doneIds.has(use.id)) return
      this.#ordinal++
      this.#handOn(index, use)
      return
    }
    const call = this.#open.get(index) as OpenCall
    this.#handOn(
      index,
      functionCallUse({ ...item, call_id: call.callId, name: call.name }, call.ordinal, `output[${index}]`),
    )
  }

  /** A terminal event's output lists every call: any the stream did not show are handed on now. */
  #reconcile(output: ReadonlyArray<{ type: string }> | undefined): void {
    ;(output ?? []).forEach((item, index) => {
      if (item.type === 'tool_search_call') return this.#searchDone(index, item, `response.output[${index}]`)
      if (item.type !== 'function_call' || this.#doneIndexes.has(index)) return
      const open = this.#open.get(index)
      if (open !== undefined) {
        const whole = { ...item, call_id: open.callId, name: open.name }
        this.#handOn(index, functionCallUse(whole, open.ordinal, `response.output[${index}]`))
        return
      }
      const id = (item as { call_id?: unknown }).call_id
      if (typeof id === 'string' && this.#doneIds.has(id)) return
      this.#handOn(index, functionCallUse(item, this.#ordinal++, `response.output[${index}]`))
    })
  }

  /**
   * A tool search call streams no argument deltas: its done item (or the terminal event's copy)
   * is the whole call. The API's own (server) searches are not the kernel's.
   */
  #searchDone(index: number, item: { type: string }, where: string): void {
    if (this.#doneIndexes.has(index)) return
    const use = toolSearchCallUse(item, this.#ordinal, where)
    if (use === undefined || this.#doneIds.has(use.id)) return
    this.#ordinal++
    this.#handOn(index, use)
  }

  #handOn(index: number, use: IncomingToolUse): void {
    this.#open.delete(index)
    this.#doneIndexes.add(index)
    this.#doneIds.add(use.id)
    this.sink.toolUse(use)
  }
}
