/**
 * The three provider bindings of `runLoop`: the app's own SDK client (or its create function) and
 * the request's other parameters, bound to one model API. No SDK is imported: the client's types
 * are read from the value the app passes (its `create` method's parameters and result), so the
 * SDK's own message arrays go in and come out with no cast, and an app without `openai` installed
 * never loads it (decision 117).
 */
import type { ApiFormat } from '../tools/to-api-format.js'
import type { ToolResultMessageParam } from '../intake/message-param.js'
import type { Turn } from '../actors/turn/turn.types.js'
import { toOpenAIToolMessages } from '../projections/openai.projection.js'
import { toResponsesInputItems } from '../projections/openai-responses.projection.js'

/** Request options every SDK takes as its second argument (`{ signal }`). */
interface RequestOptions {
  signal?: AbortSignal
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the SDKs' methods are overloaded: `any` lets each match */
type AnyCreate = (body: any, options?: any) => PromiseLike<unknown>
type AnyStream = (body: any, options?: any) => AsyncIterable<unknown>
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The body type of a create function (its last overload: the SDKs' `…CreateParamsBase`). */
type BodyOf<F> = F extends (body: infer B, ...rest: infer _) => unknown ? B : never
/** What a create function resolves to, less the SDK's stream (the overloads with `stream: true`). */
type ResolvedOf<F, Shape> = F extends (...args: infer _) => infer P ? Extract<Awaited<P>, Shape> : never
type ElementOf<A> = A extends ReadonlyArray<infer E> ? E : never

/**
 * A model API bound for `runLoop`: how to ask it for one turn (whole or streamed), what its turn
 * adds to the conversation, and how the kernel's results go back. `anthropic`, `openaiChat` and
 * `openaiResponses` make one; another provider can be bound by writing one.
 *
 * @typeParam M one message of the conversation, as the SDK types it (`Anthropic.MessageParam`).
 * @typeParam R the model's response, as the SDK types it (`Anthropic.Message`).
 */
export interface LoopModel<M, R> {
  /** The `apiTools` format of this API. */
  readonly format: ApiFormat
  /** Asks for one whole response. */
  create(messages: readonly M[], tools: readonly unknown[], options: RequestOptions): Promise<R>
  /** Asks for one streamed response: `push` gets each stream event as it arrives; resolves to the whole response. */
  stream(
    messages: readonly M[],
    tools: readonly unknown[],
    options: RequestOptions,
    push: (event: unknown) => void,
  ): Promise<R>
  /** Hands a stream event to the turn (each API has its own `Turn` method). */
  feed(turn: Turn, event: unknown): void
  /** The model's turn as messages of the conversation. */
  assistant(response: R): M[]
  /** The kernel's `tool_result` message as messages of the conversation. */
  results(message: ToolResultMessageParam): M[]
}

/** The Anthropic client (`new Anthropic()`), or anything with its `messages.create` (and `.stream` to stream). */
export type AnthropicClient = { messages: { create: AnyCreate; stream?: AnyStream } } | AnyCreate
type AnthropicCreateOf<C> = C extends AnyCreate ? C : C extends { messages: { create: infer F } } ? F : never
/** `Anthropic.MessageParam`, read from the client. */
export type AnthropicMessageOf<C extends AnthropicClient> = ElementOf<
  NonNullable<(BodyOf<AnthropicCreateOf<C>> & { messages?: unknown })['messages']>
>
/** `Anthropic.Message`, read from the client. */
export type AnthropicResponseOf<C extends AnthropicClient> = ResolvedOf<AnthropicCreateOf<C>, { content: unknown }>
/**
 * The request's parameters but `messages` (the loop's) and `stream` (the loop's `stream` option):
 * `model` and `max_tokens` at least. `tools` are sent after the kernel's (server tools such as web
 * search).
 */
export type AnthropicParams<C extends AnthropicClient> = Omit<BodyOf<AnthropicCreateOf<C>>, 'messages' | 'stream'>

/** OpenAI's client (`new OpenAI()`) for Chat Completions, or anything with `chat.completions.create` (`.stream`). */
export type OpenAIChatClient = { chat: { completions: { create: AnyCreate; stream?: AnyStream } } } | AnyCreate
type ChatCreateOf<C> = C extends AnyCreate ? C : C extends { chat: { completions: { create: infer F } } } ? F : never
/** `ChatCompletionMessageParam`, read from the client. */
export type OpenAIChatMessageOf<C extends OpenAIChatClient> = ElementOf<
  NonNullable<(BodyOf<ChatCreateOf<C>> & { messages?: unknown })['messages']>
>
/** `ChatCompletion`, read from the client. */
export type OpenAIChatResponseOf<C extends OpenAIChatClient> = ResolvedOf<ChatCreateOf<C>, { choices: unknown }>
/** The request's parameters but `messages` and `stream`: `model` at least; `tools` go after the kernel's. */
export type OpenAIChatParams<C extends OpenAIChatClient> = Omit<BodyOf<ChatCreateOf<C>>, 'messages' | 'stream'>

/** OpenAI's client for the Responses API, or anything with its `responses.create` (and `.stream`). */
export type OpenAIResponsesClient = { responses: { create: AnyCreate; stream?: AnyStream } } | AnyCreate
type ResponsesCreateOf<C> = C extends AnyCreate ? C : C extends { responses: { create: infer F } } ? F : never
/** `ResponseInputItem`, read from the client. */
export type OpenAIResponsesItemOf<C extends OpenAIResponsesClient> = ElementOf<
  Exclude<(BodyOf<ResponsesCreateOf<C>> & { input?: unknown })['input'], string | undefined>
>
/** `Response`, read from the client. */
export type OpenAIResponsesResponseOf<C extends OpenAIResponsesClient> = ResolvedOf<
  ResponsesCreateOf<C>,
  { output: unknown }
>
/**
 * The request's parameters but `input` (the loop's conversation, sent whole: the loop does not
 * use `previous_response_id`) and `stream`: `model` at least; `tools` go after the kernel's.
 */
export type OpenAIResponsesParams<C extends OpenAIResponsesClient> = Omit<
  BodyOf<ResponsesCreateOf<C>>,
  'input' | 'stream' | 'previous_response_id'
>

/** A stream the SDK's helper returns: its events, then the whole response. */
interface FinalStream {
  [Symbol.asyncIterator](): AsyncIterator<unknown>
}

type Json = Record<string, unknown>

/** The SDK method at `path` of the client, or the client itself when it is the function. */
function method(client: unknown, path: readonly string[], where: string): AnyCreate | undefined {
  if (typeof client === 'function') return path.at(-1) === 'create' ? (client as AnyCreate) : undefined
  let owner: unknown
  let at: unknown = client
  for (const key of path) {
    owner = at
    at = typeof at === 'object' && at !== null ? (at as Json)[key] : undefined
  }
  if (at === undefined) return undefined
  if (typeof at !== 'function') throw new TypeError(`${where}: client.${path.join('.')} is not a function`)
  // The SDKs' resources read their client from `this`.
  return (at as AnyCreate).bind(owner)
}

interface Binding {
  where: string
  path: readonly string[]
  format: ApiFormat
  /** The conversation's key in the request body. */
  conversation: 'messages' | 'input'
  /** The stream helper's method that resolves to the whole response. */
  final: string
}

function bind<M, R>(
  client: unknown,
  params: unknown,
  binding: Binding,
  turn: Pick<LoopModel<M, R>, 'feed' | 'assistant' | 'results'>,
): LoopModel<M, R> {
  const { where, path, format, conversation, final } = binding
  const create = method(client, [...path, 'create'], where)
  if (create === undefined)
    throw new TypeError(`${where}: pass the SDK client (or its create function); got ${typeof client}`)
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw new TypeError(`${where}: the second argument is the request's parameters ({ model, … })`)
  const taken = ['messages', 'input', 'stream', 'previous_response_id'].filter((key) => key in params)
  if (taken.length > 0)
    throw new TypeError(
      `${where}: ${taken.join(', ')} ${taken.length > 1 ? 'are' : 'is'} the loop's (pass the conversation as runLoop's \`messages\`, streaming as its \`stream\`)`,
    )
  const { tools: extra, ...rest } = params as Json
  if (extra !== undefined && !Array.isArray(extra)) throw new TypeError(`${where}: tools must be an array`)
  const body = (messages: readonly M[], tools: readonly unknown[]): Json => ({
    ...rest,
    [conversation]: messages,
    tools: [...tools, ...((extra as unknown[] | undefined) ?? [])],
  })
  return {
    format,
    create: async (messages, tools, options) => (await create(body(messages, tools), options)) as R,
    stream: async (messages, tools, options, push) => {
      const stream = method(client, [...path, 'stream'], where)
      if (stream === undefined)
        throw new TypeError(
          `${where}: streaming needs the SDK client (its ${[...path, 'stream'].join('.')} method); a create function streams nothing`,
        )
      const events = stream(body(messages, tools), options) as unknown as FinalStream & Json
      for await (const event of events) push(event)
      return (await (events[final] as () => Promise<unknown>)()) as R
    },
    ...turn,
  }
}

/**
 * Binds the Anthropic Messages API: `runLoop({ model: anthropic(client, { model, max_tokens }), … })`.
 *
 * @example
 * const client = new Anthropic()
 * const { messages } = await runLoop({
 *   model: anthropic(client, { model: 'claude-sonnet-4-5', max_tokens: 4096 }),
 *   kernel,
 *   messages: [{ role: 'user', content: 'Fix the failing test.' }],
 * })
 */
export function anthropic<C extends AnthropicClient>(
  client: C,
  params: AnthropicParams<C>,
): LoopModel<AnthropicMessageOf<C>, AnthropicResponseOf<C>> {
  return bind(
    client,
    params,
    { where: 'anthropic()', path: ['messages'], format: 'anthropic', conversation: 'messages', final: 'finalMessage' },
    {
      feed: (turn, event) => turn.push(event),
      assistant: (response) => [
        { role: 'assistant', content: (response as { content: unknown }).content } as AnthropicMessageOf<C>,
      ],
      results: (message) => [message as AnthropicMessageOf<C>],
    },
  )
}

/**
 * Binds OpenAI Chat Completions: `runLoop({ model: openaiChat(client, { model }), … })`. The
 * model's message goes into the conversation as the SDK returned it; the results as `tool`
 * messages (`toOpenAIToolMessages`).
 */
export function openaiChat<C extends OpenAIChatClient>(
  client: C,
  params: OpenAIChatParams<C>,
): LoopModel<OpenAIChatMessageOf<C>, OpenAIChatResponseOf<C>> {
  return bind(
    client,
    params,
    {
      where: 'openaiChat()',
      path: ['chat', 'completions'],
      format: 'openai-chat',
      conversation: 'messages',
      final: 'finalChatCompletion',
    },
    {
      feed: (turn, event) => turn.pushOpenAI(event),
      assistant: (response) => {
        const choices = (response as { choices: Array<{ message: unknown }> }).choices
        if (choices.length !== 1)
          throw new TypeError(`openaiChat(): the loop takes one choice per completion (n: 1), got ${choices.length}`)
        return [choices[0]?.message as OpenAIChatMessageOf<C>]
      },
      results: (message) => toOpenAIToolMessages(message) as Array<OpenAIChatMessageOf<C>>,
    },
  )
}

/**
 * Binds the OpenAI Responses API: `runLoop({ model: openaiResponses(client, { model }), … })`.
 * The conversation is the request's `input`, sent whole each step (stateless: no
 * `previous_response_id`): the response's output items, then the results
 * (`toResponsesInputItems`).
 */
export function openaiResponses<C extends OpenAIResponsesClient>(
  client: C,
  params: OpenAIResponsesParams<C>,
): LoopModel<OpenAIResponsesItemOf<C>, OpenAIResponsesResponseOf<C>> {
  return bind(
    client,
    params,
    {
      where: 'openaiResponses()',
      path: ['responses'],
      format: 'openai-responses',
      conversation: 'input',
      final: 'finalResponse',
    },
    {
      feed: (turn, event) => turn.pushOpenAIResponses(event),
      assistant: (response) => [...(response as { output: unknown[] }).output] as Array<OpenAIResponsesItemOf<C>>,
      results: (message) => toResponsesInputItems(message) as Array<OpenAIResponsesItemOf<C>>,
    },
  )
}
