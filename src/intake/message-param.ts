/**
 * The turn's `tool_result` message as the Anthropic API takes it back: typed so that it is
 * assignable to the SDK's `MessageParam` with no cast (an image's `media_type` is one of the four
 * the API accepts, `is_error` a plain optional boolean), and checked so that the type is true —
 * an image of another type (a tool's own mapper may produce one) is replaced by a note saying it
 * was left out, instead of a request the API would refuse.
 */
import type { ToolResultBlock } from '../events/event.schema.js'
import type { ToolResultMessage } from '../projections/messages.projection.js'

/** The image types the Messages API takes in a base64 source. */
export const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number]

export interface TextPartParam {
  type: 'text'
  text: string
}
export interface ImagePartParam {
  type: 'image'
  source: { type: 'base64'; media_type: ImageMediaType; data: string }
}
/** A deferred tool found by ToolSearch; the Anthropic API expands it into the tool's definition. */
export interface ToolReferencePartParam {
  type: 'tool_reference'
  tool_name: string
}
export type ToolResultPartParam = TextPartParam | ImagePartParam | ToolReferencePartParam

/** A `tool_result` block (assignable to the SDK's `ToolResultBlockParam`). */
export interface ToolResultParam {
  type: 'tool_result'
  tool_use_id: string
  content: string | ToolResultPartParam[]
  is_error?: boolean
}

/** The user message answering a turn's calls (assignable to the SDK's `MessageParam`). */
export interface ToolResultMessageParam {
  role: 'user'
  content: ToolResultParam[]
}

const TAKEN = new Set<string>(IMAGE_MEDIA_TYPES)

function isTakenMediaType(mediaType: string): mediaType is ImageMediaType {
  return TAKEN.has(mediaType)
}

/** The kernel's message, as the Messages API takes it back. */
export function toMessageParam(message: ToolResultMessage): ToolResultMessageParam {
  return { role: 'user', content: message.content.map(toResultParam) }
}

function toResultParam(block: ToolResultBlock): ToolResultParam {
  const content = typeof block.content === 'string' ? block.content : block.content.map(toPartParam)
  const param: ToolResultParam = { type: 'tool_result', tool_use_id: block.tool_use_id, content }
  if (typeof block.is_error === 'boolean') param.is_error = block.is_error
  return param
}

function toPartParam(part: Exclude<ToolResultBlock['content'], string>[number]): ToolResultPartParam {
  if (part.type === 'text') return { type: 'text', text: part.text }
  if (part.type === 'tool_reference') return { type: 'tool_reference', tool_name: part.tool_name }
  const { media_type: mediaType, data } = part.source
  if (isTakenMediaType(mediaType)) return { type: 'image', source: { type: 'base64', media_type: mediaType, data } }
  return {
    type: 'text',
    text: `[image (${mediaType}) left out: the Messages API takes JPEG, PNG, GIF or WebP images only]`,
  }
}
