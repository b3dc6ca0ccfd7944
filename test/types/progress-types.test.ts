/**
 * Progress typed per tool (decision 144): `turn.updates()` of a kernel whose tools are known
 * statically yields progress data of their union; with tool sources (MCP) it is `unknown`.
 * Checked by the project's tsc; a regression is a type error here.
 */
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createKernel,
  type KernelProgress,
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
    expectTypeOf<Updates>().toEqualTypeOf<AsyncIterable<TurnUpdate<{ bytes: number } | number>>>()
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
})
