/**
 * Descriptions that read the context and may be async (decision 153) type-check through
 * `buildTool` with no cast, and a zero-argument sync one is what it always was. Checked by the
 * project's tsc; a regression is a type error here.
 */
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createKernel, type DescribeContext, type Tool, type ToolDef } from '../../src/index.js'

describe('the description contract', () => {
  it('takes an async description and prompt that read the context', () => {
    const Query = buildTool({
      name: 'Query',
      description: async ({ mode }) => `Runs a query${mode === 'plan' ? ' (read-only now)' : ''}.`,
      async prompt(context) {
        expectTypeOf(context).toEqualTypeOf<DescribeContext>()
        expectTypeOf(context.tools).toEqualTypeOf<readonly string[]>()
        return `Runs SQL. Other tools: ${context.tools.join(', ')}; cwd ${context.cwd}.`
      },
      inputSchema: z.strictObject({ sql: z.string() }),
      call: async ({ sql }) => sql.length,
    })
    expectTypeOf(Query).toExtend<Tool>()
    expectTypeOf(Query.prompt).returns.toEqualTypeOf<string | Promise<string>>()
    createKernel({ tools: [Query] })
  })

  it('keeps a zero-argument sync description as it was', () => {
    const def: ToolDef<{ text: string }> = {
      name: 'Echo',
      description: () => 'Echoes.',
      prompt: () => 'Echoes its text.',
      inputSchema: z.strictObject({ text: z.string() }),
      call: async ({ text }) => text,
    }
    expectTypeOf(buildTool(def)).toExtend<Tool>()
    // @ts-expect-error a description answers a string (or a promise of one), nothing else
    buildTool({ ...def, description: () => 42 })
  })
})
