/**
 * Agent: runs a subagent — a model of the app's with its own prompt and a subset of the tools —
 * as a child session under the call (`context.runChild`, docs/subagents.md). The app supplies the
 * model through a small port: a function from the conversation to the model's next message.
 */
import { z } from 'zod'
import type { ChildRules, ChildSession, ChildStreamTurn, ChildTurnResult } from '../child.types.js'
import { buildTool } from '../build-tool.js'
import { lazySchema } from '../lazy-schema.js'
import type { AnthropicApiTool } from '../to-api-format.js'
import type { Tool } from '../tool.types.js'
import { checkOptionsObject, optionNames } from '../../util/known-options.js'

/** One message of the subagent's conversation, in the Anthropic Messages shape. */
export interface AgentMessage {
  role: 'user' | 'assistant'
  content: string | readonly unknown[]
}

/** What the model port is asked: the subagent's prompt, its conversation so far, its tools. */
export interface AgentModelRequest {
  /** The subagent's system prompt: its definition's `prompt`, as its child session records it. */
  system: string
  messages: readonly AgentMessage[]
  /** The child's tools, as the Anthropic Messages API takes them. */
  tools: AnthropicApiTool[]
  /** The Agent call's signal: pass it to the SDK so an abort or a deadline stops the request. */
  signal: AbortSignal
  /** Which subagent asks (its name in `agents`). */
  agent: string
}

/**
 * The model the subagent talks to: the app's function, typically `anthropic.messages.create`
 * with its own model name. It returns the assistant message (an Anthropic `Message`: `content`
 * and `stop_reason`), or a stream that gives it at its end — the SDK's `anthropic.messages.stream`
 * (anything with `finalMessage()`). A stream that is also async-iterable (the SDK's is) is read
 * as it arrives, and the child's calls start early; one that is not is read to its end first.
 *
 * @example
 * const model: AgentModel = ({ system, messages, tools, signal }) =>
 *   anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 4096, system, messages, tools }, { signal })
 */
export type AgentModel = (request: AgentModelRequest) => Promise<AgentResponse> | AgentStream

/** A streamed answer of the model port: the SDK's `MessageStream` fits. */
export interface AgentStream {
  finalMessage(): Promise<AgentResponse>
}

/** The model's message as the port returns it (an Anthropic `Message` fits). */
export interface AgentResponse {
  content: readonly unknown[]
  stop_reason: string | null
}

/** A kind of subagent the model may start. */
export interface AgentDefinition {
  /** When to use it: what the model reads when it picks one. */
  description: string
  /** Its system prompt. */
  prompt: string
  /** The parent's tools it may call. Default: all of them but Agent. */
  tools?: readonly string[]
  /** Rules that narrow the parent's for it (docs/subagents.md §Rules). */
  rules?: ChildRules
  /** Model requests it may make before it is stopped. Default: the tool's `maxTurns`. */
  maxTurns?: number
}

export interface AgentToolOptions {
  model: AgentModel
  /** The subagents, by name. Default: one, `general-purpose`, with every tool but Agent. */
  agents?: Readonly<Record<string, AgentDefinition>>
  /** Model requests a subagent may make. Default 20. */
  maxTurns?: number
  /**
   * The whole subagent's deadline in milliseconds: past it the Agent call is aborted, and with it
   * every call of its child session. Default: the kernel's `toolTimeoutMs`.
   */
  timeoutMs?: number
}

export interface AgentInput {
  description: string
  prompt: string
  subagent_type?: string | undefined
}

export const DEFAULT_AGENT_MAX_TURNS = 20

const AGENT_TOOL_OPTIONS = optionNames<AgentToolOptions>()('model', 'agents', 'maxTurns', 'timeoutMs')
const AGENT_KEYS = optionNames<AgentDefinition>()('description', 'prompt', 'tools', 'rules', 'maxTurns')

const GENERAL_PURPOSE: AgentDefinition = {
  description:
    'A general agent for multi-step tasks: searching code, researching a question, making a change that needs several tools.',
  prompt:
    'You are a subagent. Do the task you are given with the tools you have, then answer with a concise report of what you found or did: that report is all the caller sees.',
}

