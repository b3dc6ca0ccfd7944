/**
 * `npm run bench:peers`: the same no-op tool executed by toolkernel and by three peers, in one
 * process, in interleaved rounds — per-call overhead at K = 1 and K = 10 calls per model turn.
 *
 * - Vercel AI SDK v6: `generateText` with a MockLanguageModelV3 whose one step returns K tool calls
 *   (the default stopWhen, one step: the model is asked once, the tools run, the result returns).
 * - LangGraph: `ToolNode.invoke` on an AIMessage carrying K tool_calls.
 * - OpenAI Agents JS: `run` with a Model whose response holds K function calls and
 *   `toolUseBehavior: 'stop_on_first_tool'` (so the model is asked once); tracing off.
 * - toolkernel: `runTurn` of an assistant message with K tool_use blocks, in-memory log.
 *
 * Each peer does what its own API does for one model turn; the mocks answer at once, so what is
 * measured is the framework's own work per tool call. The peers are installed in bench/peers only
 * (its package.json), toolkernel is the built ../../dist (or TOOLKERNEL_DIST=<dir>).
 *
 * BENCH_N (calls per sample, default 10 000), BENCH_ROUNDS (default 7).
 */
import { readFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { generateText, tool as aiTool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { AIMessage } from '@langchain/core/messages'
import { tool as lcTool } from '@langchain/core/tools'
import { ToolNode } from '@langchain/langgraph/prebuilt'
import { Agent, Usage, run, setTracingDisabled, tool as agentsTool } from '@openai/agents'

const dist = process.env.TOOLKERNEL_DIST ?? new URL('../../dist', import.meta.url).pathname
const { buildTool, createKernel, createMemoryLog } = await import(pathToFileURL(join(dist, 'index.js')).href)

const N = Number(process.env.BENCH_N ?? 10_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7)
/** Calls of the tool itself, per harness: the warm-up checks that each one really ran all K. */
const calls = new Map()
const counting = (name) => {
  calls.set(name, 0)
  return async () => {
    calls.set(name, calls.get(name) + 1)
    return 'ok'
  }
}
const ids = (k) => Array.from({ length: k }, (_, i) => `call_${i}`)

/** Vercel AI SDK v6: one generateText step whose model answer is K tool calls. */
function aiSdk(k) {
  const noop = counting(`AI SDK generateText K=${k}`)
  const content = ids(k).map((toolCallId) => ({ type: 'tool-call', toolCallId, toolName: 'noop', input: '{}' }))
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  }
  const model = new MockLanguageModelV3({
    doGenerate: async () => ({ content, finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }),
  })
  // The mock keeps every request it was given: a fresh one per sample keeps memory flat.
  const tools = { noop: aiTool({ description: 'Does nothing.', inputSchema: z.object({}), execute: noop }) }
  return async (n) => {
    model.doGenerateCalls = []
    for (let i = 0; i < n; i += k) {
      const result = await generateText({ model, tools, prompt: 'go' })
      if (result.toolResults.length !== k) throw new Error(`AI SDK ran ${result.toolResults.length} of ${k}`)
    }
  }
}

/** LangGraph: the prebuilt ToolNode on an AIMessage with K tool calls. */
function langGraph(k) {
  const noop = counting(`LangGraph ToolNode K=${k}`)
  const noopTool = lcTool(noop, { name: 'noop', description: 'Does nothing.', schema: z.object({}) })
  const node = new ToolNode([noopTool])
  const message = new AIMessage({ content: '', tool_calls: ids(k).map((id) => ({ id, name: 'noop', args: {} })) })
  return async (n) => {
    for (let i = 0; i < n; i += k) {
      const { messages } = await node.invoke({ messages: [message] })
      if (messages.length !== k) throw new Error(`ToolNode ran ${messages.length} of ${k}`)
    }
  }
}

/** OpenAI Agents JS: `run` with a model that answers K function calls once. */
function agents(k) {
  const noop = counting(`Agents JS run K=${k}`)
  const output = ids(k).map((callId) => ({
    type: 'function_call',
    callId,
    name: 'noop',
    arguments: '{}',
    status: 'completed',
  }))
  const model = {
    async getResponse() {
      return { output, usage: new Usage(), responseId: 'r' }
    },
    getStreamedResponse() {
      throw new Error('not used')
    },
  }
  const noopTool = agentsTool({ name: 'noop', description: 'Does nothing.', parameters: z.object({}), execute: noop })
  const agent = new Agent({ name: 'bench', model, tools: [noopTool], toolUseBehavior: 'stop_on_first_tool' })
  return async (n) => {
    for (let i = 0; i < n; i += k) {
      const result = await run(agent, 'go')
      if (result.finalOutput !== 'ok') throw new Error(`Agents JS answered ${String(result.finalOutput)}`)
    }
  }
}

/** toolkernel: runTurn of an assistant message with K tool_use blocks, in-memory log. */
function toolkernel(k) {
  const noop = counting(`toolkernel K=${k}`)
  const Noop = buildTool({
    name: 'noop',
    description: () => 'Does nothing.',
    inputSchema: z.strictObject({}),
    isConcurrencySafe: () => true,
    call: noop,
  })
  const message = {
    role: 'assistant',
    content: ids(k).map((id) => ({ type: 'tool_use', id, name: 'noop', input: {} })),
  }
  let counter = 0
  const idPort = { next: (prefix) => `${prefix}_${++counter}` }
  return async (n) => {
    // A fresh log per sample keeps memory flat; its cost is part of what is measured.
    const kernel = createKernel({
      tools: [Noop],
      ports: { ids: idPort },
      log: createMemoryLog({ now: () => Date.now() }),
    })
    for (let i = 0; i < n; i += k) {
      const { message: result } = await kernel.runTurn(message)
      if (result.content.length !== k) throw new Error(`toolkernel answered ${result.content.length} of ${k}`)
    }
  }
}

setTracingDisabled(true)
const harnesses = { 'AI SDK generateText': aiSdk, 'LangGraph ToolNode': langGraph, 'Agents JS run': agents, toolkernel }
const variants = []
for (const k of [1, 10]) for (const [name, make] of Object.entries(harnesses)) variants.push({ name, k, run: make(k) })

// Warm-up (JIT, zod's first parse), and a check that every harness ran every call.
const WARM = Math.min(N, 1000)
for (const v of variants) await v.run(WARM)
for (const [name, count] of calls)
  if (count !== WARM) throw new Error(`${name}: the tool ran ${count} times of ${WARM}`)
// Wall time and this process's CPU time per call: on a loaded machine wall time also counts the
// time the process waited for a core, CPU time much less so.
const samples = variants.map(() => ({ wall: [], cpu: [] }))
for (let r = 0; r < ROUNDS; r++) {
  // Interleaved, and the order rotates each round, so a burst of load hits every variant alike.
  for (let j = 0; j < variants.length; j++) {
    const index = (j + r) % variants.length
    const v = variants[index]
    const cpu = process.cpuUsage()
    const start = performance.now()
    await v.run(N)
    samples[index].wall.push(((performance.now() - start) * 1000) / N)
    const used = process.cpuUsage(cpu)
    samples[index].cpu.push((used.user + used.system) / N)
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]
const version = (name) =>
  JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, import.meta.url), 'utf8')).version
