/**
 * Reads the tool calls out of a whole assistant message: the Anthropic Messages format, or an
 * OpenAI Chat Completions message with `tool_calls`. The message comes from the app, so a
 * malformed one is the app's bug and gets a specific TypeError; what the model put inside a call
 * (its input) is never checked here — the call's own steps do that.
 */
import { z } from 'zod'
import type { IncomingToolUse } from './incoming.js'
import { isOpenAIMessage, openAIToolUses, stopReasonOf, type OpenAIAssistantMessage } from './openai.js'

/** One tool call as the model wrote it, in the Anthropic format. */
export interface ToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
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

/** An assistant message: Anthropic (content blocks other than `tool_use` are ignored) or OpenAI. */
export type AssistantMessage = z.input<typeof AssistantMessageSchema> | OpenAIAssistantMessage

export interface MessageCalls {
  uses: IncomingToolUse[]
  /** The message's stop reason when it says one (Anthropic `stop_reason`, OpenAI `finish_reason`). */
  stopReason: string | null
}

/**
 * The message's tool calls, in order.
 *
 * @throws TypeError naming what is wrong: not an assistant message, a tool_use without id or
 * name, or two calls with the same id (the API would reject the conversation).
 */
export function toolUsesOf(message: unknown): MessageCalls {
  const calls = isOpenAIMessage(message) ? openAICalls(message) : anthropicCalls(message)
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

function openAICalls(message: unknown): MessageCalls {
  const finish = (message as { finish_reason?: unknown }).finish_reason
  return { uses: openAIToolUses(message), stopReason: typeof finish === 'string' ? stopReasonOf(finish) : null }
}
