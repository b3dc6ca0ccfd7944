/**
 * What the snippets of README.md and docs/*.md take from the prose around them — the kernel the
 * page built a step earlier, the app's model client, the conversation so far, the app's own
 * functions — with the type a reader's code would give each. test/docs/snippets.test.ts declares
 * the ones a snippet uses and does not declare itself; everything from toolkernel and the model
 * SDKs it imports for the snippet. A name here is one the page says where it comes from.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import type {
  ApprovalAnswer,
  EventStore,
  Kernel,
  PendingApproval,
  PermissionRequest,
  Tool,
  ToolContext,
  ToolResultMessage,
  ToolSource,
  TurnUpdate,
} from '../../src/index.js'

export interface SnippetContext {
  kernel: Kernel
  signal: AbortSignal
  assistantMessage: Anthropic.Message
  anthropicStream: AsyncIterable<Anthropic.RawMessageStreamEvent>
  render: (update: TurnUpdate) => void
  askUser: (request: PermissionRequest) => Promise<boolean>
  askPerson: (call: PendingApproval) => Promise<ApprovalAnswer>
  prompt: string
  client: Anthropic
  anthropic: Anthropic
  openai: OpenAI
  model: string
  max_tokens: number
  history: Anthropic.MessageParam[]
  messages: Anthropic.MessageParam[]
  tools: Tool[]
  store: EventStore
  sendToModel: (message: ToolResultMessage) => Promise<void>
  Deploy: Tool
  crmTools: Tool[]
  mcpServers: ToolSource
  fillIn: (message: string) => Promise<Record<string, string>>
  isTransient: (error: unknown) => boolean
  db: { get(id: string): Promise<string> }
  /** docs/subagents.md: the context a tool's call receives. */
  context: ToolContext
  /** docs/stores.md: the app's conversation ends with the last turn's assistant message. */
  conversationEndsWithToolUse: boolean
  /** docs/approvals.md: where the app keeps the conversation between processes. */
  saveConversation: (messages: Anthropic.MessageParam[]) => Promise<void>
  loadConversation: () => Promise<Anthropic.MessageParam[]>
}
