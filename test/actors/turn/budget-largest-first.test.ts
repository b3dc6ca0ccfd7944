/**
 * The per-message budget persists the largest fresh results first, and still emits in tool_use
 * order (issue 31.3; docs/decisions/results.md, 154). Written first and watched fail while the
 * budget was claimed as results arrive (decision 16): the small result that arrives second was
 * persisted while the large one that arrived first stayed whole. Results that arrive together now
 * wait for each other and are decided together (budget-groups.ts).
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { assistant, gate, testKernel } from '../../helpers.js'

describe('the message budget', () => {
  it('persists the largest of the results that arrive together, and emits in tool_use order', async () => {
    const largeDone = gate()
    const Out = buildTool({
      name: 'Out',
      description: () => 'Prints chars characters.',
      inputSchema: z.strictObject({ chars: z.number() }),
      isConcurrencySafe: () => true,
      isReadOnly: () => true,
      async call({ chars }) {
        // The small one (first in tool_use order) returns only after the large one has.
        if (chars < 5_000) await largeDone.opened
        else setImmediate(largeDone.open)
        return 'x'.repeat(chars)
      },
    })
    const saved: string[] = []
    const results = { save: async ({ toolUseId }: { toolUseId: string }) => (saved.push(toolUseId), `/r/${toolUseId}`) }
    const kernel = testKernel([Out], { results, messageBudgetChars: 10_000 })
    const { message, events } = await kernel.runTurn(
      assistant(['small', 'Out', { chars: 3_000 }], ['large', 'Out', { chars: 8_000 }]),
    )
    expect(message.content.map((block) => block.tool_use_id)).toEqual(['small', 'large'])
    // Largest first: 8,000 + 3,000 overflow 10,000, so the 8,000 goes to the store, the 3,000 stays whole.
    expect(saved).toEqual(['large'])
    expect(message.content[0]?.content).toBe('x'.repeat(3_000))
    const persisted = events.flatMap((e) => (e.type === 'tool.completed' && e.persisted === true ? [e.toolUseId] : []))
    expect(persisted).toEqual(['large'])
  })
})
