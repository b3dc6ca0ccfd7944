/**
 * Assistant messages and model streams for property tests of a tool layer: `tool_use` blocks for
 * the app's own tools (valid inputs from each tool's schema, invalid, hostile and unknown ones),
 * stop reasons that cut a turn off, and the same message as an Anthropic or OpenAI stream split
 * into random fragments.
 */
import fc from 'fast-check'
import { inputJsonSchema } from '../tools/to-api-format.js'
import type { Tool } from '../tools/tool.types.js'
import { arbitraryForSchema, invalidForSchema } from './json-schema.arbitrary.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'

/** A `tool_use` block as the Anthropic Messages API sends it. */
export interface ToolUseBlockParam {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}

/** An assistant message in the Anthropic Messages API's shape (what `kernel.runTurn` takes). */
export interface ArbitraryAssistantMessage {
  id: string
  type: 'message'
  role: 'assistant'
  model: string
  content: Array<{ type: 'text'; text: string } | ToolUseBlockParam>
  stop_reason: 'tool_use' | 'end_turn' | 'max_tokens'
  stop_sequence: null
  usage: { input_tokens: number; output_tokens: number }
}

export interface MessageOptions {
  /** Inputs to draw for a tool instead of those derived from its schema (e.g. Bash commands). */
  inputs?: Readonly<Record<string, fc.Arbitrary<unknown>>>
  /** Most `tool_use` blocks per message. Default 6. */
  maxCalls?: number
  /** Share of calls with an input that breaks the schema. Default 0.15. */
  invalidShare?: number
  /** Whether to draw calls of tools that do not exist, and hostile ids. Default true. */
  hostile?: boolean
  /** Whether to draw stop reasons that cut the turn off (`max_tokens`, `end_turn`). Default true. */
  truncated?: boolean
}

/** Ids from outside as hostile as they come: prototype keys, unicode, very long. */
export const HOSTILE_TOOL_USE_IDS: readonly string[] = [
  '__proto__',
  'constructor',
  'toString',
  'toolu_é漢字🙂',
  'x'.repeat(300),
]

/** Every option of `MessageOptions` (an unknown one is refused, decision 118). */
export const MESSAGE_OPTIONS = optionNames<MessageOptions>()(
  'inputs',
  'maxCalls',
  'invalidShare',
  'hostile',
  'truncated',
)

/** A tool_use block for one of `tools`, with a valid input from its schema (or `inputs`). */
export function toolUseInputs(tools: readonly Tool[], options: MessageOptions = {}): fc.Arbitrary<[string, unknown]> {
  checkOptionsObject('toolUseInputs', options, MESSAGE_OPTIONS)
  return drawInputs(tools, options)
}

function drawInputs(tools: readonly Tool[], options: MessageOptions): fc.Arbitrary<[string, unknown]> {
  if (tools.length === 0) throw new Error('toolUseInputs needs at least one tool: pass the tools of your kernel')
  const invalidShare = options.invalidShare ?? 0.15
  const invalidWeight = Math.round(invalidShare * 100)
  return fc.oneof(
    ...tools.map((tool) => {
      const schema = inputJsonSchema(tool)
      const valid = options.inputs?.[tool.name] ?? arbitraryForSchema(schema)
      const input =
        invalidWeight <= 0
          ? valid
          : fc.oneof(
              { weight: 100 - invalidWeight, arbitrary: valid },
              { weight: invalidWeight, arbitrary: invalidForSchema(schema) },
            )
      return input.map((value) => [tool.name, value] as [string, unknown])
    }),
  )
}

/**
 * Assistant messages of `tool_use` blocks for `tools`. Ids are unique within a message (the API
 * guarantees that much); everything else a model may do is drawn.
 *
 * @example
 * fc.assert(fc.asyncProperty(assistantMessages(kernel.tools), async (m) => { await kernel.runTurn(m) }))
 */
export function assistantMessages(
  tools: readonly Tool[],
  options: MessageOptions = {},
): fc.Arbitrary<ArbitraryAssistantMessage> {
  checkOptionsObject('assistantMessages', options, MESSAGE_OPTIONS)
  return assistantMessagesWith(tools, options, fc.constant(undefined)).map(({ message }) => message)
}

/**
 * Assistant messages as `assistantMessages` draws them, each `tool_use` with a value of `extra`
 * of its own (`extras[i]` goes with the i-th `tool_use`). The value is drawn and shrunk with its
 * call, so a call the shrinker removes takes its value with it instead of handing it to the next
 * call (what `checkToolLayer` keeps its faults in).
 */
