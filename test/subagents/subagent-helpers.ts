/** What the subagent tests share: the Agent tool's model port over the loopback API, a tool that runs until stopped. */
import Anthropic from '@anthropic-ai/sdk'
import { z } from 'zod'
import { buildTool, type AgentModel, type Tool } from '../../src/index.js'

/** The model port over the loopback API at `url`: `messages.create`, or `messages.stream` when `streaming`. */
export function loopbackAgentModel(url: string, streaming = false): AgentModel {
  const client = new Anthropic({ baseURL: url, apiKey: 'test' })
  return ({ system, messages, tools, signal }) => {
    const body = {
      model: 'claude-haiku-4-5',
      max_tokens: 1024,
      system,
      messages: messages as Anthropic.MessageParam[],
      tools: tools as Anthropic.Tool[],
    }
    return streaming ? client.messages.stream(body, { signal }) : client.messages.create(body, { signal })
  }
}

/** A tool that runs until its call is stopped, and says when it has started. */
export function holdTool(): { hold: Tool; started: Promise<void> } {
  let resolveStarted = (): void => undefined
  const started = new Promise<void>((resolve) => (resolveStarted = resolve))
  const hold = buildTool({
    name: 'Hold',
    description: () => 'Runs until stopped.',
    inputSchema: z.object({}),
    interruptBehavior: () => 'cancel',
    call: (_input, { signal }) => {
      resolveStarted()
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped'))))
    },
  })
  return { hold, started }
}
