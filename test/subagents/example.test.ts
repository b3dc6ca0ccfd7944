/** examples/subagents/explore.ts runs as documented: against the loopback model API, on a temp project. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { explore } from '../../examples/subagents/explore.js'
import { projectMessages } from '../../src/index.js'
import { startModelApi, type ModelApi } from '../model-api/server.js'
import { anthropicClient } from '../model-api/clients.js'

let api: ModelApi | undefined
let dir: string | undefined
afterEach(async () => {
  await api?.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

describe('examples/subagents/explore.ts', () => {
  it('the main model asks the explorer, which reads a real file; the report comes back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolkernel-explore-'))
    const file = join(dir, 'retry.ts')
    writeFileSync(file, 'export const RETRIES = 3\n')
    api = await startModelApi({
      turns: [
        // The main model delegates…
        {
          calls: [
            {
              name: 'Agent',
              input: { description: 'Find retries', prompt: 'Where is RETRIES?', subagent_type: 'explorer' },
            },
          ],
        },
        // …the explorer reads the file, then reports…
        { calls: [{ name: 'Read', input: { file_path: file } }] },
        { text: 'RETRIES is 3, in retry.ts line 1.' },
        // …and the main model answers.
        { text: 'Three retries (retry.ts:1).' },
      ],
    })
    const client = anthropicClient(api)
    const { answer, kernel } = await explore(client, dir, 'How many retries?')
    expect(answer).toBe('Three retries (retry.ts:1).')
    expect(api.rejected()).toEqual([])
    // The explorer was offered its three tools only, and read the file.
    const child = api.requests[1]?.body as { tools: Array<{ name: string }>; system: string }
    expect(child.tools.map((t) => t.name)).toEqual(['Read', 'Glob', 'Grep'])
    expect(child.system).toContain('You explore a code base')
    const log = kernel.log.read()
    const read = log.find((e) => e.type === 'tool.completed' && e.parentToolUseId !== undefined)
    expect(JSON.stringify(read?.type === 'tool.completed' ? read.output : '')).toContain('RETRIES = 3')
    // The main conversation saw the report as the Agent call's result, and nothing of the child.
    const [first] = projectMessages(log)
    expect(first?.content[0]?.content).toBe('RETRIES is 3, in retry.ts line 1.')
  })
})
