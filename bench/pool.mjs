/**
 * `node bench/pool.mjs` (after `npm run build`): what deferral saves and what ToolSearch costs.
 * For 50, 200 and 1,000 synthetic tools (10 sent in full, the rest deferrable): bytes and
 * estimated tokens of the `tools` parameter, without deferral and with it (the automatic
 * threshold, and `always`); then BM25 index build and search time. Writes /work/tmp/bench-pool.md
 * (or BENCH_POOL_OUT).
 */
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { z } from 'zod'
import { buildTool, createKernel } from '../dist/index.js'
import { Bm25Index, searchDocument, searchTools } from '../dist/internal.js'

const OUT = process.env.BENCH_POOL_OUT ?? '/work/tmp/bench-pool.md'
const VERBS = ['create', 'list', 'get', 'update', 'delete', 'search', 'send', 'archive', 'merge', 'export']
const NOUNS = [
  'issue',
  'pull request',
  'message',
  'channel',
  'invoice',
  'customer',
  'ticket',
  'file',
  'event',
  'report',
]
const SERVERS = ['github', 'slack', 'stripe', 'jira', 'drive', 'calendar', 'linear', 'notion']

/** A tool about the size of a typical MCP tool: a paragraph of description, three parameters. */
function tool(i, defer) {
  const server = SERVERS[i % SERVERS.length]
  const verb = VERBS[Math.floor(i / SERVERS.length) % VERBS.length]
  const noun = NOUNS[Math.floor(i / (SERVERS.length * VERBS.length)) % NOUNS.length]
  const name = `mcp__${server}__${verb}_${noun.replace(' ', '_')}_${i}`
  return buildTool({
    name,
    description: () => `${verb} a ${noun}`,
    prompt: () =>
      `${verb} a ${noun} in ${server}. Use this when the user asks to ${verb} a ${noun} in their ${server} ` +
      `workspace; for several at once call it once per ${noun}. The ${noun} is identified by its id (see the ` +
      `list tool). Returns the ${noun} as JSON with its id, title, state and timestamps. Fails with a message ` +
      `naming the field when the id is unknown or the caller lacks access.`,
    inputSchema: z.strictObject({
      id: z.string().describe(`The ${noun} id, as the list tool returns it`),
      workspace: z.string().describe(`The ${server} workspace or organisation`),
      note: z.string().optional().describe(`A note recorded with the change, shown in the ${noun} history`),
    }),
    shouldDefer: defer,
    async call() {
      return 'ok'
    },
  })
}

function registry(n) {
  return Array.from({ length: n }, (_, i) => tool(i, i >= 10))
}

const tokens = (text) => Math.ceil(text.length / 4)

/** What one request carries, and what of it the model holds in context (deferred definitions are not). */
function measure(tools, deferral) {
  const kernel = createKernel({ tools, deferral: { mode: deferral } })
  const anthropic = kernel.apiTools({ format: 'anthropic' })
  const chat = JSON.stringify(kernel.apiTools({ format: 'openai-chat' }))
  const inContext = JSON.stringify(anthropic.filter((t) => t.defer_loading !== true))
  const names = anthropic
    .filter((t) => t.defer_loading === true)
    .map((t) => t.name)
    .join(',')
  return {
    anthropicBytes: Buffer.byteLength(JSON.stringify(anthropic)),
    contextTokens: tokens(inContext) + tokens(names),
    chatBytes: Buffer.byteLength(chat),
    chatTokens: tokens(chat),
    deferred: anthropic.filter((t) => t.defer_loading === true).length,
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]
}

function time(fn, rounds) {
  const samples = []
  for (let r = 0; r < rounds; r++) {
    const start = performance.now()
    fn()
    samples.push(performance.now() - start)
  }
  return median(samples)
}

const rows = []
for (const n of [50, 200, 1000]) {
  const tools = registry(n)
  const full = measure(tools, 'never')
  const auto = measure(tools, 'auto')
  const always = measure(tools, 'always')
  rows.push({ n, full, auto, always })
}

const big = registry(1000)
const docs = big.map(searchDocument)
const build = time(() => new Bm25Index(docs), 15)
const queries = [
  'create github issue',
  'send slack message',
  '+stripe invoice refund',
  'delete ticket',
  'export report drive',
]
const index = new Bm25Index(docs)
const search =
  time(() => {
    for (let k = 0; k < 100; k++) index.search(queries[k % queries.length], { limit: 5 })
  }, 15) / 100
const select =
  time(() => {
    for (let k = 0; k < 100; k++) searchTools(big, `select:${big[k].name},${big[k + 1].name}`)
  }, 15) / 100

const pct = (a, b) => `${(100 * (1 - a / b)).toFixed(1)} %`
const line = (n, label, m, base) =>
  `| ${n} | ${label} | ${m.deferred} | ${m.anthropicBytes.toLocaleString('en')} | ${m.contextTokens.toLocaleString('en')} | ${pct(m.contextTokens, base.contextTokens)} | ${m.chatBytes.toLocaleString('en')} | ${m.chatTokens.toLocaleString('en')} | ${pct(m.chatBytes, base.chatBytes)} |`

const md = `# Tool pool benchmark

Command: \`npm run build && node bench/pool.mjs\` — ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.

Synthetic registries: 10 tools sent in full plus deferrable ones (\`shouldDefer\`), each about the size of a
typical MCP tool (a paragraph of description, three parameters). Tokens are estimated at 4 characters
per token. "In context" is what the model holds with Anthropic's \`defer_loading\`: the definitions sent in
full plus the deferred tools' names (the request itself still carries the deferred definitions).
OpenAI Chat has no deferral: deferred tools are left out of the request until loaded.

| tools | deferral | deferred | Anthropic bytes | in context (tokens) | saved | Chat bytes | Chat tokens | saved |
|---|---|---|---|---|---|---|---|---|
${rows.flatMap(({ n, full, auto, always }) => [line(n, 'none', full, full), line(n, 'auto', auto, full), line(n, 'always', always, full)]).join('\n')}

The automatic threshold (10 % of a 200,000-token context, or more than 100 deferrable tools) keeps 50 tools
in full (${rows[0].auto.deferred} deferred) and defers from 200 on.

BM25 over 1,000 tools (name parts, hint, description, parameters): index build ${build.toFixed(2)} ms (median of 15);
a keyword search ${(search * 1000).toFixed(1)} µs; a \`select:\` of two names ${(select * 1000).toFixed(1)} µs.
`
writeFileSync(OUT, md)
console.log(md)
const thousand = rows[2]
if (
  1 - thousand.always.contextTokens / thousand.full.contextTokens < 0.9 ||
  1 - thousand.auto.chatBytes / thousand.full.chatBytes < 0.9
) {
  console.error('1,000 tools shrank by less than 90 %')
  process.exitCode = 1
}
