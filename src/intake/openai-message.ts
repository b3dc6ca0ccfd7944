/**
 * Whole OpenAI Chat Completions values in: an assistant message with `tool_calls`, one choice
 * (`completion.choices[i]`, whose `finish_reason` says whether the message was cut off), or a
 * whole completion. The public types are structural and carry no index signature, so the SDK's
 * own interfaces (`ChatCompletionMessage`, `ChatCompletion.Choice`, `ChatCompletion`) fit them
 * as they are; the values are still checked with `safeParse`, because they come from the app.
 */
import { z } from 'zod'
import type { IncomingToolUse } from './incoming.js'
import { parseToolInput } from './json-input.js'

/** A function tool call of an OpenAI assistant message. */
export interface OpenAIFunctionToolCall {
  readonly id: string
  readonly type?: 'function' | undefined
  readonly function: { readonly name: string; readonly arguments: string }
}

/** A custom (free-form) tool call: toolkernel does not run these (its tools take JSON). */
export interface OpenAICustomToolCall {
  readonly id: string
  readonly type: 'custom'
  readonly custom: { readonly name: string; readonly input: string }
}

/** An OpenAI Chat Completions assistant message (`ChatCompletionMessage` fits). */
export interface OpenAIAssistantMessage {
  readonly role: 'assistant'
  readonly content?: string | null | readonly object[] | undefined
  readonly tool_calls?: readonly (OpenAIFunctionToolCall | OpenAICustomToolCall)[] | null | undefined
  /** The deprecated `functions` API: refused, with the fix (use `tools`). */
  readonly function_call?: { readonly name: string; readonly arguments: string } | null | undefined
  /** Not on the API's message; honoured when an app copies the choice's `finish_reason` here. */
  readonly finish_reason?: string | null | undefined
}

/** One choice of a completion (`ChatCompletion.Choice` fits): the message and why it ended. */
export interface OpenAIChatChoice {
  readonly message: OpenAIAssistantMessage
  readonly finish_reason: string | null
  readonly index?: number | undefined
}

/** A whole completion (`ChatCompletion` fits). Only a single choice can be run. */
export interface OpenAIChatCompletion {
  readonly object?: 'chat.completion' | undefined
  readonly choices: readonly OpenAIChatChoice[]
}

// A Map: finish_reason is the wire's text, and `constructor` must not find Object's.
const STOP_REASONS = new Map<string, string>([
  ['tool_calls', 'tool_use'],
  ['function_call', 'tool_use'],
  ['stop', 'end_turn'],
  ['length', 'max_tokens'],
  ['content_filter', 'refusal'],
])

/** The Anthropic stop reason for an OpenAI `finish_reason`. */
export function stopReasonOf(finishReason: string): string {
  return STOP_REASONS.get(finishReason) ?? finishReason
}

const AssistantSchema = z.looseObject({
  role: z.literal('assistant'),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string().min(1),
        type: z.literal('function').optional(),
        function: z.looseObject({ name: z.string(), arguments: z.string() }),
      }),
    )
    .nullable()
    .optional(),
  finish_reason: z.string().nullable().optional(),
})
const ChoiceSchema = z.looseObject({ message: z.unknown(), finish_reason: z.string().nullable() })
const CompletionSchema = z.looseObject({ choices: z.array(z.unknown()) })

/** True for an OpenAI assistant message: `tool_calls`, `refusal` or `function_call`, or `content: null`. */
export function isOpenAIMessage(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false
  return (
    'tool_calls' in message ||
    'refusal' in message ||
    'function_call' in message ||
    (message as { content?: unknown }).content === null
  )
}

/** The tool calls of an OpenAI assistant message, with `arguments` parsed. */
export function openAIToolUses(message: unknown): IncomingToolUse[] {
  refuseUnsupported(message)
  const parsed = AssistantSchema.safeParse(message)
  if (!parsed.success)
    throw new TypeError(`runTurn expects an OpenAI assistant message with tool_calls: ${z.prettifyError(parsed.error)}`)
  return (parsed.data.tool_calls ?? []).map((call, index) => ({
    id: call.id,
    name: call.function.name,
    index,
    ...parseToolInput(call.function.arguments),
  }))
}

/** The calls and the stop reason of a message, a choice or a completion. */
export function openAICalls(value: unknown): { uses: IncomingToolUse[]; stopReason: string | null } {
  if (typeof value === 'object' && value !== null && 'choices' in value) return openAICalls(onlyChoice(value))
  if (typeof value === 'object' && value !== null && 'message' in value) {
    const choice = ChoiceSchema.safeParse(value)
    if (!choice.success)
      throw new TypeError(
        `runTurn expects an OpenAI choice { message, finish_reason }: ${z.prettifyError(choice.error)}`,
      )
    const { finish_reason: finish } = choice.data
    return { uses: openAIToolUses(choice.data.message), stopReason: finish === null ? null : stopReasonOf(finish) }
  }
  const finish = (value as { finish_reason?: unknown }).finish_reason
  return { uses: openAIToolUses(value), stopReason: typeof finish === 'string' ? stopReasonOf(finish) : null }
}

/** The one choice of a completion; several (`n > 1`) cannot be answered as one turn. */
function onlyChoice(completion: object): unknown {
  const parsed = CompletionSchema.safeParse(completion)
  if (!parsed.success)
    throw new TypeError(`runTurn expects a ChatCompletion with choices: ${z.prettifyError(parsed.error)}`)
  const { choices } = parsed.data
  if (choices.length !== 1)
    throw new TypeError(
      choices.length === 0
        ? 'runTurn got a ChatCompletion with no choices: there is no message to run'
        : `runTurn got a ChatCompletion with ${choices.length} choices (n > 1): the kernel runs the calls of one message; pass the choice you keep, kernel.runTurn(completion.choices[i]), or request n: 1`,
    )
  return choices[0]
}

/** Custom tool calls and the deprecated `function_call`: calls toolkernel cannot answer. */
function refuseUnsupported(message: unknown): void {
  if (typeof message !== 'object' || message === null) return
  const { tool_calls: calls, function_call: legacy } = message as { tool_calls?: unknown; function_call?: unknown }
  if (legacy !== undefined && legacy !== null)
    throw new TypeError(
      'runTurn got an OpenAI message with function_call (the deprecated functions API): toolkernel answers tool calls; pass kernel.apiTools() as `tools` instead of `functions`',
    )
  if (!Array.isArray(calls)) return
  const custom = calls.findIndex((call: unknown) => (call as { type?: unknown } | null)?.type === 'custom')
  if (custom >= 0)
    throw new TypeError(
      `tool_calls[${custom}] is a custom tool call: toolkernel runs function tools (JSON arguments); answer custom tool calls yourself and pass the kernel a message without them`,
    )
}
