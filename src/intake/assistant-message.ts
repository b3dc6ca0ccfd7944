/**
 * Reads the tool calls out of an assistant message in the Anthropic Messages format. The message
 * comes from the app, so a malformed one is the app's bug and gets a specific TypeError; what the
 * model put inside a tool_use (its input) is never checked here — the call's own steps do that.
 */
import { z } from 'zod'

/** One tool call as the model wrote it. */
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
})

/** An Anthropic assistant message: its content blocks other than `tool_use` are ignored. */
export type AssistantMessage = z.input<typeof AssistantMessageSchema>

/**
 * The message's tool_use blocks, in order.
 *
 * @throws TypeError naming what is wrong: not an assistant message, a tool_use without id or
 * name, or two tool_use blocks with the same id (the API would reject the conversation).
 */
export function toolUsesOf(message: unknown): ToolUseBlock[] {
  const parsed = AssistantMessageSchema.safeParse(message)
  if (!parsed.success) throw new TypeError(`runTurn expects an assistant message { role: 'assistant', content: [...] }: ${z.prettifyError(parsed.error)}`)
  const { content } = parsed.data
  if (typeof content === 'string') return []
  const uses: ToolUseBlock[] = []
  const seen = new Set<string>()
  content.forEach((block, i) => {
    if (block.type !== 'tool_use') return
    const use = ToolUseSchema.safeParse(block)
    if (!use.success) throw new TypeError(`content[${i}] is a tool_use block the kernel cannot answer: ${z.prettifyError(use.error)}`)
    if (seen.has(use.data.id)) throw new TypeError(`content[${i}]: tool_use id "${use.data.id}" appears twice; each tool_use needs its own id`)
    seen.add(use.data.id)
    uses.push(use.data as ToolUseBlock)
  })
  return uses
}
