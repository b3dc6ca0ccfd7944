/** Deterministic tools for the golden logs: what those logs were recorded with, and replay with. */
import { z } from 'zod'
import { buildTool } from '../../src/index.js'

export const Lookup = buildTool({
  name: 'Lookup',
  description: () => 'Looks a key up.',
  inputSchema: z.object({ key: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async ({ key }) => `value of ${key}`,
})

export const Slow = buildTool({
  name: 'Slow',
  description: () => 'Reports progress, then waits until released or interrupted.',
  inputSchema: z.object({ steps: z.number().int() }),
  isConcurrencySafe: () => true,
  interruptBehavior: () => 'cancel',
  async *call({ steps }, ctx) {
    for (let i = 1; i <= steps; i++) yield `step ${i}\n`
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
    return 'never'
  },
})

export const Writer = buildTool({
  name: 'Writer',
  description: () => 'Writes a note.',
  inputSchema: z.object({ note: z.string() }),
  isDestructive: () => true,
  getPath: () => '/notes/today.md',
  call: async ({ note }) => `wrote ${note.length} characters`,
})

export const Big = buildTool({
  name: 'Big',
  description: () => 'Prints a lot.',
  inputSchema: z.object({ lines: z.number().int() }),
  isConcurrencySafe: () => true,
  maxResultSizeChars: 1000,
  call: async ({ lines }) => Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join('\n'),
})

export const Broken = buildTool({
  name: 'Broken',
  description: () => 'Always fails.',
  inputSchema: z.object({}),
  call: async () => {
    throw new Error('disk on fire')
  },
})

export const goldenTools = [Lookup, Slow, Writer, Big, Broken]
