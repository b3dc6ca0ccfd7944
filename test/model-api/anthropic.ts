/**
 * The Anthropic Messages API on loopback (POST /v1/messages): request checks that reject what the
 * real API rejects, with its error shape and wording, and responses rendered as the API sends
 * them — a `Message`, or the SSE stream (message_start, content_block_start/delta/stop with
 * text_delta and input_json_delta, a ping, message_delta, message_stop).
 */
import { ApiError, sseBlock, type SseEvent } from './http.js'
import { fragments, stopOf, type Ids, type ScriptedTurn } from './script.js'

const MODEL = 'claude-sonnet-4-5-20250929'
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp']
const USER_BLOCKS = ['text', 'image', 'document', 'search_result', 'tool_result']
const ASSISTANT_BLOCKS = ['text', 'thinking', 'redacted_thinking', 'tool_use', 'server_tool_use']

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

function invalid(message: string): ApiError {
  return new ApiError(400, { type: 'error', error: { type: 'invalid_request_error', message } })
}

/** Rejects a request the real API would reject: 400 with its `invalid_request_error` body. */
export function checkAnthropicRequest(body: unknown): Json {
  if (!isObject(body)) throw invalid('body: Input should be a valid dictionary')
  if (typeof body.model !== 'string') throw invalid('model: Field required')
  if (body.max_tokens === undefined) throw invalid('max_tokens: Field required')
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    throw invalid('max_tokens: Input should be a valid integer greater than or equal to 1')
  if (!Array.isArray(body.messages)) throw invalid('messages: Field required')
  if (body.tools !== undefined) checkTools(body.tools)
  body.messages.forEach((message: unknown, i) => checkMessage(message, i))
  checkPairing(body.messages as Json[])
  return body
}

