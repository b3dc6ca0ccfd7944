/**
 * A `tools/call` result, turned into what the model reads and what the app keeps. Every MCP
 * content type maps to `tool_result` content: text as text, images the model takes as images,
 * everything else it cannot take (audio, other blobs) saved to the result store with a pointer.
 * `structuredContent` and `_meta` stay with the app (`mcpMeta`), and are sent as text only when
 * the content is empty. `isError` becomes `is_error` with all of its text.
 */
import { z } from 'zod'
import { toolResultBlock, type ToolResultBlock } from '../events/event.schema.js'
import type { ResultKey, ResultStore } from '../ports/result-store.port.js'
import type { McpCallResult, McpContent } from './connection.types.js'

type Block =
  { type: 'text'; text: string } | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }

/** What an MCP tool returns to the kernel (and what the log records as its output). */
export interface McpToolOutput {
  /** The blocks the model reads. */
  readonly content: readonly Block[]
  readonly isError: boolean
  /** For the app only, never sent (unless `content` was empty). */
  readonly mcpMeta: { readonly structuredContent?: unknown; readonly _meta?: Readonly<Record<string, unknown>> }
}

/** The image types the model APIs take inline. */
const MODEL_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

const Text = z.object({ type: z.literal('text'), text: z.string() })
const Binary = z.object({ data: z.string(), mimeType: z.string() })
const Resource = z.object({
  type: z.literal('resource'),
  resource: z.object({
    uri: z.string(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    blob: z.string().optional(),
  }),
})
const Link = z.object({
  type: z.literal('resource_link'),
  uri: z.string(),
  name: z.string(),
  mimeType: z.string().optional(),
  description: z.string().optional(),
})

/**
 * Maps a result. Blobs go to `store` under `key` (each its own file); a store that fails leaves a
 * note in their place, never a lost result.
 */
export async function toToolOutput(result: McpCallResult, store: ResultStore, key: ResultKey): Promise<McpToolOutput> {
  const content: Block[] = []
  for (const item of result.content ?? []) content.push(await toBlock(item, store, key))
  if (content.length === 0 && result.structuredContent !== undefined)
    content.push({ type: 'text', text: JSON.stringify(result.structuredContent, null, 2) })
  const mcpMeta = {
    ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent }),
    ...(result._meta !== undefined && { _meta: result._meta }),
  }
  return { content, isError: result.isError === true, mcpMeta }
}

/** The mapper: the output's blocks as one `tool_result`; text only is sent as one string. */
export function toResultBlock(output: McpToolOutput, toolUseId: string): ToolResultBlock {
  const blocks = output.content
  const textOnly = blocks.every((block) => block.type === 'text')
  const content = textOnly ? blocks.map((block) => (block as { text: string }).text).join('\n') : [...blocks]
  return toolResultBlock(toolUseId, content, output.isError)
}

async function toBlock(item: McpContent, store: ResultStore, key: ResultKey): Promise<Block> {
  switch (item.type) {
    case 'text': {
      const text = Text.safeParse(item)
      return { type: 'text', text: text.success ? text.data.text : '[a text block without text]' }
    }
    case 'image':
    case 'audio': {
      const binary = Binary.safeParse(item)
      if (!binary.success) return { type: 'text', text: `[an ${item.type} block without data]` }
      if (item.type === 'image' && MODEL_IMAGES.has(binary.data.mimeType))
        return { type: 'image', source: { type: 'base64', media_type: binary.data.mimeType, data: binary.data.data } }
      return await saved(item.type, binary.data.mimeType, binary.data.data, undefined, store, key)
    }
    case 'resource':
      return await resourceBlock(item, store, key)
    case 'resource_link': {
      const link = Link.safeParse(item)
      if (!link.success) return { type: 'text', text: '[a resource link without a uri]' }
      const { name, uri, mimeType, description } = link.data
      const about = [mimeType, description].filter((part) => part !== undefined).join(', ')
      return { type: 'text', text: `[resource link: ${name} <${uri}>${about === '' ? '' : ` (${about})`}]` }
    }
    default:
      return { type: 'text', text: `[content of type ${JSON.stringify(item.type)}, which toolkernel cannot show]` }
  }
}

async function resourceBlock(item: McpContent, store: ResultStore, key: ResultKey): Promise<Block> {
  const parsed = Resource.safeParse(item)
  if (!parsed.success) return { type: 'text', text: '[an embedded resource without a uri]' }
  const { uri, mimeType, text, blob } = parsed.data.resource
  if (text !== undefined)
    return { type: 'text', text: `[resource <${uri}>${mimeType ? ` (${mimeType})` : ''}]\n${text}` }
  if (blob === undefined) return { type: 'text', text: `[resource <${uri}> with no content]` }
  if (mimeType !== undefined && MODEL_IMAGES.has(mimeType))
    return { type: 'image', source: { type: 'base64', media_type: mimeType, data: blob } }
  return await saved('resource', mimeType ?? 'application/octet-stream', blob, uri, store, key)
}

/** A blob the model cannot take: saved as base64 text, and a pointer in its place. */
export async function saved(
  kind: string,
  mimeType: string,
  base64: string,
  uri: string | undefined,
  store: ResultStore,
  key: ResultKey,
): Promise<Block> {
  const bytes = Math.floor((base64.replace(/=+$/, '').length * 3) / 4)
  const what = `${kind}${uri !== undefined ? ` <${uri}>` : ''} (${mimeType}, ${bytes} bytes)`
  try {
    const path = await store.save(key, base64)
    return { type: 'text', text: `[${what} saved as base64 to ${path}; decode it with \`base64 -d\` to use it]` }
  } catch (error) {
    return {
      type: 'text',
      text: `[${what} could not be saved: ${error instanceof Error ? error.message : String(error)}]`,
    }
  }
}
