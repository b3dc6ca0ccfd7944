/**
 * What an app handed the wrong entry point: an OpenAI chunk pushed as an Anthropic event, a content
 * block pushed as a stream event, the AI SDK's message given to `runTurn`. Each would otherwise be
 * skipped as "not a tool call" — the turn never ends, or ends with no results — so each entry
 * point asks here first and throws a TypeError that names what it got, what it takes, and the
 * method that takes it.
 */

/** The kernel's entry points that take wire-format values. */
export type EntryPoint =
  'turn.push' | 'turn.pushOpenAI' | 'turn.pushOpenAIResponses' | 'kernel.runTurn' | 'turn.addToolUse'

type Kind =
  | 'anthropic-event'
  | 'anthropic-message'
  | 'assistant-message'
  | 'tool-use-block'
  | 'content-block'
  | 'chat-chunk'
  | 'chat-completion'
  | 'chat-choice'
  | 'chat-tool-call'
  | 'responses-event'
  | 'response'
  | 'responses-item'
  | 'ai-sdk'

const ANTHROPIC_EVENTS = new Set([
  'message_start',
  'message_delta',
  'message_stop',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'ping',
])
// Content blocks of an Anthropic message (`message.content[i]`), never stream events.
const CONTENT_BLOCKS = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'container_upload',
  'tool_result',
  'image',
  'document',
])
// AI SDK parts with one-word names; the rest are kebab-case (`tool-call`, `text-delta`).
const AI_SDK_PARTS = new Set(['start', 'finish', 'abort', 'raw', 'source', 'file', 'reasoning'])

const LABEL: Record<Kind, string> = {
  'anthropic-event': 'an Anthropic stream event',
  'anthropic-message': 'a whole Anthropic message',
  'assistant-message': 'a whole assistant message',
  'tool-use-block': 'an Anthropic tool_use content block',
  'content-block': 'an Anthropic content block',
  'chat-chunk': 'an OpenAI Chat Completions chunk',
  'chat-completion': 'a whole OpenAI ChatCompletion',
  'chat-choice': 'an OpenAI ChatCompletion choice',
  'chat-tool-call': 'an OpenAI tool call',
  'responses-event': 'an OpenAI Responses stream event',
  response: 'a whole OpenAI Responses response',
  'responses-item': 'an OpenAI Responses function_call item',
  'ai-sdk': 'a Vercel AI SDK value (tool-call parts)',
}

const TAKES: Record<EntryPoint, { kinds: readonly Kind[]; takes: string }> = {
  'turn.push': { kinds: ['anthropic-event'], takes: 'an Anthropic stream event (RawMessageStreamEvent)' },
  'turn.pushOpenAI': { kinds: ['chat-chunk'], takes: 'an OpenAI ChatCompletionChunk' },
  'turn.pushOpenAIResponses': { kinds: ['responses-event'], takes: 'an OpenAI Responses stream event' },
  'kernel.runTurn': {
    kinds: ['anthropic-message', 'assistant-message', 'chat-completion', 'chat-choice', 'response'],
    takes: 'a whole assistant message (Anthropic Message, OpenAI message, choice, completion or Response)',
  },
  'turn.addToolUse': { kinds: ['tool-use-block'], takes: 'a tool_use block { id, name, input }' },
}

/** Where each kind of value goes instead. */
const INSTEAD: Record<Kind, string> = {
  'anthropic-event': 'use turn.push(event)',
  'anthropic-message': 'use kernel.runTurn(message)',
  'assistant-message': 'use kernel.runTurn(message)',
  'tool-use-block': 'use turn.addToolUse(block)',
  'content-block':
    'stream events go to turn.push, a whole message to kernel.runTurn(message), a tool_use block to turn.addToolUse(block)',
  'chat-chunk': 'use turn.pushOpenAI(chunk)',
  'chat-completion': 'use kernel.runTurn(completion)',
  'chat-choice': 'use kernel.runTurn(choice)',
  'chat-tool-call': 'pass the whole message to kernel.runTurn(message), or stream its chunks to turn.pushOpenAI(chunk)',
  'responses-event': 'use turn.pushOpenAIResponses(event)',
  response: 'use kernel.runTurn(response)',
  'responses-item': 'pass the whole response (or its output array) to kernel.runTurn(response)',
  'ai-sdk': "use the AI SDK adapter from 'toolkernel/ai-sdk', which runs the AI SDK's tool calls through the kernel",
}