function checkTools(tools: unknown): void {
  if (!Array.isArray(tools)) throw invalid('tools: Input should be a valid list')
  const names = new Set<string>()
  tools.forEach((tool: unknown, i) => {
    if (!isObject(tool)) throw invalid(`tools.${i}: Input should be a valid dictionary`)
    if (tool.type !== undefined && tool.type !== 'custom') return // server tools: not checked here
    if (typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name))
      throw invalid(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`)
    if (!isObject(tool.input_schema)) throw invalid(`tools.${i}.custom.input_schema: Field required`)
    if (tool.input_schema.type !== 'object')
      throw invalid(`tools.${i}.custom.input_schema.type: Input should be 'object'`)
    if (names.has(tool.name)) throw invalid('tools: Tool names must be unique.')
    names.add(tool.name)
  })
}

function checkMessage(message: unknown, i: number): void {
  if (!isObject(message)) throw invalid(`messages.${i}: Input should be a valid dictionary`)
  if (message.role !== 'user' && message.role !== 'assistant')
    throw invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`)
  const content = message.content
  if (typeof content === 'string') return
  if (!Array.isArray(content)) throw invalid(`messages.${i}.content: Input should be a valid list`)
  const allowed = message.role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS
  content.forEach((block: unknown, k) => checkBlock(block, `messages.${i}.content.${k}`, allowed))
}

function checkBlock(block: unknown, at: string, allowed: readonly string[]): void {
  if (!isObject(block) || typeof block.type !== 'string')
    throw invalid(`${at}: Unable to extract tag using discriminator 'type'`)
  if (!allowed.includes(block.type))
    throw invalid(
      `${at}: Input tag '${block.type}' found using 'type' does not match any of the expected tags: ${allowed.map((t) => `'${t}'`).join(', ')}`,
    )
  if (block.type === 'text' && (typeof block.text !== 'string' || block.text === ''))
    throw invalid(`${at}.text: text content blocks must be non-empty`)
  if (block.type === 'image') checkImage(block, `${at}.image`)
  if (block.type === 'tool_use') {
    if (typeof block.id !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(block.id))
      throw invalid(`${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`)
    if (typeof block.name !== 'string') throw invalid(`${at}.tool_use.name: Field required`)
    if (!isObject(block.input)) throw invalid(`${at}.tool_use.input: Input should be a valid dictionary`)
  }
  if (block.type === 'tool_result') checkToolResult(block, `${at}.tool_result`)
}

function checkImage(block: Json, at: string): void {
  const source = block.source
  if (!isObject(source)) throw invalid(`${at}.source: Field required`)
  if (source.type === 'base64') {
    if (typeof source.media_type !== 'string' || !IMAGE_TYPES.includes(source.media_type))
      throw invalid(`${at}.source.base64.media_type: Input should be ${IMAGE_TYPES.map((t) => `'${t}'`).join(', ')}`)
    if (typeof source.data !== 'string') throw invalid(`${at}.source.base64.data: Field required`)
  }
}

function checkToolResult(block: Json, at: string): void {
  if (typeof block.tool_use_id !== 'string') throw invalid(`${at}.tool_use_id: Field required`)
  if (block.is_error !== undefined && typeof block.is_error !== 'boolean')
    throw invalid(`${at}.is_error: Input should be a valid boolean`)
  const content = block.content
  if (content === undefined || typeof content === 'string') return
  if (!Array.isArray(content)) throw invalid(`${at}.content: Input should be a valid list`)
  content.forEach((part: unknown, k) =>
    checkBlock(part, `${at}.content.${k}`, ['text', 'image', 'search_result', 'document']),
  )
}

/** Every tool_use answered in the very next message, and no tool_result without its tool_use. */
function checkPairing(messages: readonly Json[]): void {
  messages.forEach((message, i) => {
    const uses = blocksOf(message, 'tool_use').map((b) => b.id as string)
    const results = blocksOf(message, 'tool_result')
    if (results.length > 0) {
      const previous = i > 0 ? blocksOf(messages[i - 1] as Json, 'tool_use').map((b) => b.id as string) : []
      const seen = new Set<string>()
      results.forEach((result) => {
        const id = result.tool_use_id as string
        if (!previous.includes(id))
          throw invalid(
            `messages.${i}.content.${indexOf(message, result)}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          )
        if (seen.has(id))
          throw invalid(
            `messages.${i}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`,
          )
        seen.add(id)
      })
    }
    if (uses.length === 0) return
    const next = messages[i + 1]
    const answered = new Set(next === undefined ? [] : blocksOf(next, 'tool_result').map((b) => b.tool_use_id))
    const missing = uses.filter((id) => !answered.has(id))
    if (missing.length > 0)
      throw invalid(
        `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      )
  })
}

function blocksOf(message: Json, type: string): Json[] {
  return Array.isArray(message.content) ? (message.content as Json[]).filter((b) => isObject(b) && b.type === type) : []
}

function indexOf(message: Json, block: Json): number {
  return (message.content as Json[]).indexOf(block)
}

const STOP = { tool_use: 'tool_use', end_turn: 'end_turn', max_tokens: 'max_tokens', refusal: 'refusal' } as const

/** The content blocks of a scripted turn, with fresh `toolu_` ids. */
function contentOf(turn: ScriptedTurn, ids: Ids): Json[] {
  const blocks: Json[] = []
  if (turn.text !== undefined) blocks.push({ type: 'text', text: turn.text })
  for (const call of turn.calls ?? []) {
    if (call.arguments !== undefined)
      throw new Error(
        `scripted call ${call.name}: raw arguments are for the OpenAI formats (Anthropic's input is an object)`,
      )
    blocks.push({ type: 'tool_use', id: ids.next('toolu_01'), name: call.name, input: call.input })
  }
  return blocks
}

/** The whole `Message` for `stream: false`. */
export function anthropicMessage(turn: ScriptedTurn, ids: Ids): Json {
  return {
    id: ids.next('msg_01'),
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content: contentOf(turn, ids),
    stop_reason: STOP[stopOf(turn)],
    stop_sequence: null,
    usage: usage(),
  }
}

function usage(): Json {
  return {
    input_tokens: 1200,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 80,
    service_tier: 'standard',
  }
}

/** The SSE stream for `stream: true`, as the API sends it (a ping after the first block starts). */
export function anthropicStream(turn: ScriptedTurn, ids: Ids): string[] {
  const message = anthropicMessage(turn, ids)
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, usage: { ...usage(), output_tokens: 1 } },
      },
    },
  ]
  ;(message.content as Json[]).forEach((block, index) => {
    const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} }
    events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } })
    if (index === 0) events.push({ event: 'ping', data: { type: 'ping' } })
    const pieces =
      block.type === 'text' ? fragments(block.text as string) : ['', ...fragments(JSON.stringify(block.input))]
    for (const piece of pieces) {
      const delta =
        block.type === 'text' ? { type: 'text_delta', text: piece } : { type: 'input_json_delta', partial_json: piece }
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } })
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } })
  })
  events.push(
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: 80 },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  )
  return events.map(sseBlock)
}
