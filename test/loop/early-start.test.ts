/**
 * runLoop streaming keeps early start: a concurrency-safe call starts while the model is still
 * streaming, not after. The loopback server holds the stream's end — the event that closes the
 * message — until the tool has started (or, when it never does, until the event loop has turned
 * many times with nothing left to read), so "started before the end" is a fact the test reads,
 * not a race it hopes to win. A kernel with `earlyStart: 'none'` over the same stream is the
 * control: there the call starts only after the end, and the test says so.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createKernel,
  createMemoryLog,
  type EarlyStart,
  type KernelEvent,
  type Tool,
} from '../../src/index.js'
import { anthropic, openaiChat, openaiResponses, runLoop, type LoopModel } from '../../src/loop/index.js'
import type { ScriptedTurn } from '../model-api/script.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { anthropicClient, openaiClient } from '../model-api/clients.js'

let api: ModelApi
beforeEach(async () => {
  api = await startModelApi()
})
afterEach(() => api.close())

/** Event-loop turns without the tool starting after which the held end is sent anyway (the control). */
const TICKS = 10_000

/** A safe, read-only tool that notes when it starts. */
function probe(): { Probe: Tool; started: () => boolean } {
  let started = false
  const Probe = buildTool({
    name: 'Probe',
    description: () => 'Looks at one thing.',
    inputSchema: z.strictObject({ at: z.string() }),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    async call({ at }) {
      started = true
      return `looked at ${at}`
    },
  })
  return { Probe, started: () => started }
}

async function ticksUntil(done: () => boolean, ticks: number): Promise<void> {
  for (let tick = 0; tick < ticks && !done(); tick++) await new Promise((resolve) => setImmediate(resolve))
}

/**
 * Two Probe calls, the stream's end held until a call started. Two, because a Chat call is
 * complete only when the next begins (or the choice finishes): the first is whole before the end.
 */
function heldTurn(started: () => boolean, seen: { beforeEnd?: boolean }): ScriptedTurn {
  return {
    text: 'Looking.',
    calls: [
      { name: 'Probe', input: { at: 'the sky' } },
      { name: 'Probe', input: { at: 'the sea' } },
    ],
    holdEnd: async () => {
      await ticksUntil(started, TICKS)
      seen.beforeEnd = started()
    },
  }
}

const providers: Array<{ name: string; model(): LoopModel<unknown, unknown> }> = [
  {
    name: 'Anthropic Messages',
    model: () =>
      anthropic(anthropicClient(api), {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
      }) as LoopModel<unknown, unknown>,
  },
  {
    name: 'OpenAI Chat Completions',
    model: () => openaiChat(openaiClient(api), { model: 'gpt-4.1' }) as LoopModel<unknown, unknown>,
  },
  {
    name: 'OpenAI Responses',
    model: () => openaiResponses(openaiClient(api), { model: 'gpt-4.1' }) as LoopModel<unknown, unknown>,
  },
]

const at = (events: readonly KernelEvent[], type: string, toolUseId?: string) =>
  events.findIndex(
    (e) => e.type === type && (toolUseId === undefined || ('toolUseId' in e && e.toolUseId === toolUseId)),
  )

async function loop(provider: (typeof providers)[number], earlyStart: EarlyStart) {
  const { Probe, started } = probe()
  const seen: { beforeEnd?: boolean } = {}
  api.script(heldTurn(started, seen), { text: 'The sky is blue, the sea too.' })
  const kernel = createKernel({ tools: [Probe], log: createMemoryLog(), earlyStart })
  const result = await runLoop({
    model: provider.model(),
    kernel,
    messages: [{ role: 'user', content: 'Look at the sky and the sea.' }],
    stream: true,
  })
  expect(api.rejected()).toEqual([])
  expect(result.stopped).toBe('done')
  expect(result.steps[0]?.turn?.message.content.map((block) => block.content)).toEqual([
    'looked at the sky',
    'looked at the sea',
  ])
  return { seen, events: kernel.log.read(), first: result.steps[0]?.turn?.message.content[0]?.tool_use_id ?? '' }
}

describe('runLoop streaming: a safe call starts before the model stream ends', () => {
  it.each(providers)('$name', async (provider) => {
    const { seen, events, first } = await loop(provider, 'safe')
    expect(seen.beforeEnd).toBe(true)
    // In the log: the first call started (and finished) before the turn's stream ended.
    expect(at(events, 'tool.started', first)).toBeGreaterThan(-1)
    expect(at(events, 'tool.started', first)).toBeLessThan(at(events, 'turn.ended'))
  })

  it("the control: with earlyStart 'none' the same stream ends before any call starts", async () => {
    const { seen, events, first } = await loop(providers[0] as (typeof providers)[number], 'none')
    expect(seen.beforeEnd).toBe(false)
    expect(at(events, 'tool.started', first)).toBeGreaterThan(at(events, 'turn.ended'))
  })
})