const inputSchema = lazySchema(() =>
  z.strictObject({
    description: z.string().min(1).describe('A short (3–5 word) description of the task'),
    prompt: z
      .string()
      .min(1)
      .describe('The task for the subagent: everything it needs to know, since it sees nothing else'),
    subagent_type: z.string().optional().describe('Which kind of subagent to start (default: general-purpose)'),
  }),
)

/**
 * The Agent tool: each call runs a subagent to the end of its task and answers with its final
 * report. The subagent's calls run through all nine steps under the parent's rules; a call of it
 * that needs a person parks the parent's turn until `kernel.answer`.
 *
 * @example
 * const Agent = createAgentTool({ model: (request) => callMyModel(request) })
 * const kernel = createKernel({ tools: [...builtinTools, Agent] })
 */
export function createAgentTool(
  options: AgentToolOptions,
): Tool<AgentInput, string, string> & { readonly name: 'Agent' } {
  checkOptionsObject('createAgentTool', options, AGENT_TOOL_OPTIONS)
  if (typeof options?.model !== 'function')
    throw new TypeError('createAgentTool: `model` must be a function from the conversation to the next message')
  const agents = options.agents ?? { 'general-purpose': GENERAL_PURPOSE }
  const names = Object.keys(agents)
  if (names.length === 0) throw new TypeError('createAgentTool: `agents` names no subagent')
  for (const name of names) {
    const agent = agents[name]
    checkOptionsObject(`createAgentTool: agents.${name}`, agent, AGENT_KEYS)
    if (typeof agent?.description !== 'string' || typeof agent.prompt !== 'string')
      throw new TypeError(`createAgentTool: agents.${name} needs a description and a prompt (strings)`)
  }
  const maxTurns = options.maxTurns ?? DEFAULT_AGENT_MAX_TURNS
  if (!Number.isInteger(maxTurns) || maxTurns < 1)
    throw new RangeError(`createAgentTool: maxTurns must be a positive integer, got ${String(maxTurns)}`)
  const model = options.model
  // Progress: one line of text per step of the subagent.
  return buildTool<AgentInput, string, string, 'Agent'>({
    name: 'Agent',
    aliases: ['Task'],
    searchHint: 'subagent task delegate research parallel',
    description: () => 'Runs a subagent on a task.',
    prompt: () =>
      [
        'Starts a subagent that works on a task on its own, with its own tools, and answers with a report. Use it for a search or a multi-step task whose details you do not need to see — it keeps your context small.',
        'Give it everything it needs in `prompt`: it sees nothing of this conversation. It cannot ask you questions; its report is all you get back. Its tool calls follow the same permission rules as yours.',
        `Kinds of subagent (subagent_type):\n${names.map((name) => `- ${name}: ${(agents[name] as AgentDefinition).description}`).join('\n')}`,
      ].join(' '),
    inputSchema,
    interruptBehavior: () => 'cancel',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    validateInput: ({ subagent_type }) =>
      subagent_type === undefined || names.includes(subagent_type)
        ? { result: true }
        : {
            result: false,
            message: `there is no subagent type ${JSON.stringify(subagent_type)}; use one of: ${names.join(', ')}`,
          },
    userFacingName: () => 'Agent',
    activityDescription: (input) => `Running a subagent: ${input.description}`,
    async call({ prompt, subagent_type }, context) {
      if (context.runChild === undefined)
        throw new Error('Agent runs subagents only inside a kernel (context.runChild is not there)')
      const name = subagent_type ?? (names.includes('general-purpose') ? 'general-purpose' : (names[0] as string))
      const agent = agents[name] as AgentDefinition
      const limit = agent.maxTurns ?? maxTurns
      // The definition's prompt goes through runChild, so the log records what the subagent was told.
      const child = context.runChild({
        prompt: agent.prompt,
        ...(agent.tools === undefined ? {} : { tools: agent.tools }),
        ...(agent.rules === undefined ? {} : { rules: agent.rules }),
      })
      const system = child.prompt ?? agent.prompt
      const messages: AgentMessage[] = [{ role: 'user', content: prompt }]
      for (let step = 1; step <= limit; step++) {
        // Asked each step: a deferred tool the child loaded by calling it is sent in full from then on.
        const tools = child.apiTools()
        const returned = model({ system, messages, tools, signal: context.signal, agent: name })
        const { response, turn: streamed } = isEventStream(returned)
          ? await streamedStep(returned, child)
          : { response: await answerOf(returned), turn: undefined }
        messages.push({ role: 'assistant', content: response.content })
        // Calls that started early as the message streamed have their results by now.
        if (response.stop_reason !== 'tool_use') return reportOf(response)
        const turn = streamed ?? (await child.runTurn(response))
        if (turn.aborted) throw new Error(`the subagent was stopped during its step ${step}`)
        messages.push(turn.message)
        context.onProgress(`step ${step}: ${turn.message.content.length} tool call(s)\n`)
      }
      return `The subagent (${name}) made ${limit} model requests without finishing its task, so it was stopped. Its last words: ${lastWords(messages)}`
    },
  })
}

