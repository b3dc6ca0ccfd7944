/**
 * The Vercel AI SDK (v6) with toolkernel executing its tool calls (`toolkernel/ai-sdk`), against
 * the loopback server through a small LanguageModelV3 provider that speaks HTTP (loopback-model.ts).
 * Each step's calls are one kernel turn; the AI SDK tool message goes back into `messages`; the
 * server refuses the next request if any call went unanswered.
 */
import { existsSync } from 'node:fs'
import { generateText, streamText, type ModelMessage } from 'ai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createKernel, builtinTools, type KernelEvent } from '../../src/index.js'
import { aiSdkTools, runToolCalls, startToolCalls, type AiSdkStep } from '../../src/ai-sdk/index.js'
import { chatStream } from '../model-api/openai-chat.js'
import { Ids, type ScriptedTurn } from '../model-api/script.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { loopbackModel } from './loopback-model.js'
import { expectLoopDone, makeProject, projectKernel, threeTurns, type Project } from './scenario.js'

let project: Project
let api: ModelApi
beforeEach(async () => {
  project = makeProject()
  api = await startModelApi()
})
afterEach(async () => {
  await api.close()
  project.cleanup()
})

const toolTexts = (i: number) => JSON.stringify((api.requests[i]?.body.messages as unknown[]).slice(-3))
const turnsOf = (events: readonly KernelEvent[]) => events.filter((e) => e.type === 'turn.started').length
const seqOf = (events: readonly KernelEvent[], type: string, id?: string) =>
  events.find((e) => e.type === type && (id === undefined || ('toolUseId' in e && e.toolUseId === id)))?.seq ?? -1

describe('AI SDK adapter, three-turn loop', () => {
  it('generateText: each step is one kernel turn; runToolCalls gives the tool message', async () => {
    api.script(...threeTurns(project))
    const kernel = projectKernel(project)
    const model = loopbackModel(api.openaiURL)
    const tools = aiSdkTools(kernel)
    const messages: ModelMessage[] = [{ role: 'user', content: 'Make greet say hello.' }]
    for (let i = 0; i < 5; i++) {
      const step = await generateText({ model, tools, messages })
      const { messages: toolMessages } = await runToolCalls(kernel, step)
      messages.push(...step.response.messages, ...toolMessages)
      if (toolMessages.length === 0) break
    }
    expectLoopDone(project, api, toolTexts)
    const events = kernel.log.read()
    expect(turnsOf(events)).toBe(3)
    expect(Object.keys(tools).sort()).toEqual([
      'AskUserQuestion',
      'Bash',
      'BashOutput',
      'Edit',
      'Glob',
      'Grep',
      'KillShell',
      'MultiEdit',
      'NotebookEdit',
      'Read',
      'TodoWrite',
      'WebFetch',
      'Write',
    ])
  })

  it('streamText: calls reach the kernel as they stream; a safe one finishes before the step does', async () => {
    api.script(...threeTurns(project))
    const kernel = projectKernel(project)
    const model = loopbackModel(api.openaiURL)
    const tools = aiSdkTools(kernel)
    const messages: ModelMessage[] = [{ role: 'user', content: 'Make greet say hello.' }]
    const early: string[] = []
    for (let i = 0; i < 5; i++) {
      const result = streamText({ model, tools, messages })
      const calls = startToolCalls(kernel)
      for await (const part of result.fullStream) {
        calls.push(part)
        // The step has not finished (its finish-step part is not pushed yet): wait for Glob's result.
        if (part.type === 'tool-call' && part.toolName === 'Glob') {
          for await (const update of calls.updates())
            if (update.type === 'completed' && update.toolUseId === part.toolCallId) break
          early.push(part.toolCallId)
        }
      }
      const { messages: toolMessages } = await calls.result()
      messages.push(...(await result.response).messages, ...toolMessages)
      if (toolMessages.length === 0) break
    }
    expectLoopDone(project, api, toolTexts)
    const events = kernel.log.read()
    expect(early).toHaveLength(1)
    expect(seqOf(events, 'tool.result', early[0])).toBeLessThan(seqOf(events, 'turn.ended'))
  })
})

