/**
 * The budget step alone, through a kernel with an in-memory result store: what the preview keeps
 * of the oversize block (its error flag), and that the preview itself takes room in the message.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { assistant, testKernel } from '../../helpers.js'

/** A result store that keeps what it is given, at a path per call. */
function memoryResults() {
  const saved = new Map<string, string>()
  return {
    saved,
    save: async ({ toolUseId }: { toolUseId: string }, text: string) => (
      saved.set(toolUseId, text),
      `/r/${toolUseId}.txt`
    ),
  }
}

const text = (block: { content?: unknown } | undefined) => String(block?.content)

describe('the budget step', () => {
  it('an oversize error result is still an error once it is a preview', async () => {
    const Fail = buildTool({
      name: 'Fail',
      description: () => 'f',
      inputSchema: z.object({}),
      maxResultSizeChars: 100,
      call: async () => 'e'.repeat(500),
      mapToolResultToToolResultBlockParam: (output, toolUseId) => ({
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: output,
        is_error: true,
      }),
    })
    const results = memoryResults()
    const { message } = await testKernel([Fail], { results }).runTurn(assistant(['f', 'Fail', {}]))
    expect(message.content[0]?.is_error).toBe(true)
    expect(text(message.content[0])).toMatch(
      /^Output too large to show whole \(500 characters, 1 lines\); the full output is saved to \/r\/f\.txt/,
    )
    expect(results.saved.get('f')).toBe('e'.repeat(500))
  })

  it('an oversize result that is not an error is not made one', async () => {
    const Big = buildTool({
      name: 'Big',
      description: () => 'b',
      inputSchema: z.object({}),
      maxResultSizeChars: 100,
      call: async () => 'b'.repeat(500),
    })
    const { message } = await testKernel([Big], { results: memoryResults() }).runTurn(assistant(['b', 'Big', {}]))
    expect(message.content[0]?.is_error).toBeUndefined()
  })

  it("the preview takes room in the turn's message: a later result that no longer fits is persisted too", async () => {
    const Big = buildTool({
      name: 'Big',
      description: () => 'b',
      inputSchema: z.object({}),
      maxResultSizeChars: 100,
      call: async () => 'b'.repeat(10_000),
    })
    const Mid = buildTool({
      name: 'Mid',
      description: () => 'm',
      inputSchema: z.object({}),
      call: async () => 'm'.repeat(2_000),
    })
    const results = memoryResults()
    // Big's preview is some 4,200 characters of the 5,000; Mid's 2,000 no longer fit beside it.
    const kernel = testKernel([Big, Mid], { results, messageBudgetChars: 5_000 })
    const { message } = await kernel.runTurn(assistant(['b', 'Big', {}], ['m', 'Mid', {}]))
    expect(text(message.content[0]).length).toBeGreaterThan(4_000)
    expect(text(message.content[0]).length).toBeLessThan(5_000)
    expect([...results.saved.keys()]).toEqual(['b', 'm'])
    expect(text(message.content[1])).toMatch(/^Output too large to show whole \(2000 characters/)
    // …and Mid's preview shows only what the message has left room for (some 700 characters)
    expect(text(message.content[1]).length).toBeLessThan(1_000)
  })
})