/** A stream the SDK's `messages.stream` returns: its events as they arrive, and the whole message. */
type EventStream = AgentStream & AsyncIterable<unknown>

function isEventStream(returned: unknown): returned is EventStream {
  const stream = returned as Partial<EventStream> | null
  return typeof stream?.finalMessage === 'function' && typeof stream[Symbol.asyncIterator] === 'function'
}

/**
 * One model request read as it streams: at the first tool_use block a child turn opens and takes
 * the events from the message's start, so the child's calls start early as a kernel's streamed
 * turns do (docs/subagents.md). A message with no tool_use opens no turn. A stream that breaks
 * fails the turn (running calls keep their results) before the error goes on.
 */
async function streamedStep(
  stream: EventStream,
  child: ChildSession,
): Promise<{ response: AgentResponse; turn: ChildTurnResult | undefined }> {
  let turn: ChildStreamTurn | undefined
  const before: unknown[] = []
  try {
    for await (const event of stream) {
      if (turn !== undefined) turn.push(event)
      else if (opensToolUse(event)) {
        turn = child.startTurn()
        for (const earlier of before) turn.push(earlier)
        turn.push(event)
      } else before.push(event)
    }
  } catch (error) {
    if (turn !== undefined) {
      turn.fail(error)
      await turn.result()
    }
    throw error
  }
  const response = await answerOf(stream)
  if (turn === undefined) return { response, turn: undefined }
  turn.end(response.stop_reason)
  return { response, turn: await turn.result() }
}

function opensToolUse(event: unknown): boolean {
  const { type, content_block: block } = (event ?? {}) as { type?: unknown; content_block?: { type?: unknown } }
  return type === 'content_block_start' && block?.type === 'tool_use'
}

/** The port's message: as returned, or a stream's final one; anything else is refused in words. */
async function answerOf(returned: Promise<AgentResponse> | AgentStream): Promise<AgentResponse> {
  const stream = returned as Partial<AgentStream> | null
  const response: unknown = await (typeof stream?.finalMessage === 'function' ? stream.finalMessage() : returned)
  if (typeof response !== 'object' || response === null || !Array.isArray((response as AgentResponse).content))
    throw new TypeError(
      `the model port returned ${describe(response)}, not a message with content; return the message (messages.create) or a stream with finalMessage() (messages.stream)`,
    )
  return response as AgentResponse
}

const describe = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : Symbol.asyncIterator in Object(value)
        ? 'a stream without finalMessage()'
        : typeof value

/** The text of the model's last message: the subagent's report. */
function reportOf(response: AgentResponse): string {
  const text = textOf(response.content)
  return text === '' ? '(the subagent ended without a report)' : text
}

function textOf(content: AgentMessage['content']): string {
  if (typeof content === 'string') return content
  return content
    .flatMap((block) => {
      const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown }
      return type === 'text' && typeof text === 'string' ? [text] : []
    })
    .join('\n')
}

function lastWords(messages: readonly AgentMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'assistant')
  const text = last === undefined ? '' : textOf(last.content)
  return text === '' ? '(none)' : text
}