describe('AI SDK adapter, the kernel decides', () => {
  it('a step cut off by length runs nothing, and every call is still answered', async () => {
    api.script(
      { calls: [{ name: 'Write', input: { file_path: project.notes, content: 'x' } }], stop: 'max_tokens' },
      { text: 'ok' },
    )
    const kernel = projectKernel(project)
    const model = loopbackModel(api.openaiURL)
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write notes.' }]
    const step = await generateText({ model, tools: aiSdkTools(kernel), messages })
    expect(step.finishReason).toBe('length')
    const { messages: toolMessages } = await runToolCalls(kernel, step)
    expect(existsSync(project.notes)).toBe(false)
    const [part] = toolMessages[0]?.content ?? []
    expect(part).toMatchObject({ type: 'tool-result', toolName: 'Write', output: { type: 'error-text' } })
    expect(JSON.stringify(part)).toMatch(/max_tokens/)
    messages.push(...step.response.messages, ...toolMessages)
    await generateText({ model, tools: aiSdkTools(kernel), messages })
    expect(api.rejected()).toEqual([])
  })

  it('permission rules hold: a denied call answers error-text, a tool denied outright is not offered', async () => {
    api.script({ calls: [{ name: 'Write', input: { file_path: project.notes, content: 'x' } }] }, { text: 'ok' })
    const kernel = createKernel({
      tools: builtinTools,
      cwd: project.dir,
      permissions: { mode: 'acceptEdits', deny: ['Write(./NOTES.md)', 'Bash'] },
    })
    const tools = aiSdkTools(kernel)
    expect(Object.keys(tools)).not.toContain('Bash')
    const model = loopbackModel(api.openaiURL)
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write notes.' }]
    const step = await generateText({ model, tools, messages })
    const { messages: toolMessages } = await runToolCalls(kernel, step)
    expect(toolMessages[0]?.content[0]).toMatchObject({ output: { type: 'error-text' } })
    expect(existsSync(project.notes)).toBe(false)
    messages.push(...step.response.messages, ...toolMessages)
    await generateText({ model, tools, messages })
    expect(api.rejected()).toEqual([])
    expect(toolTexts(1)).toMatch(/denied|deny/i)
  })

  it('wrong shapes are refused with the method to use instead', async () => {
    const kernel = projectKernel(project)
    const calls = startToolCalls(kernel)
    expect(() => calls.push({ type: 'message_start' })).toThrow(/kernel\.startTurn\(\)/)
    expect(() => calls.push({ type: 'response.output_item.added' })).toThrow(/turn\.pushOpenAIResponses/)
    calls.end()
    expect((await calls.result()).messages).toEqual([])
    const assistantMessage = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'Read' }] }
    await expect(runToolCalls(kernel, assistantMessage as unknown as AiSdkStep)).rejects.toThrow(
      /expects a generateText result .*startToolCalls/s,
    )
  })
})

