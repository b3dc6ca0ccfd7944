/**
 * Hook results combine the same way whatever order the hooks finish in: a property over random
 * outcomes and, through the kernel, random completion orders of real in-process hooks.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { combineHookResults, type HookResult } from '../../src/hooks/combine.js'
import { buildTool, type HookOutput } from '../../src/index.js'
import { assistant, testKernel } from '../helpers.js'
import { runs } from '../runs.js'

const resultArb = fc.record({
  outcome: fc.constantFrom('continue', 'block', 'error'),
  decision: fc.option(fc.constantFrom('allow', 'deny', 'ask'), { nil: undefined }),
  reason: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
  updatedInput: fc.option(fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.integer()), { nil: undefined }),
  additionalContext: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
})

function withLabels(list: ReadonlyArray<Partial<HookResult>>): HookResult[] {
  return list.map((r, order) => {
    const result: HookResult = { label: `hook ${order}`, order, outcome: r.outcome ?? 'continue' }
    for (const key of ['decision', 'reason', 'updatedInput', 'additionalContext'] as const)
      if (r[key] !== undefined) (result as unknown as Record<string, unknown>)[key] = r[key]
    return result
  })
}

describe('hook combination', () => {
  it('is the same for every finishing order, and deny beats ask beats allow', () => {
    fc.assert(
      fc.property(fc.array(resultArb, { maxLength: 6 }), fc.func(fc.integer()), (raw, shuffleKey) => {
        const results = withLabels(raw as never)
        const shuffled = [...results].sort((a, b) => shuffleKey(a.order) - shuffleKey(b.order))
        const combined = combineHookResults(shuffled, 'pre')
        expect(combined).toEqual(combineHookResults(results, 'pre'))
        const denies = results.some((r) => r.outcome === 'block' || r.decision === 'deny')
        const asks = results.some((r) => r.decision === 'ask')
        const allows = results.some((r) => r.decision === 'allow')
        expect(combined.outcome).toBe(denies ? 'block' : 'continue')
        expect(combined.decision).toBe(denies ? 'deny' : asks ? 'ask' : allows ? 'allow' : undefined)
        if (!denies) {
          const rewrites = results.map((r) => r.updatedInput).filter((u) => u !== undefined)
          expect(combined.updatedInput).toEqual(rewrites.length > 0 ? Object.assign({}, ...rewrites) : undefined)
        }
      }),
      { numRuns: runs(300) },
    )
  })

  it('through the kernel: parallel in-process hooks finishing in any order give the same decision', async () => {
    const Target = buildTool({
      name: 'Target',
      description: () => 't',
      inputSchema: z.object({}),
      checkPermissions: () => ({ behavior: 'allow' }),
      call: async () => 'ran',
    })
    const outputArb = fc.constantFrom<HookOutput | undefined>(
      undefined,
      { hookSpecificOutput: { permissionDecision: 'allow' } },
      { hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'check' } },
      { hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'no' } },
    )
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(outputArb, { minLength: 1, maxLength: 5 }), async (s, outputs) => {
        const hooks = outputs.map((output, i) => ({
          type: 'function' as const,
          name: `h${i}`,
          fn: () => s.schedule(Promise.resolve(output), `hook ${i}`),
        }))
        const kernel = testKernel([Target], {
          hooks: { PreToolUse: [{ hooks }] },
          canUseTool: () => ({ behavior: 'deny', message: 'asked' }),
        })
        const { message } = await s.waitFor(kernel.runTurn(assistant(['t', 'Target', {}])))
        const decisions = outputs.map((o) => o?.hookSpecificOutput?.permissionDecision)
        const expected = decisions.includes('deny')
          ? /hook blocked this Target call: no/
          : decisions.includes('ask')
            ? /denied: asked/
            : /^ran$/
        expect(String(message.content[0]?.content)).toMatch(expected)
      }),
      { numRuns: runs(200) },
    )
  })
})