export function assistantMessagesWith<T>(
  tools: readonly Tool[],
  options: MessageOptions,
  extra: fc.Arbitrary<T>,
): fc.Arbitrary<{ message: ArbitraryAssistantMessage; extras: T[] }> {
  const hostile = options.hostile ?? true
  const call = hostile
    ? fc.oneof(
        { weight: 12, arbitrary: drawInputs(tools, options) },
        { weight: 1, arbitrary: fc.tuple(fc.constant('NoSuchTool'), fc.jsonValue({ maxDepth: 1 })) },
      )
    : drawInputs(tools, options)
  const stop = options.truncated === false ? fc.constant('tool_use' as const) : stopReasons
  const ids = hostile ? fc.shuffledSubarray([...HOSTILE_TOOL_USE_IDS]) : fc.constant([])
  return fc
    .tuple(calls(fc.tuple(call, extra), options.maxCalls ?? 6), stop, ids, fc.boolean())
    .map(([calls, stopReason, pool, text]) => ({
      message: {
        id: 'msg_property',
        type: 'message' as const,
        role: 'assistant' as const,
        model: 'property-test',
        content: [
          ...(text ? [{ type: 'text' as const, text: 'Let me do that.' }] : []),
          ...calls.map(([[name, input]], i) => ({
            type: 'tool_use' as const,
            id: pool[i] ?? `toolu_${i}`,
            name,
            input,
          })),
        ],
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      extras: calls.map(([, value]) => value),
    }))
}

/**
 * One to `max` calls. Drawn as an array that may be empty and filtered, not with `minLength: 1`:
 * fast-check shrinks an array by dropping its head and, keeping the head, the rest's head, so
 * with a minimum of one a call at the end could never be dropped (a writer and a reader kept an
 * unrelated call behind them); with a minimum of zero the rest can shrink to nothing.
 */
function calls<T>(call: fc.Arbitrary<T>, max: number): fc.Arbitrary<T[]> {
  return fc.array(call, { maxLength: max }).filter((drawn) => drawn.length > 0)
}

const stopReasons = fc.oneof(
  { weight: 8, arbitrary: fc.constant('tool_use' as const) },
  { weight: 1, arbitrary: fc.constant('max_tokens' as const) },
  { weight: 1, arbitrary: fc.constant('end_turn' as const) },
)

/** The `tool_use` blocks of a message, in order. */
export function toolUsesOf(message: ArbitraryAssistantMessage): ToolUseBlockParam[] {
  return message.content.filter((block): block is ToolUseBlockParam => block.type === 'tool_use')
}

/** `text` cut at the given fractions into fragments (what a streaming API sends as deltas). */
function fragments(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * text.length)))].filter((i) => i > 0 && i < text.length)
  at.sort((a, b) => a - b)
  const parts: string[] = []
  let start = 0
  for (const i of [...at, text.length]) {
    parts.push(text.slice(start, i))
    start = i
  }
  return parts.length === 0 ? [''] : parts
}

const cutsArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 })

/** The message as the Anthropic Messages API streams it, its tool inputs split at random points. */
export function anthropicStreams(message: ArbitraryAssistantMessage): fc.Arbitrary<unknown[]> {
  return fc.array(cutsArb, { minLength: message.content.length, maxLength: message.content.length }).map((cuts) => {
    const events: unknown[] = [
      { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: message.usage } },
    ]
    message.content.forEach((block, index) => {
      if (block.type === 'text') {
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } })
      } else {
        const start = { type: 'tool_use', id: block.id, name: block.name, input: {} }
        events.push({ type: 'content_block_start', index, content_block: start })
        for (const partial of fragments(JSON.stringify(block.input), cuts[index] ?? []))
          events.push({
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: partial },
          })
      }
      events.push({ type: 'content_block_stop', index })
    })
    events.push({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: {} })
    events.push({ type: 'message_stop' })
    return events
  })
}

const FINISH: Record<ArbitraryAssistantMessage['stop_reason'], string> = {
  tool_use: 'tool_calls',
  end_turn: 'stop',
  max_tokens: 'length',
}

/** The message as OpenAI Chat Completions streams it (`tool_calls` deltas), split at random points. */
export function openAIChatStreams(message: ArbitraryAssistantMessage): fc.Arbitrary<unknown[]> {
  const uses = toolUsesOf(message)
  return fc.array(cutsArb, { minLength: uses.length, maxLength: uses.length }).map((cuts) => {
    const chunk = (delta: unknown, finish: string | null = null): unknown => ({
      id: 'chatcmpl-property',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'property-test',
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    })
    const chunks: unknown[] = [chunk({ role: 'assistant', content: null })]
    uses.forEach((use, index) => {
      const parts = fragments(JSON.stringify(use.input), cuts[index] ?? [])
      parts.forEach((args, i) => {
        const head = i === 0 ? { id: use.id, type: 'function', function: { name: use.name, arguments: args } } : {}
        chunks.push(chunk({ tool_calls: [{ index, ...head, ...(i === 0 ? {} : { function: { arguments: args } }) }] }))
      })
    })
    chunks.push(chunk({}, FINISH[message.stop_reason]))
    return chunks
  })
}