console.log(
  `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${os.loadavg()[0].toFixed(2)};` +
    ` N = ${N} calls per sample, median of ${ROUNDS} interleaved rounds`,
)
console.log(
  `versions: ai ${version('ai')}, @langchain/langgraph ${version('@langchain/langgraph')}, @langchain/core ` +
    `${version('@langchain/core')}, @openai/agents ${version('@openai/agents')}, zod ${version('zod')}`,
)
console.log('| harness | K | µs per call (wall) | ÷ fastest peer | µs per call (CPU) | ÷ fastest peer (CPU) |')
console.log('|---|---|---|---|---|---|')
for (const k of [1, 10]) {
  const rows = variants
    .map((v, i) => ({ ...v, wall: median(samples[i].wall), cpu: median(samples[i].cpu) }))
    .filter((v) => v.k === k)
  const peers = rows.filter((v) => v.name !== 'toolkernel')
  const fastest = { wall: Math.min(...peers.map((v) => v.wall)), cpu: Math.min(...peers.map((v) => v.cpu)) }
  for (const v of rows) {
    const cells = [
      v.wall.toFixed(1),
      (v.wall / fastest.wall).toFixed(2),
      v.cpu.toFixed(1),
      (v.cpu / fastest.cpu).toFixed(2),
    ]
    console.log(`| ${v.name} | ${k} | ${cells.join(' | ')} |`)
  }
}