/**
 * Why `value` does not belong at `entry`, as the message of the TypeError to throw; undefined
 * when it may belong there (or is not recognisably anything: the entry point's own check says why).
 */
export function misdirected(value: unknown, entry: EntryPoint): string | undefined {
  const kind = kindOf(value)
  if (kind === undefined || TAKES[entry].kinds.includes(kind)) return undefined
  const type = kind === 'content-block' ? ` (${JSON.stringify((value as { type: string }).type)})` : ''
  return `${entry} got ${LABEL[kind]}${type}, but it takes ${TAKES[entry].takes}: ${INSTEAD[kind]}`
}

/** Throws the misdirection TypeError for `value` at `entry`, if there is one. */
export function assertDirected(value: unknown, entry: EntryPoint): void {
  const problem = misdirected(value, entry)
  if (problem !== undefined) throw new TypeError(problem)
}

function kindOf(value: unknown): Kind | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const v = value as Record<string, unknown>
  if (isAISDK(v)) return 'ai-sdk'
  if (typeof v.type === 'string') return typedKind(v, v.type)
  if (v.object === 'chat.completion.chunk') return 'chat-chunk'
  if (v.object === 'chat.completion') return 'chat-completion'
  if (v.object === 'response') return 'response'
  if (Array.isArray(v.choices)) return chatKind(v.choices)
  if (typeof v.message === 'object' && v.message !== null && 'finish_reason' in v) return 'chat-choice'
  if (typeof v.id === 'string' && typeof v.function === 'object' && v.function !== null) return 'chat-tool-call'
  if (v.role === 'assistant') return 'assistant-message'
  return undefined
}

function typedKind(v: Record<string, unknown>, type: string): Kind | undefined {
  if (ANTHROPIC_EVENTS.has(type)) return 'anthropic-event'
  if (type.startsWith('response.')) return 'responses-event'
  // Both APIs stream an `error` event: Anthropic's carries an `error` object, OpenAI's a sequence number.
  if (type === 'error') {
    if ('sequence_number' in v || (typeof v.message === 'string' && !('error' in v))) return 'responses-event'
    return 'error' in v ? 'anthropic-event' : undefined
  }
  if (type === 'message' && v.role === 'assistant' && Array.isArray(v.content)) return 'anthropic-message'
  if (type === 'tool_use') return 'tool-use-block'
  if (type === 'function_call' && 'call_id' in v) return 'responses-item'
  if (type === 'function' && typeof v.function === 'object') return 'chat-tool-call'
  if (CONTENT_BLOCKS.has(type)) return 'content-block'
  if (type.includes('-') || AI_SDK_PARTS.has(type)) return 'ai-sdk'
  return undefined
}

function chatKind(choices: unknown[]): Kind {
  const first = choices[0] as Record<string, unknown> | undefined
  return first !== undefined && typeof first === 'object' && 'message' in first ? 'chat-completion' : 'chat-chunk'
}

/** The AI SDK's assistant message (`tool-call` parts), its results (`toolCalls`), or one of its calls. */
function isAISDK(v: Record<string, unknown>): boolean {
  if ('toolCallId' in v) return true
  if (Array.isArray(v.toolCalls)) return true
  return (
    v.role === 'assistant' &&
    Array.isArray(v.content) &&
    v.content.some((part: unknown) => (part as { type?: unknown } | null)?.type === 'tool-call')
  )
}
