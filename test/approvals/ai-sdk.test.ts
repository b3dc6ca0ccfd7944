/** The AI SDK adapter speaks durable approvals: tool-approval-request out, tool-approval-response in. */
import type { ModelMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../src/index.js'
import { answerToolApprovals, runToolCalls } from '../../src/ai-sdk/index.js'
import { testKernel } from '../helpers.js'

const ran: string[] = []
const Deploy = buildTool({
  name: 'Deploy',
  description: () => 'deploys',
  inputSchema: z.object({ target: z.string() }),
  isConcurrencySafe: () => true,
  checkPermissions: ({ target }) => ({ behavior: 'ask', message: `deploys to ${target}` }),
  call: async ({ target }) => {
    ran.push(target)
    return `deployed to ${target}`
  },
})
const step = {
  finishReason: 'tool-calls' as const,
  toolCalls: [
    { toolCallId: 'c1', toolName: 'Deploy', input: { target: 'staging' } },
    { toolCallId: 'c2', toolName: 'Deploy', input: { target: 'prod' } },
  ],
}

describe('the AI SDK adapter and calls that wait', () => {
  it('parked calls come back as approval requests; the responses answer them; then the tool message', async () => {
    ran.length = 0
    const kernel = testKernel([Deploy])
    const first = await runToolCalls(kernel, step)
    expect(first.messages).toEqual([])
    expect(first.approvals.map((a) => [a.type, a.toolCallId])).toEqual([
      ['tool-approval-request', 'c1'],
      ['tool-approval-request', 'c2'],
    ])
    expect(ran).toEqual([])
    const [staging, prod] = first.approvals
    const fromUi: ModelMessage[] = [
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: staging?.approvalId ?? '', approved: true },
          { type: 'tool-approval-response', approvalId: prod?.approvalId ?? '', approved: false, reason: 'not prod' },
        ],
      },
    ]
    const done = await answerToolApprovals(kernel, fromUi)
    expect(done.approvals).toEqual([])
    expect(ran).toEqual(['staging'])
    expect(done.messages).toHaveLength(1)
    const parts = done.messages[0]?.content ?? []
    expect(
      parts.map((p) => [p.type, 'toolCallId' in p ? p.toolCallId : '', 'toolName' in p ? p.toolName : '']),
    ).toEqual([
      ['tool-result', 'c1', 'Deploy'],
      ['tool-result', 'c2', 'Deploy'],
    ])
    expect(JSON.stringify(parts[1])).toMatch(/not prod/)
  })

  it('an approval id bound to other input is refused', async () => {
    const kernel = testKernel([Deploy])
    await runToolCalls(kernel, step)
    await expect(
      answerToolApprovals(kernel, [{ type: 'tool-approval-response', approvalId: 'c1#0000', approved: true }]),
    ).rejects.toThrow(/digest/)
  })
})