describe('AI SDK adapter, a call the AI SDK answers itself', () => {
  // The model calls a tool that does not exist between two that do. The AI SDK marks it invalid
  // and puts its own answer in response.messages; the kernel must still see it, in its place.
  const script = (): ScriptedTurn[] => [
    {
      calls: [
        { name: 'Glob', input: { pattern: '*.ts' } },
        { name: 'Deploy', input: { env: 'prod' } },
        { name: 'Glob', input: { pattern: '*.md' } },
      ],
    },
    { text: 'done' },
  ]
  const answeredOnce = (i: number): Record<string, number> => {
    const counts: Record<string, number> = {}
    for (const m of api.requests[i]?.body.messages as Array<{ role: string; tool_call_id?: string }>)
      if (m.role === 'tool' && m.tool_call_id !== undefined) counts[m.tool_call_id] = (counts[m.tool_call_id] ?? 0) + 1
    return counts
  }
  const expectInTheLog = (events: readonly KernelEvent[], ids: readonly string[], why = /Deploy/) => {
    const of = (type: string) =>
      events.flatMap((e) => (e.type === type && 'toolUseId' in e ? [e.toolUseId] : [])).filter((id) => ids.includes(id))
    expect(of('tool.requested')).toEqual(ids)
    expect(of('tool.result')).toEqual(ids)
    const invalid = events.find((e) => e.type === 'tool.result' && e.toolUseId === ids[1])
    expect(JSON.stringify(invalid)).toMatch(why)
  }

  it('generateText: the unknown tool goes through the kernel, in order; each call is answered once', async () => {
    api.script(...script())
    const kernel = projectKernel(project)
    const model = loopbackModel(api.openaiURL)
    const messages: ModelMessage[] = [{ role: 'user', content: 'List and deploy.' }]
    const step = await generateText({ model, tools: aiSdkTools(kernel), messages })
    const ids = step.toolCalls.map((call) => call.toolCallId)
    expect(step.toolCalls.map((call) => call.invalid === true)).toEqual([false, true, false])
    const { messages: toolMessages } = await runToolCalls(kernel, step)
    expectInTheLog(kernel.log.read(), ids)
    messages.push(...step.response.messages, ...toolMessages)
    await generateText({ model, tools: aiSdkTools(kernel), messages })
    expect(api.rejected()).toEqual([])
    expect(answeredOnce(1)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
  })

  it('streamText: the same, pushed part by part', async () => {
    api.script(...script())
    const kernel = projectKernel(project)
    const model = loopbackModel(api.openaiURL)
    const messages: ModelMessage[] = [{ role: 'user', content: 'List and deploy.' }]
    const result = streamText({ model, tools: aiSdkTools(kernel), messages })
    const calls = startToolCalls(kernel)
    const ids: string[] = []
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') ids.push(part.toolCallId)
      calls.push(part)
    }
    const { messages: toolMessages } = await calls.result()
    expectInTheLog(kernel.log.read(), ids)
    messages.push(...(await result.response).messages, ...toolMessages)
    await generateText({ model, tools: aiSdkTools(kernel), messages })
    expect(api.rejected()).toEqual([])
    expect(answeredOnce(1)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
  })
  // The model's arguments for the middle call are cut short: not JSON. The AI SDK marks the call
  // invalid (its input the raw text) and answers it itself; the kernel records it, runs nothing.
  const notJson = (): ScriptedTurn[] => [
    {
      calls: [
        { name: 'Glob', input: { pattern: '*.ts' } },
        { name: 'Write', input: {}, arguments: `{"file_path": ${JSON.stringify(project.notes)}, "content": "x` },
        { name: 'Glob', input: { pattern: '*.md' } },
      ],
    },
    { text: 'done' },
  ]
  /** The next request's tool message for a call: the AI SDK's own answer for the invalid one. */
  const toolMessageOf = (id: string | undefined): unknown =>
    (api.requests[1]?.body.messages as Array<{ role: string; tool_call_id?: string; content?: unknown }>).find(
      (m) => m.role === 'tool' && m.tool_call_id === id,
    )?.content
  const notObject = /"code":"not_an_object".*Write|Write.*must be a JSON object/

  it('generateText: a call whose input is not JSON goes through the kernel, in order; nothing runs', async () => {
    api.script(...notJson())
    const kernel = projectKernel(project)
    const model = loopbackModel(api.openaiURL)
    const messages: ModelMessage[] = [{ role: 'user', content: 'List and write.' }]
    const step = await generateText({ model, tools: aiSdkTools(kernel), messages })
    const ids = step.toolCalls.map((call) => call.toolCallId)
    expect(step.toolCalls.map((call) => call.invalid === true)).toEqual([false, true, false])
    expect(step.toolCalls[1]?.input).toBe(`{"file_path": ${JSON.stringify(project.notes)}, "content": "x`)
    const { messages: toolMessages, turn } = await runToolCalls(kernel, step)
    expectInTheLog(kernel.log.read(), ids, notObject)
    expect(existsSync(project.notes)).toBe(false)
    expect(kernel.log.read().some((e) => e.type === 'tool.started' && e.toolUseId === ids[1])).toBe(false)
    expect(turn.message.content.map((block) => block.tool_use_id)).toEqual(ids)
    // The adapter's tool message answers the two good calls; the AI SDK answered the third.
    expect(
      toolMessages.flatMap((m) => m.content.map((part) => ('toolCallId' in part ? part.toolCallId : part.type))),
    ).toEqual([ids[0], ids[2]])
    messages.push(...step.response.messages, ...toolMessages)
    await generateText({ model, tools: aiSdkTools(kernel), messages })
    expect(api.rejected()).toEqual([])
    expect(answeredOnce(1)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
    expect(String(toolMessageOf(ids[1]))).toMatch(/Invalid input for tool Write/)
  })

  it('streamText: a call whose input is not JSON, pushed part by part, the same', async () => {
    api.script(...notJson())
    const kernel = projectKernel(project)
    const model = loopbackModel(api.openaiURL)
    const messages: ModelMessage[] = [{ role: 'user', content: 'List and write.' }]
    const result = streamText({ model, tools: aiSdkTools(kernel), messages })
    const calls = startToolCalls(kernel)
    const ids: string[] = []
    const invalid: boolean[] = []
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') {
        ids.push(part.toolCallId)
        invalid.push(part.invalid === true)
      }
      calls.push(part)
    }
    expect(invalid).toEqual([false, true, false])
    const { messages: toolMessages, turn } = await calls.result()
    expectInTheLog(kernel.log.read(), ids, notObject)
    expect(existsSync(project.notes)).toBe(false)
    expect(turn.message.content.map((block) => block.tool_use_id)).toEqual(ids)
    expect(
      toolMessages.flatMap((m) => m.content.map((part) => ('toolCallId' in part ? part.toolCallId : part.type))),
    ).toEqual([ids[0], ids[2]])
    messages.push(...(await result.response).messages, ...toolMessages)
    await generateText({ model, tools: aiSdkTools(kernel), messages })
    expect(api.rejected()).toEqual([])
    expect(answeredOnce(1)).toEqual(Object.fromEntries(ids.map((id) => [id, 1])))
    expect(String(toolMessageOf(ids[1]))).toMatch(/Invalid input for tool Write/)
  })

  it('a tool the kernel has but the AI SDK was not given does not run: the AI SDK answered it as unavailable', async () => {
    api.script({ calls: [{ name: 'Write', input: { file_path: project.notes, content: 'x' } }] }, { text: 'ok' })
    const kernel = projectKernel(project)
    const { Write: _offeredNot, ...tools } = aiSdkTools(kernel)
    const model = loopbackModel(api.openaiURL)
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write notes.' }]
    const step = await generateText({ model, tools, messages })
    expect(step.toolCalls[0]?.invalid).toBe(true)
    const { messages: toolMessages, turn } = await runToolCalls(kernel, step)
    expect(existsSync(project.notes)).toBe(false)
    expect(JSON.stringify(turn.message.content[0])).toMatch(/Write/)
    expect(kernel.log.read().some((e) => e.type === 'tool.started')).toBe(false)
    messages.push(...step.response.messages, ...toolMessages)
    await generateText({ model, tools, messages })
    expect(api.rejected()).toEqual([])
  })
})

