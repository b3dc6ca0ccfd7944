/**
 * A loop stopped on a call that waits for a person goes on from the store, in another kernel:
 * process A runs runLoop over a session in a JSONL event store until Bash parks (a rule asks,
 * nobody answers there), prints the conversation the app keeps, and exits; this process opens the
 * session, answers the call, takes the message to send from `kernel.handOver()`, and runLoop goes
 * on to the end. The same in one process with a second kernel over the directory, for the OpenAI
 * formats (`handOver({ format })`). The loopback server refuses a conversation with a call left
 * unanswered or answered twice.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  builtinTools,
  createJsonlEventStore,
  createKernel,
  type EventStore,
  type KernelEvent,
} from '../../src/index.js'
import { anthropic, openaiChat, openaiResponses, runLoop } from '../../src/loop/index.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { expectLoopDone, makeProject, threeTurns, type Project } from '../sdk/scenario.js'
import { anthropicClient, openaiClient } from '../model-api/clients.js'

const built = existsSync(new URL('../../dist/loop/index.js', import.meta.url))
if (!built) console.warn('loop hand-over across processes: skipped — dist/ is not built: run `npm run build` first')
const parkLoop = new URL('./fixtures/park-loop.mjs', import.meta.url).pathname

let project: Project
let api: ModelApi
let dir: string
beforeEach(async () => {
  project = makeProject()
  api = await startModelApi({ turns: threeTurns(project) })
  dir = mkdtempSync(join(tmpdir(), 'toolkernel-loop-resume-'))
})
afterEach(async () => {
  await api.close()
  project.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

/** A kernel over the session, as the fixture makes it: a rule asks before any Bash command. */
function sessionKernel(store: EventStore, owner: string) {
  return createKernel({
    tools: builtinTools,
    cwd: project.dir,
    permissions: { mode: 'acceptEdits', ask: ['Bash'] },
    store,
    session: 'loop-42',
    lease: { owner },
  })
}

/** Opens the session, answers its one parked call (Bash) and checks what the log says of it. */
async function answerParked(kernel: ReturnType<typeof sessionKernel>): Promise<void> {
  await kernel.ready()
  const [call, ...more] = kernel.pendingApprovals()
  expect(more).toEqual([])
  expect(call).toMatchObject({ tool: 'Bash', input: { command: 'wc -l src/app.ts NOTES.md' } })
  const answered = await kernel.answer(call?.toolUseId ?? '', { behavior: 'allow', digest: call?.digest ?? '' })
  expect(answered.pending).toEqual([])
  expect(kernel.handOver()).toMatchObject({ over: true, pending: [], recovered: false, message: answered.message })
  // Bash ran here, after the answer; nothing ran in A that needed it.
  const events = kernel.log.read()
  const seq = (type: string) =>
    events.find((e: KernelEvent) => e.type === type && 'toolUseId' in e && e.toolUseId === call?.toolUseId)?.seq ?? -1
  const resumed = events.find((e) => e.type === 'turn.resumed')?.seq ?? -1
  expect(resumed).toBeGreaterThan(-1)
  expect(seq('tool.started')).toBeGreaterThan(resumed)
}

describe.skipIf(!built)('runLoop resumes from the store in another process', () => {
  it.each(['batch', 'stream'])(
    'Anthropic, %s: A parks and exits; B answers, sends handOver().message, finishes',
    async (mode) => {
      const { stdout } = await promisify(execFile)(process.execPath, [
        parkLoop,
        api.url,
        dir,
        'loop-42',
        project.dir,
        mode,
      ])
      const a = JSON.parse(stdout) as { stopped: string; pending: string[]; messages: Anthropic.MessageParam[] }
      expect(a.stopped).toBe('pending')
      expect(a.pending).toHaveLength(1)
      expect(a.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
      expect(api.requests).toHaveLength(2)

      const store = createJsonlEventStore(dir)
      const b = sessionKernel(store, 'process-b')
      await answerParked(b)
      const last = b.handOver()
      if (last === undefined) throw new Error('no turn to hand over')
      const model = anthropic(anthropicClient(api), {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
      })
      const done = await runLoop({
        model,
        kernel: b,
        messages: [...a.messages, last.message],
        stream: mode === 'stream',
      })
      expect(done.stopped).toBe('done')
      expectLoopDone(project, api, (i) => JSON.stringify((api.requests[i]?.body.messages as unknown[]).slice(-1)))
      await b.close()
      await store.close()
    },
  )
})

describe('runLoop resumes from the store in a second kernel (one process)', () => {
  it('OpenAI Chat Completions: handOver({ format: "openai-chat" }) gives the tool messages to send', async () => {
    const client = openaiClient(api)
    const model = openaiChat(client, { model: 'gpt-4.1' })
    const storeA = createJsonlEventStore(dir)
    const a = sessionKernel(storeA, 'kernel-a')
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Make greet say hello.' }]
    const first = await runLoop({ model, kernel: a, messages })
    expect(first.stopped).toBe('pending')
    await a.close()
    await storeA.close()

    const storeB = createJsonlEventStore(dir)
    const b = sessionKernel(storeB, 'kernel-b')
    await answerParked(b)
    const last = b.handOver({ format: 'openai-chat' })
    expect(last?.message.map((m) => m.tool_call_id)).toEqual([
      ...(first.held?.message.content.map((c) => c.tool_use_id) ?? []),
      first.pending[0]?.toolUseId,
    ])
    const done = await runLoop({ model, kernel: b, messages: [...first.messages, ...(last?.message ?? [])] })
    expect(done.stopped).toBe('done')
    expectLoopDone(project, api, (i) => JSON.stringify((api.requests[i]?.body.messages as unknown[]).slice(-3)))
    await b.close()
    await storeB.close()
  })

  it('OpenAI Responses, streaming: handOver({ format: "openai-responses" }) gives the outputs to send', async () => {
    const client = openaiClient(api)
    const model = openaiResponses(client, { model: 'gpt-4.1' })
    const storeA = createJsonlEventStore(dir)
    const a = sessionKernel(storeA, 'kernel-a')
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Make greet say hello.' }]
    const first = await runLoop({ model, kernel: a, messages: input, stream: true })
    expect(first.stopped).toBe('pending')
    await a.close()
    await storeA.close()

    const storeB = createJsonlEventStore(dir)
    const b = sessionKernel(storeB, 'kernel-b')
    await answerParked(b)
    const last = b.handOver({ format: 'openai-responses' })
    expect(last?.message.map((item) => item.type)).toEqual(Array(3).fill('function_call_output'))
    const done = await runLoop({
      model,
      kernel: b,
      messages: [...first.messages, ...(last?.message ?? [])],
      stream: true,
    })
    expect(done.stopped).toBe('done')
    expectLoopDone(project, api, (i) => JSON.stringify((api.requests[i]?.body.input as unknown[]).slice(-3)))
    await b.close()
    await storeB.close()
  })
})
