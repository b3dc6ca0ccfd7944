/**
 * Progress typed per tool (decision 144): `turn.updates()` of a kernel whose tools are known
 * statically yields progress data of their union; with tool sources (MCP) it is `unknown`.
 * Checked by the project's tsc; a regression is a type error here.
 */
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  Bash,
  createAgentTool,
  createKernel,
  Read,
  type KernelProgress,
  type KernelProgressByName,
  type ToolProgress,
  type ProgressOf,
  type ToolsProgress,
  type TurnUpdate,
} from '../../src/index.js'
import type { ToolSource } from '../../src/tools/tool-source.types.js'

const Download = buildTool({
  name: 'Download',
  description: () => 'Downloads.',
  inputSchema: z.strictObject({ url: z.string() }),
  async *call() {
    yield { bytes: 1 }
    return 'done'
  },
})
const Count = buildTool({
  name: 'Count',
  description: () => 'Counts.',
  inputSchema: z.strictObject({}),
  async *call() {
    yield 1
    return 2
  },
})

describe('typed progress', () => {
  it("a tool's progress is its P; a list's is the union", () => {
    expectTypeOf<ProgressOf<typeof Download>>().toEqualTypeOf<{ bytes: number }>()
    expectTypeOf<ToolsProgress<[typeof Download, typeof Count]>>().toEqualTypeOf<{ bytes: number } | number>()
  })

  it("the kernel's updates carry its tools' progress", () => {
    const kernel = createKernel({ tools: [Download, Count] })
    type Updates = ReturnType<ReturnType<typeof kernel.startTurn>['updates']>
    expectTypeOf<Updates>().toEqualTypeOf<
      AsyncIterable<TurnUpdate<ToolProgress<'Download', { bytes: number }> | ToolProgress<'Count', number>>>
    >()
    // Still what it was before progress was keyed by tool: code typed against the data union compiles.
    expectTypeOf<Updates>().toMatchTypeOf<AsyncIterable<TurnUpdate<{ bytes: number } | number>>>()
    const narrow = (update: TurnUpdate<{ bytes: number } | number>): number =>
      update.type === 'progress' ? (typeof update.data === 'number' ? update.data : update.data.bytes) : 0
    expectTypeOf(narrow).returns.toBeNumber()
  })

  it('tools from sources make it unknown: no type knows an MCP server’s progress', () => {
    type WithSources = KernelProgress<{ tools: [typeof Count]; toolSources: readonly ToolSource[] }>
    expectTypeOf<WithSources>().toBeUnknown()
    // Untyped tool lists (a registry of Tool) stay as loose as before.
    expectTypeOf<KernelProgress<{ tools: readonly (typeof Count)[] }>>().toEqualTypeOf<number>()
  })

  it("a progress update's tool narrows its data (decision 173)", () => {
    const kernel = createKernel({ tools: [Download, Count, Read, Bash] })
    type Update = ReturnType<typeof kernel.startTurn> extends { updates(): AsyncIterable<infer U> } ? U : never
    const seen = (u: Update): number => {
      if (u.type !== 'progress') return 0
      // Before narrowing: the union of every tool's data.
      expectTypeOf(u.tool).toEqualTypeOf<'Download' | 'Count' | 'Read' | 'Bash'>()
      if (u.tool === 'Download') {
        expectTypeOf(u.data).toEqualTypeOf<{ bytes: number }>()
        return u.data.bytes
      }
      if (u.tool === 'Bash') {
        expectTypeOf(u.data).toEqualTypeOf<string>()
        return u.data.length
      }
      if (u.tool === 'Count') {
        expectTypeOf(u.data).toEqualTypeOf<number>()
        return u.data
      }
      return 0
    }
    expectTypeOf(seen).returns.toBeNumber()
    expectTypeOf<KernelProgressByName<{ tools: [typeof Count] }>>().toEqualTypeOf<ToolProgress<'Count', number>>()
    // The Agent tool reports a line of text per step.
    const agent = createAgentTool({ model: async () => ({ content: [], stop_reason: 'end_turn' }) })
    expectTypeOf<KernelProgressByName<{ tools: [typeof agent] }>>().toEqualTypeOf<ToolProgress<'Agent', string>>()
  })

  it('a plain data type and unknown stay as they were: tool is a string, data the type given', () => {
    type Plain = Extract<TurnUpdate<string>, { type: 'progress' }>
    expectTypeOf<Plain>().toEqualTypeOf<{ type: 'progress'; toolUseId: string; tool: string; data: string }>()
    expectTypeOf<Extract<TurnUpdate, { type: 'progress' }>['data']>().toBeUnknown()
    // A list typed only as Tool[] (builtinTools) has no names to key by: tool is a string.
    expectTypeOf<
      Extract<TurnUpdate<KernelProgressByName<{ tools: readonly (typeof Count)[] }>>, { type: 'progress' }>['tool']
    >().toEqualTypeOf<'Count'>()
  })
})