describe('AI SDK adapter, a stream that fails mid-way', () => {
  it('a dropped connection: the call that arrived keeps its result, the cut one never runs', async () => {
    const turn: ScriptedTurn = {
      calls: [
        { name: 'Glob', input: { pattern: '**/*.ts', path: project.dir } },
        { name: 'Write', input: { file_path: project.notes, content: 'never' } },
      ],
    }
    // Cut the connection inside the second call's arguments.
    const blocks = chatStream(turn, new Ids(), false)
    const dropAfter = blocks.findIndex((b) => b.includes('"index":1') && b.includes('"arguments":"{')) + 1
    api.script({ ...turn, dropAfter })
    const kernel = projectKernel(project)
    const result = streamText({ model: loopbackModel(api.openaiURL), tools: aiSdkTools(kernel), prompt: 'go' })
    const calls = startToolCalls(kernel)
    const types: string[] = []
    let thrown: unknown
    try {
      for await (const part of result.fullStream) {
        types.push(part.type)
        calls.push(part)
      }
    } catch (error) {
      thrown = error
      calls.fail(error)
    }
    const { messages: toolMessages, turn: kernelTurn } = await calls.result()
    // The AI SDK passes the model stream's failure on as an `error` part or by throwing.
    expect(types.includes('error') || thrown !== undefined).toBe(true)
    expect(existsSync(project.notes)).toBe(false)
    const parts = toolMessages[0]?.content ?? []
    expect(parts).toHaveLength(1)
    expect(parts[0]).toMatchObject({ toolName: 'Glob', output: { type: 'text' } })
    expect(kernelTurn.events.some((e) => e.type === 'turn.ended')).toBe(true)
  })

  // Found by this test: the AI SDK's fullStream can end with an `error` part and no finish-step;
  // result() waited for an end that never came.
  it('a stream that ends with an error part and no finish-step still resolves', async () => {
    const kernel = projectKernel(project)
    const result = streamText({
      model: loopbackModel(api.openaiURL),
      tools: aiSdkTools(kernel),
      messages: [],
      onError: () => {},
    })
    const calls = startToolCalls(kernel)
    const types: string[] = []
    for await (const part of result.fullStream) {
      types.push(part.type)
      calls.push(part)
    }
    expect(types).toEqual(['start', 'error'])
    const { messages, turn } = await calls.result()
    expect(messages).toEqual([])
    expect(turn.events.some((e) => e.type === 'turn.completed')).toBe(true)
  })
})
