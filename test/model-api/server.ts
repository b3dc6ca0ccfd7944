/**
 * A model API server on loopback for tests: the Anthropic Messages API (POST /v1/messages),
 * OpenAI Chat Completions (POST /v1/chat/completions) and the OpenAI Responses API
 * (POST /v1/responses), streamed and not, on 127.0.0.1 and a free port. It replays scripted turns
 * (or recorded streams from test/fixtures/streams/) in order, one per request, and rejects a
 * malformed request the way the real API does (400 with its error body), so a kernel bug that
 * would break a real conversation — an unanswered tool call, an answer to no call — fails the
 * request the client sends next.
 *
 * @example
 * const api = await startModelApi({ turns: [{ calls: [{ name: 'Read', input: { file_path } }] }, { text: 'done' }] })
 * const client = anthropicClient(api) // clients.ts
 * await api.close()
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { anthropicMessage, anthropicStream, checkAnthropicRequest } from './anthropic.js'
import { ApiError, readBody, sendJson, sendSse, type SseHold } from './http.js'
import { chatCompletion, chatStream, checkChatRequest } from './openai-chat.js'
import { checkResponsesRequest, responseObject, responsesStream, type ResponseStore } from './openai-responses.js'
import { fixtureBody, Ids, sseBlocks, type ScriptedTurn } from './script.js'

export type { ScriptedTurn, ScriptedCall, ScriptedStop } from './script.js'

export type Provider = 'anthropic' | 'openai-chat' | 'openai-responses'

/** A request the server answered (or rejected), as the client sent it. */
export interface RecordedRequest {
  provider: Provider
  body: Record<string, unknown>
  /** The status the server answered with. */
  status: number
  /** The error body when the request was rejected. */
  error?: unknown
}

export interface ModelApiOptions {
  turns?: readonly ScriptedTurn[]
  /** Values for `{{NAME}}` tokens in recorded streams (a temp directory for `/project`). */
  vars?: Readonly<Record<string, string>>
}

export interface ModelApi {
  /** `http://127.0.0.1:<port>`: the Anthropic SDK's baseURL. */
  readonly url: string
  /** `http://127.0.0.1:<port>/v1`: the OpenAI SDK's baseURL. */
  readonly openaiURL: string
  readonly requests: RecordedRequest[]
  /** Appends turns to the script. */
  script(...turns: ScriptedTurn[]): void
  /** Turns not yet replayed. */
  remaining(): number
  /** Requests the server rejected (a malformed conversation is a kernel or test bug). */
  rejected(): RecordedRequest[]
  close(): Promise<void>
}

const ROUTES: Record<string, Provider> = {
  '/v1/messages': 'anthropic',
  '/v1/chat/completions': 'openai-chat',
  '/v1/responses': 'openai-responses',
}

export async function startModelApi(options: ModelApiOptions = {}): Promise<ModelApi> {
  const queue: ScriptedTurn[] = [...(options.turns ?? [])]
  const requests: RecordedRequest[] = []
  const state: ServerState = { ids: new Ids(), store: new Map(), vars: options.vars ?? {} }
  const server = createServer((req, res) => {
    void handle(req, res, queue, requests, state).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: String(error), type: 'server_error', param: null, code: null } })
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    openaiURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...turns) => void queue.push(...turns),
    remaining: () => queue.length,
    rejected: () => requests.filter((r) => r.status >= 400),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error === undefined ? resolve() : reject(error)))
      }),
  }
}

interface ServerState {
  ids: Ids
  store: ResponseStore
  vars: Readonly<Record<string, string>>
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  queue: ScriptedTurn[],
  requests: RecordedRequest[],
  state: ServerState,
): Promise<void> {
  const provider = ROUTES[(req.url ?? '').split('?')[0] ?? '']
  const text = await readBody(req)
  if (provider === undefined || req.method !== 'POST') {
    sendJson(res, 404, {
      error: {
        message: `Unknown request URL: ${req.method} ${req.url}`,
        type: 'invalid_request_error',
        param: null,
        code: 'unknown_url',
      },
    })
    return
  }
  let body: Record<string, unknown> = {}
  try {
    checkAuth(req, provider)
    body = parseBody(text, provider)
    const context = check(provider, body, state.store)
    const turn = queue.shift()
    if (turn === undefined) throw exhausted(provider)
    requests.push({ provider, body, status: 200 })
    await respond(res, { provider, body, context }, turn, state)
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    requests.push({ provider, body, status: error.status, error: error.body })
    sendJson(res, error.status, error.body, { 'request-id': state.ids.next('req_') })
  }
}

function parseBody(text: string, provider: Provider): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>
  } catch {
    throw provider === 'anthropic'
      ? new ApiError(400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'There was an error parsing the body' },
        })
      : new ApiError(400, {
          error: {
            message: 'We could not parse the JSON body of your request.',
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        })
  }
}

