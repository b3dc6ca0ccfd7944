/** examples/ai-sdk/agent.ts runs as documented: against the loopback model API, on a temp project. */
import { describe, expect, it } from 'vitest'
import { agent, streamingAgent } from '../../examples/ai-sdk/agent.js'
import { startModelApi } from '../model-api/server.js'
import { loopbackModel } from './loopback-model.js'
import { expectLoopDone, makeProject, threeTurns } from './scenario.js'

describe('examples/ai-sdk/agent.ts', () => {
  for (const [name, run] of [
    ['agent (generateText)', agent],
    ['streamingAgent (streamText)', streamingAgent],
  ] as const) {
    it(`${name}: the three-turn loop edits the project and ends`, async () => {
      const project = makeProject()
      const api = await startModelApi({ turns: threeTurns(project) })
      try {
        const messages = await run(loopbackModel(api.openaiURL), project.dir, 'Make greet say hello.')
        expectLoopDone(project, api, (i) => JSON.stringify((api.requests[i]?.body.messages as unknown[]).slice(-3)))
        expect(messages.at(-1)).toMatchObject({ role: 'assistant' })
      } finally {
        await api.close()
        project.cleanup()
      }
    })
  }
})
