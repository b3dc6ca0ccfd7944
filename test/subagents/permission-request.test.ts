/**
 * A subagent's permission request says which parent call it runs under (`parentToolUseId`), so an
 * app's prompt can show "the subagent of call X wants to deploy"; a top-level call's request has
 * no such field (README §Permissions, docs/subagents.md).
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createKernel,
  type ChildOptions,
  type ChildSession,
  type PermissionRequest,
} from '../../src/index.js'

const schema = z.object({ what: z.string() })
const Deploy = buildTool({
  name: 'Deploy',
  description: () => 'Deploys.',
  inputSchema: schema,
  checkPermissions: () => ({ behavior: 'ask', message: 'deploys need a person' }),
  call: async ({ what }) => `deployed ${what}`,
})

const use = (id: string, name: string, input: Record<string, unknown>) => ({
  type: 'tool_use' as const,
  id,
  name,
  input,
})

describe("a subagent's permission request", () => {
  it('carries the parent call it runs under; a top-level call has none', async () => {
    const childResults: unknown[] = []
    const Spawn = buildTool({
      name: 'Spawn',
      description: () => 'Runs a child.',
      inputSchema: z.object({}),
      async call(_input, context) {
        const child = (context.runChild as (o: ChildOptions) => ChildSession)({ tools: ['Deploy'] })
        const turn = await child.runTurn({
          role: 'assistant',
          stop_reason: 'tool_use',
          content: [use('d-child', 'Deploy', { what: 'from the child' })],
        })
        childResults.push(...turn.message.content)
        return 'spawned'
      },
    })
    const requests: PermissionRequest[] = []
    const kernel = createKernel({
      tools: [Deploy, Spawn],
      permissions: { allow: ['Spawn'] },
      canUseTool: (request) => {
        requests.push(request)
        return { behavior: 'allow' }
      },
    })
    const { message } = await kernel.runTurn({
      role: 'assistant',
      content: [use('d-top', 'Deploy', { what: 'from the top' }), use('spawn', 'Spawn', {})],
    })
    expect(message.content.map((block) => block.is_error === true)).toEqual([false, false])
    expect(childResults).toMatchObject([{ tool_use_id: 'd-child', content: 'deployed from the child' }])

    const byCall = new Map(requests.map((request) => [request.toolUseId, request]))
    expect([...byCall.keys()].sort()).toEqual(['d-child', 'd-top'])
    expect(byCall.get('d-child')).toMatchObject({ tool: 'Deploy', parentToolUseId: 'spawn' })
    expect(byCall.get('d-top')).not.toHaveProperty('parentToolUseId')
  })
})