function checkAuth(req: IncomingMessage, provider: Provider): void {
  if (provider === 'anthropic') {
    if (req.headers['x-api-key'] === undefined && req.headers.authorization === undefined)
      throw new ApiError(401, {
        type: 'error',
        error: { type: 'authentication_error', message: 'x-api-key header is required' },
      })
    if (req.headers['anthropic-version'] === undefined)
      throw new ApiError(400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
      })
  } else if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) {
    throw new ApiError(401, {
      error: { message: "You didn't provide an API key.", type: 'invalid_request_error', param: null, code: null },
    })
  }
}

/** Out of script: a 400 (never retried by the SDKs) that says so, so the test fails clearly. */
function exhausted(provider: Provider): ApiError {
  const message =
    'loopback model API: no scripted turn left for this request (the loop asked the model once more than the test expected)'
  return provider === 'anthropic'
    ? new ApiError(400, { type: 'error', error: { type: 'invalid_request_error', message } })
    : new ApiError(400, { error: { message, type: 'invalid_request_error', param: null, code: null } })
}

/** Rejects a malformed request; for the Responses API, returns the conversation it stands for. */
function check(provider: Provider, body: Record<string, unknown>, store: ResponseStore): Record<string, unknown>[] {
  if (provider === 'anthropic') checkAnthropicRequest(body)
  else if (provider === 'openai-chat') checkChatRequest(body)
  else return checkResponsesRequest(body, store).context
  return []
}

interface CheckedRequest {
  provider: Provider
  body: Record<string, unknown>
  context: Record<string, unknown>[]
}

async function respond(
  res: ServerResponse,
  request: CheckedRequest,
  turn: ScriptedTurn,
  state: ServerState,
): Promise<void> {
  const { provider, body } = request
  const stream = body.stream === true
  const headers = { 'request-id': state.ids.next('req_'), 'x-request-id': state.ids.next('req_') }
  if (turn.fixture !== undefined && !stream)
    throw new Error(`turn replays ${turn.fixture}, a stream, but the request is not streaming`)
  const recorded = turn.fixture === undefined ? undefined : sseBlocks(fixtureBody(turn.fixture, state.vars))
  const send = (blocks: readonly string[]) => sendSse(res, blocks, headers, turn.dropAfter, holdOf(turn, blocks))
  if (provider === 'anthropic') {
    if (!stream) return sendJson(res, 200, anthropicMessage(turn, state.ids), headers)
    return send(recorded ?? anthropicStream(turn, state.ids))
  }
  if (provider === 'openai-chat') {
    if (!stream) return sendJson(res, 200, chatCompletion(turn, state.ids), headers)
    const usage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true
    return send(recorded ?? chatStream(turn, state.ids, usage))
  }
  const response = recorded === undefined ? responseObject(turn, state.ids, body) : finalResponse(recorded)
  if (body.store !== false && response !== undefined)
    state.store.set(response.id as string, [...request.context, ...(response.output as Record<string, unknown>[])])
  if (recorded !== undefined) return send(recorded)
  const made = response as Record<string, unknown>
  if (!stream) return sendJson(res, 200, made, headers)
  return send(responsesStream(made))
}

/** Where a stream's end begins: the first event that closes the message, in each format. */
function endOf(blocks: readonly string[]): number {
  const at = blocks.findIndex((block) => {
    if (/^event: (message_delta|response\.completed|response\.incomplete|response\.failed)$/m.test(block)) return true
    const data = /^data: (\{.*)$/m.exec(block)?.[1]
    const chunk =
      data === undefined ? undefined : (JSON.parse(data) as { choices?: Array<{ finish_reason?: unknown }> })
    return typeof chunk?.choices?.[0]?.finish_reason === 'string'
  })
  if (at < 0) throw new Error('loopback model API: holdEnd on a stream with no end event to hold')
  return at
}

function holdOf(turn: ScriptedTurn, blocks: readonly string[]): SseHold | undefined {
  return turn.holdEnd === undefined ? undefined : { at: endOf(blocks), until: turn.holdEnd }
}

/** The response a recorded Responses stream ends with (completed or incomplete); none when it fails. */
function finalResponse(blocks: readonly string[]): Record<string, unknown> | undefined {
  for (const block of [...blocks].reverse()) {
    const data = /^data: (.*)$/m.exec(block)?.[1]
    const event =
      data === undefined ? undefined : (JSON.parse(data) as { type?: string; response?: Record<string, unknown> })
    if (event?.response !== undefined && (event.type === 'response.completed' || event.type === 'response.incomplete'))
      return event.response
  }
  return undefined
}
