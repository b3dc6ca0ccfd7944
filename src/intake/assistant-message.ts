/**
 * Reads the tool calls out of a whole assistant message: the Anthropic Messages format; an
 * OpenAI Chat Completions message, choice or completion; an OpenAI Responses response or its
 * output array. The message comes from the app, so a malformed one is the app's bug and gets a
 * specific TypeError; what the model put inside a call (its input) is never checked here — the
 * call's own steps do that.
 *
 * The public types are structural, without index signatures: the SDKs' interfaces
 * (`Anthropic.Message`, `ChatCompletionMessage`, `Response` …) have none, so a type with one
 * would not accept them. Blocks and items other than tool calls are typed `object`: the kernel
 * skips them, and a literal text block must not trip excess-property checks.
 */
import { z } from 'zod'
import type { IncomingToolUse } from './incoming.js'
import { assertDirected } from './misdirected.js'
import { describeValue } from '../util/describe-value.js'
import {
  isOpenAIMessage,
  openAICalls,
  type OpenAIAssistantMessage,
  type OpenAIChatChoice,
  type OpenAIChatCompletion,
} from './openai-message.js'
import { outputCalls, responseCalls, type OpenAIResponse, type ResponsesOutputItem } from './openai-responses-items.js'

/** One tool call as the model wrote it, in the Anthropic format (`Anthropic.ToolUseBlock` fits). */
export interface ToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}

/** An Anthropic assistant message (`Anthropic.Message` fits); blocks other than tool_use are skipped. */
export interface AnthropicAssistantMessage {
  readonly role: 'assistant'
  readonly content: string | readonly (ToolUseBlock | object)[]
  /** A stop reason other than `tool_use` (`max_tokens`, `refusal` …) voids every call. */
  readonly stop_reason?: string | null | undefined
}

const ToolUseSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1, 'a tool_use id must not be empty'),
  name: z.string(),
  input: z.unknown(),
})
const AnyBlockSchema = z.looseObject({ type: z.string() })
const AssistantMessageSchema = z.looseObject({
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(AnyBlockSchema)]),
  stop_reason: z.string().nullable().optional(),
})

/**
 * What `kernel.runTurn` takes: an Anthropic message; an OpenAI Chat Completions message, choice
 * or completion (one choice); an OpenAI Responses response, or its output array.
 */
export type AssistantMessage =
  | AnthropicAssistantMessage
  | OpenAIAssistantMessage
  | OpenAIChatChoice
  | OpenAIChatCompletion
  | OpenAIResponse
  | readonly ResponsesOutputItem[]

export interface MessageCalls {
  uses: IncomingToolUse[]
  /** The message's stop reason when it says one (`stop_reason`, OpenAI `finish_reason`, Responses `status`). */
  stopReason: string | null
}

/**
 * The message's tool calls, in order.
 *
 * @throws TypeError naming what is wrong: not an assistant message, a tool_use without id or
 * name, or two calls with the same id (the API would reject the conversation).
 */
export function toolUsesOf(message: unknown): MessageCalls {
  assertDirected(message, 'kernel.runTurn')
  const calls = callsOf(message)
  const seen = new Set<string>()
  for (const use of calls.uses) {
    if (seen.has(use.id)) throw new TypeError(`tool call id "${use.id}" appears twice; each call needs its own id`)
    seen.add(use.id)
  }
  return calls
}

function anthropicCalls(message: unknown): MessageCalls {
  const parsed = AssistantMessageSchema.safeParse(message)
  if (!parsed.success)
    throw new TypeError(
      `runTurn expects an assistant message { role: 'assistant', content: [...] }: ${z.prettifyError(parsed.error)}`,
    )
  const { content, stop_reason: stopReason } = parsed.data
  const uses: IncomingToolUse[] = []
  if (typeof content !== 'string') {
    content.forEach((block, i) => {
      if (block.type !== 'tool_use') return
      const use = ToolUseSchema.safeParse(block)
      if (!use.success)
        throw new TypeError(`content[${i}] is a tool_use block the kernel cannot answer: ${z.prettifyError(use.error)}`)
      uses.push({ id: use.data.id, name: use.data.name, input: use.data.input, index: uses.length })
    })
  }
  return { uses, stopReason: stopReason ?? null }
}

function callsOf(message: unknown): MessageCalls {
  if (Array.isArray(message)) return arrayCalls(message)
  if (typeof message !== 'object' || message === null) return anthropicCalls(message)
  if ((message as { object?: unknown }).object === 'response' || ('output' in message && !('role' in message)))
    return responseCalls(message)
  if ('choices' in message || 'message' in message || isOpenAIMessage(message)) return openAICalls(message)
  return anthropicCalls(message)
}

/** A Responses output array; an array of Anthropic blocks is `message.content` passed by mistake. */
function arrayCalls(items: unknown[]): MessageCalls {
  const block = items.findIndex((item) => {
    const type = (item as { type?: unknown } | null)?.type
    return type === 'tool_use' || type === 'text' || type === 'thinking'
  })
  if (block >= 0)
    throw new TypeError(
      `kernel.runTurn got an array holding Anthropic content blocks (${describeValue(items[block])} at [${block}]), but it takes a whole message: pass the message, kernel.runTurn(message), not message.content`,
    )
  const uses = outputCalls(items)
  return { uses, stopReason: uses.length > 0 ? 'tool_use' : null }
}
