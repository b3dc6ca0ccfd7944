/**
 * runLoop with a call that waits for a person, for real: the three-turn scenario with a rule that
 * asks for Bash and nobody to answer now (no canUseTool: the call parks, docs/approvals.md). The
 * loop stops on the second turn surfacing the parked call; the app answers it (`kernel.answer`),
 * sends the message the kernel hands back and calls runLoop again, which finishes. The loopback
 * server refuses a conversation with a call unanswered or answered twice, so a held-back result
 * that leaked, or one that went missing, fails the next request.
 */
import { readFileSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { builtinTools, createKernel, createMemoryLog, type Kernel, type KernelEvent } from '../../src/index.js'
import { anthropic, openaiChat, openaiResponses, runLoop, type LoopModel } from '../../src/loop/index.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { expectLoopDone, makeProject, threeTurns, type Project } from '../sdk/scenario.js'
import { anthropicClient, openaiClient } from '../model-api/clients.js'

let project: Project
let api: ModelApi
beforeEach(async () => {
  project = makeProject()
  api = await startModelApi({ turns: threeTurns(project) })
})
afterEach(async () => {
  await api.close()
  project.cleanup()
})

/** The scenario's kernel, with a rule that asks before any Bash command; nobody answers now. */
function askingKernel(): Kernel {
  return createKernel({
    tools: builtinTools,
    cwd: project.dir,
    permissions: { mode: 'acceptEdits', ask: ['Bash'] },
    log: createMemoryLog(),
  })
}

const seqOf = (events: readonly KernelEvent[], type: string, id: string) =>
  events.find((e) => e.type === type && 'toolUseId' in e && e.toolUseId === id)?.seq ?? -1

interface Provider {
  name: string
  /** The request key that holds the conversation, and how many items the last turn's results take. */
  key: 'messages' | 'input'
  results: number
  model(): LoopModel<unknown, unknown>
}

const providers: Provider[] = [
  {
    name: 'Anthropic Messages',
    key: 'messages',
    results: 1,
    model: () =>
      anthropic(anthropicClient(api), {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
      }) as LoopModel<unknown, unknown>,
  },
  {
    name: 'OpenAI Chat Completions',
    key: 'messages',
    results: 3,
    model: () => openaiChat(openaiClient(api), { model: 'gpt-4.1' }) as LoopModel<unknown, unknown>,
  },
  {
    name: 'OpenAI Responses',
    key: 'input',
    results: 3,
    model: () => openaiResponses(openaiClient(api), { model: 'gpt-4.1' }) as LoopModel<unknown, unknown>,
  },
]

describe.each([false, true])('runLoop, a call parks for approval (stream: %s)', (stream) => {
  it.each(providers)('$name: the loop stops on it; answered, the next runLoop finishes', async (provider) => {
    const kernel = askingKernel()
    const model = provider.model()
    const first = await runLoop({
      model,
      kernel,
      messages: [{ role: 'user', content: 'Make greet say hello.' }],
      stream,
    })

    // Stopped on the second turn: its Bash call waits; Edit and Write before it ran.
    expect(first.stopped).toBe('pending')
    expect(first.pending).toHaveLength(1)
    const [call] = first.pending
    expect(call).toMatchObject({ tool: 'Bash', input: { command: 'wc -l src/app.ts NOTES.md' }, answered: false })
    expect(first.held?.pending).toEqual(first.pending)
    expect(kernel.pendingApprovals()).toEqual(first.pending)
    expect(api.requests).toHaveLength(2)
    expect(first.steps.map((step) => step.index)).toEqual([0, 1])
    expect(readFileSync(project.notes, 'utf8')).toBe('greet now says hello\n')
    const id = call?.toolUseId ?? ''
    expect(seqOf(kernel.log.read(), 'tool.started', id)).toBe(-1)
    // The model's turn is in the conversation, its results are not: it ends with the tool calls.
    expect(JSON.stringify(first.messages.at(-1))).toContain('wc -l src/app.ts NOTES.md')
    expect(first.steps[1]?.messages).toEqual(model.assistant(first.steps[1]?.response))

    // The person allows it; the kernel runs Bash and hands back the turn's whole message.
    const answered = await kernel.answer(id, { behavior: 'allow', digest: call?.digest ?? '' })
    expect(answered.pending).toEqual([])
    // The held message had the two finished calls' results; the answered one has all three.
    expect(answered.message.content.map((block) => block.tool_use_id)).toEqual([
      ...(first.held?.message.content.map((block) => block.tool_use_id) ?? []),
      id,
    ])
    const events = kernel.log.read()
    expect(seqOf(events, 'permission.answered', id)).toBeLessThan(seqOf(events, 'tool.started', id))

    const sent = model.results(answered.message)
    expect(sent).toHaveLength(provider.results)
    const next = await runLoop({ model, kernel, messages: [...first.messages, ...sent], stream })
    expect(next.stopped).toBe('done')
    expect(next.steps).toHaveLength(1)
    const lastOf = (i: number) =>
      JSON.stringify((api.requests[i]?.body[provider.key] as unknown[]).slice(-provider.results))
    expectLoopDone(project, api, lastOf)
    expect(next.messages).toEqual([...first.messages, ...sent, ...(next.steps[0]?.messages ?? [])])
  })
})
