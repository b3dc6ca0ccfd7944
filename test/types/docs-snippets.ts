/**
 * The loop of the README's toolkernel/loop paragraph and the two-process hand-over of
 * docs/stores.md, as they are written there, compiled by the project's tsc (strict,
 * exactOptionalPropertyTypes): no cast, no `!`, nothing undeclared. Not a vitest file: the loop
 * runs against the loopback model API in test/loop/, the store in test/store/.
 */
import Anthropic from '@anthropic-ai/sdk'
import { builtinTools, createKernel, projectMessages, type AssistantMessage, type Kernel } from '../../src/index.js'
import { anthropic, runLoop } from '../../src/loop/index.js'
import { createPostgresEventStore } from '../../src/postgres/index.js'

// --- README: toolkernel/loop ------------------------------------------------------------------
export async function readmeLoop(kernel: Kernel, history: Anthropic.MessageParam[]) {
  const model = anthropic(new Anthropic(), { model: 'claude-sonnet-4-5', max_tokens: 4096 })
  const { messages, stopped } = await runLoop({ model, kernel, messages: history, stream: true, maxSteps: 20 })
  const next: Anthropic.MessageParam[] = messages
  return { next, stopped }
}

// --- docs/stores.md: a worker serving sessions from PostgreSQL ---------------------------------
export function storesWorker() {
  const connection = process.env.DATABASE_URL
  if (connection === undefined) throw new Error('set DATABASE_URL')
  // One store per process: a connection pool, shared by every session this worker runs.
  const store = createPostgresEventStore({ connection })

  async function serve(sessionId: string, assistantMessage: AssistantMessage) {
    const kernel = createKernel({
      tools: builtinTools,
      store,
      session: sessionId, // the session's stream: created on first use, resumed afterwards
      lease: { ttlMs: 30_000, waitMs: 35_000 }, // wait for a crashed owner's lease to run out
    })
    try {
      await kernel.ready() // the lease taken, the stream read, a crashed owner's calls answered
      const { message } = await kernel.runTurn(assistantMessage)
      return message
    } finally {
      await kernel.close() // durable, lease released: any worker may take the next turn
    }
  }

  // When the worker shuts down: the pool's connections closed, so the process can exit at once.
  process.once('SIGTERM', () => void store.close())

  // What the app sends next after a hand-over: the session's turn messages, the last one last.
  const recovered = async (sessionId: string) =>
    projectMessages((await store.read(sessionId)).map((stored) => stored.event)).at(-1)
  return { serve, recovered }
}

// --- docs/stores.md: what a worker that takes a session over sends next ----------------------
export async function storesHandOver(
  kernel: Kernel,
  messages: Anthropic.MessageParam[],
  conversationEndsWithToolUse: boolean,
) {
  await kernel.ready()
  const last = kernel.handOver() // or handOver({ format: 'openai-chat' | 'openai-responses' })
  if (last !== undefined && last.pending.length === 0 && conversationEndsWithToolUse) messages.push(last.message)
}
