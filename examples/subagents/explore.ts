/**
 * A subagent with the Anthropic SDK: the main model hands a search to an `explorer` subagent —
 * the same client, its own prompt, read-only tools and plan mode — and gets its report back,
 * while the subagent's calls land in the same log under the Agent call (docs/subagents.md).
 *
 * In an app the imports are `toolkernel` and `toolkernel/loop`; this file sits in the repo and
 * imports the sources. test/subagents/example.test.ts runs it against the loopback model API.
 * With the real API: `explore(new Anthropic(), process.cwd(), 'Where is the retry policy defined?')`.
 */
import type Anthropic from '@anthropic-ai/sdk'
import { builtinTools, createAgentTool, createKernel, type AgentModel, type Kernel } from '../../src/index.js'
import { anthropic, runLoop } from '../../src/loop/index.js'

const MODEL = 'claude-sonnet-4-5'

export async function explore(
  client: Anthropic,
  cwd: string,
  question: string,
): Promise<{ answer: string; kernel: Kernel }> {
  // The subagent's model: the conversation in, the assistant message out.
  const model: AgentModel = ({ system, messages, tools, signal }) =>
    client.messages.create(
      {
        model: MODEL,
        max_tokens: 4096,
        system,
        messages: messages as Anthropic.MessageParam[],
        tools: tools as Anthropic.Tool[],
      },
      { signal },
    )
  const Agent = createAgentTool({
    model,
    agents: {
      explorer: {
        description: 'Searches and reads the code base; changes nothing. Ask it where things are.',
        prompt: 'You explore a code base and answer with what you found, naming files and lines.',
        tools: ['Read', 'Glob', 'Grep'],
        rules: { mode: 'plan' },
        maxTurns: 10,
      },
    },
  })
  const kernel = createKernel({ tools: [...builtinTools, Agent], cwd, permissions: { mode: 'acceptEdits' } })
  const { messages } = await runLoop({
    model: anthropic(client, { model: MODEL, max_tokens: 4096 }),
    kernel,
    messages: [{ role: 'user', content: question }],
  })
  const last = messages.at(-1)
  const blocks = typeof last?.content === 'string' ? [{ type: 'text', text: last.content }] : (last?.content ?? [])
  const answer = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n')
  return { answer, kernel }
}
