/**
 * The validate step alone, through a kernel: a deferred tool's own validateInput rejection gets
 * the `select:` hint only on the call that loaded the tool, a validator that throws is said so,
 * and a tool the mode leaves out is refused at validate as disabled.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import { assistant, Echo, gate, testKernel } from '../../helpers.js'

const deferring = { deferral: { mode: 'always' as const } }

const Picky = buildTool({
  name: 'Picky',
  description: () => 'Takes a non-negative n.',
  inputSchema: z.strictObject({ n: z.number() }),
  shouldDefer: true,
  validateInput: ({ n }) => (n >= 0 ? { result: true } : { result: false, message: 'n must not be negative' }),
  call: async ({ n }) => `n=${n}`,
})

const HINT =
  'Picky is a deferred tool and had not been loaded, so its full schema was not in your tool list. It is loaded ' +
  'now; to see its schema first, call ToolSearch with query "select:Picky", then send the call again with input ' +
  'that matches it.'

const text = (block: { content?: unknown } | undefined) => String(block?.content)

describe('validateInput on a deferred tool', () => {
  it('the call that loaded it is told how to see its schema; a later call in the same turn is not', async () => {
    const kernel = testKernel([Picky], deferring)
    const { message } = await kernel.runTurn(assistant(['c1', 'Picky', { n: -1 }], ['c2', 'Picky', { n: -2 }]))
    expect(text(message.content[0])).toMatch(/n must not be negative/)
    expect(text(message.content[0]).endsWith(`\n\n${HINT}</tool_use_error>`)).toBe(true)
    expect(text(message.content[1])).toMatch(/n must not be negative/)
    expect(text(message.content[1])).not.toContain('deferred tool')
  })

  it('nor is a call in a later turn', async () => {
    const kernel = testKernel([Picky], deferring)
    await kernel.runTurn(assistant(['c1', 'Picky', { n: 1 }]))
    const { message } = await kernel.runTurn(assistant(['c2', 'Picky', { n: -1 }]))
    expect(text(message.content[0])).toMatch(/n must not be negative/)
    expect(text(message.content[0])).not.toContain('deferred tool')
  })
})

describe('validateInput on a deferred tool, answering later', () => {
  it('events of other calls and of another turn logged meanwhile do not hide that this call loaded it', async () => {
    const validating = gate()
    const answer = gate()
    const Slow = buildTool({
      name: 'Picky',
      description: () => 'Takes a non-negative n, after a while.',
      inputSchema: z.strictObject({ n: z.number() }),
      shouldDefer: true,
      isConcurrencySafe: () => true,
      validateInput: async ({ n }) => {
        validating.open()
        await answer.opened
        return n >= 0 ? { result: true } : { result: false, message: 'n must not be negative' }
      },
      call: async ({ n }) => `n=${n}`,
    })
    const kernel = testKernel([Slow, Echo], deferring)
    const turn = kernel.runTurn(assistant(['p1', 'Picky', { n: -1 }], ['e1', 'Echo', { text: 'beside' }]))
    await validating.opened
    await kernel.runTurn(assistant(['e2', 'Echo', { text: 'another turn' }]))
    answer.open()
    const { message } = await turn
    expect(text(message.content[0]).endsWith(`\n\n${HINT}</tool_use_error>`)).toBe(true)
  })

  it('a validator that throws: the call is refused, saying so', async () => {
    const Broken = buildTool({
      name: 'Broken',
      description: () => 'b',
      inputSchema: z.object({}),
      validateInput: () => {
        throw new Error('no database')
      },
      call: async () => 'ran',
    })
    const { message } = await testKernel([Broken]).runTurn(assistant(['b', 'Broken', {}]))
    expect(message.content[0]?.is_error).toBe(true)
    expect(text(message.content[0])).toContain('its validator failed (no database)')
  })
})

describe('a tool the mode leaves out', () => {
  it('is refused at validate, as disabled', async () => {
    const PlanOnly = buildTool({
      name: 'ExitPlan',
      description: () => 'p',
      inputSchema: z.object({}),
      modes: ['plan'],
      call: async () => 'ran',
    })
    const { events } = await testKernel([Echo, PlanOnly]).runTurn(assistant(['p', 'ExitPlan', {}]))
    expect(events.find((e) => e.type === 'tool.rejected')).toMatchObject({
      step: 'validate',
      code: 'tool_disabled',
      message:
        'ExitPlan is not available in default mode, so the call did not run. Use one of the tools you were given, ' +
        'or ask the user to switch modes.',
    })
  })
})

describe('an input schema that throws instead of answering', () => {
  // zod runs a refinement's code inside safeParse: one that throws, or an async one under a
  // synchronous parse, throws out of safeParse. It is the tool's code failing, not the input.
  const Throwing = buildTool({
    name: 'Throwing',
    description: () => 't',
    inputSchema: z.object({ a: z.string() }).refine((v) => {
      if (v.a === 'boom') throw new Error('refine boom')
      return true
    }),
    isConcurrencySafe: () => true,
    call: async () => 'ran',
  })
  const Async = buildTool({
    name: 'Async',
    description: () => 'a',
    inputSchema: z.object({ a: z.string() }).refine(async () => true),
    call: async () => 'ran',
  })

  it('the call is refused at validate saying so; its siblings run and every call has its result', async () => {
    const { events, message } = await testKernel([Throwing, Echo, Async]).runTurn(
      assistant(['t', 'Throwing', { a: 'boom' }], ['e', 'Echo', { text: 'x' }], ['s', 'Async', { a: 'x' }]),
    )
    expect(message.content.map((b) => [b.tool_use_id, b.is_error === true])).toEqual([
      ['t', true],
      ['e', false],
      ['s', true],
    ])
    expect(text(message.content[0])).toBe(
      '<tool_use_error>Throwing could not check its input: its input schema threw (refine boom), so the call did not run.</tool_use_error>',
    )
    expect(text(message.content[2])).toContain('Async could not check its input: its input schema threw (')
    expect(events.filter((e) => e.type === 'tool.rejected').map((e) => [e.toolUseId, e.step])).toEqual([
      ['t', 'validate'],
      ['s', 'validate'],
    ])
    expect(events.some((e) => e.type === 'tool.started' && e.toolUseId !== 'e')).toBe(false)
  })

  it('input a hook rewrote into one the schema throws on is refused at the hook step, and does not run', async () => {
    const hooks = {
      PreToolUse: [{ hooks: [{ type: 'function' as const, name: 'rw', fn: () => ({ updatedInput: { a: 'boom' } }) }] }],
    }
    const { events, message } = await testKernel([Throwing], { hooks }).runTurn(
      assistant(['t', 'Throwing', { a: 'fine' }]),
    )
    expect(events.find((e) => e.type === 'tool.rejected')).toMatchObject({ step: 'preHook' })
    expect(text(message.content[0])).toContain('its input schema threw (refine boom)')
    expect(events.some((e) => e.type === 'tool.started')).toBe(false)
  })
})
