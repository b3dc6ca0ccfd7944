/**
 * The timeline model's edges: what each of a call's events puts into its detail (and what an
 * absent field leaves alone), results made of content parts, stray events, and the cap's boundary.
 */
import { describe, expect, it } from 'vitest'
import { toolResultBlock, type KernelEventInput, type ToolResultBlock } from '../../src/events/event.schema.js'
import {
  capped,
  MAX_EMBEDDED_CHARS,
  projectTimelineModel,
  type TimelineCall,
} from '../../src/projections/timeline-model.projection.js'
import { requested, stamp } from './events.js'

const T = 'T'
/** A call event for call `id` of turn T; the fields are checked where the test reads them. */
const ev = (input: Record<string, unknown> & { type: string }, id = 'c') =>
  ({ turnId: T, toolUseId: id, ...input }) as KernelEventInput
/** The one call of a log that starts with its tool.requested. */
const callOf = (...inputs: KernelEventInput[]): TimelineCall => {
  const calls = projectTimelineModel(stamp(requested(T, 'c', 0, 'Echo'), ...inputs)).calls
  expect(calls).toHaveLength(1)
  return calls[0]!
}
const resultOf = (content: ToolResultBlock['content']): string | null =>
  callOf(ev({ type: 'tool.result', outcome: 'success', block: toolResultBlock('c', content, false) })).result

describe('projectTimelineModel: what each event of a call records', () => {
  // The scheduler's verdict is what the detail shows as "safe" and why it was not; absent means null, not undefined
  // (the page's JSON would otherwise drop the key).
  it.each([
    ['exclusive, with its reason', { safe: false, reason: 'unknown tool' }, [false, 'unknown tool']],
    ['concurrency-safe, no reason', { safe: true }, [true, null]],
  ])('tool.queued: %s', (_, fields, expected) => {
    const call = callOf(ev({ type: 'tool.queued', ...fields }))
    expect([call.safe, call.queueReason]).toEqual(expected)
  })

  it('a call never queued keeps both null', () => {
    const call = callOf()
    expect([call.safe, call.queueReason]).toEqual([null, null])
  })

  // `resolved` names the real tool only when the model used an alias.
  it.each([
    ['the name the model wrote', 'Echo', null],
    ['an alias', 'RealEcho', 'RealEcho'],
  ])('tool.parsed to %s', (_, tool, resolved) => {
    expect(callOf(ev({ type: 'tool.parsed', tool })).resolved).toBe(resolved)
  })

  it('a call never parsed has no resolved tool', () => {
    expect(callOf().resolved).toBeNull()
  })

  // The input the tool got: the latest rewrite wins, and an event without a rewrite keeps the earlier one.
  it.each<[string, KernelEventInput[], unknown]>([
    ['no rewrite at all', [ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue' })], undefined],
    [
      'a pre-hook rewrite, kept through a permission and a post-hook that rewrote nothing',
      [
        ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue', updatedInput: { by: 'hook' } }),
        ev({ type: 'tool.permitted', behavior: 'allow', source: 'rule' }),
        ev({ type: 'tool.hooked', phase: 'post', outcome: 'continue' }),
      ],
      { by: 'hook' },
    ],
    [
      'a user rewrite at the permission step, after the hook’s',
      [
        ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue', updatedInput: { by: 'hook' } }),
        ev({ type: 'tool.permitted', behavior: 'allow', source: 'user', updatedInput: { by: 'user' } }),
      ],
      { by: 'user' },
    ],
    [
      'a permission rewrite alone',
      [ev({ type: 'tool.permitted', behavior: 'allow', source: 'user', updatedInput: 'raw' })],
      'raw',
    ],
    ['a permission without a rewrite', [ev({ type: 'tool.permitted', behavior: 'allow', source: 'tool' })], undefined],
  ])('updatedInput: %s', (_, events, expected) => {
    expect(callOf(...events).updatedInput).toEqual(expected)
  })

  // The input could not be read: the detail says why; a readable input says nothing (null, not undefined).
  it.each([
    ['an unreadable input', 'Unexpected end of JSON input', 'Unexpected end of JSON input'],
    ['a readable input', undefined, null],
  ])('inputError of %s', (_, inputError, expected) => {
    const input = { ...requested(T, 'c', 0, 'Echo', '{"a":'), ...(inputError === undefined ? {} : { inputError }) }
    const call = projectTimelineModel(stamp(input as KernelEventInput)).calls[0]
    expect(call?.inputError).toBe(expected)
  })

  // The siblings a failure in a parallel batch stopped: the detail names them.
  it('tool.cascaded records the siblings it stopped', () => {
    expect(callOf(ev({ type: 'tool.cascaded', siblings: ['d', 'e'] })).cascaded).toEqual(['d', 'e'])
    expect(callOf().cascaded).toBeNull()
  })

  // An event whose call the log never requested (a log cut at the front, or merged) is left out, not a crash.
  it('ignores events of a call that was never requested', () => {
    const model = projectTimelineModel(
      stamp(
        requested(T, 'c', 0),
        ev({ type: 'tool.queued', safe: true }, 'ghost'),
        ev({ type: 'tool.errored', message: 'x' }, 'ghost'),
      ),
    )
    expect(model.calls.map((c) => [c.id, c.events.length, c.error])).toEqual([['c', 1, null]])
    expect(model.summary.events).toBe(3)
  })
})

describe('projectTimelineModel: a result made of content parts, as text', () => {
  // The detail shows what the model got: text as is, an image by its type and size, anything else as its JSON.
  it.each<[string, ToolResultBlock['content'], string]>([
    ['a string', 'plain', 'plain'],
    ['no parts', [], ''],
    ['one text part', [{ type: 'text', text: 'one' }], 'one'],
    [
      'text parts, one per line',
      [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      'a\nb',
    ],
    [
      'an image',
      [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } }],
      '[image image/png, 8 base64 characters]',
    ],
    [
      'a tool reference',
      [{ type: 'tool_reference', tool_name: 'mcp__x__y' }],
      '[{"type":"tool_reference","tool_name":"mcp__x__y"}]',
    ],
    [
      'all three',
      [
        { type: 'text', text: 'see' },
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '' } },
        { type: 'tool_reference', tool_name: 'Z' },
      ],
      'see\n[image image/jpeg, 0 base64 characters]\n[{"type":"tool_reference","tool_name":"Z"}]',
    ],
  ])('%s', (_, content, text) => {
    expect(resultOf(content)).toBe(text)
  })
})

describe('capped at its boundary', () => {
  // An object whose JSON is exactly the limit stays whole; one character more is cut.
  it('keeps an object whose JSON is exactly MAX_EMBEDDED_CHARS long', () => {
    const exact = { t: 'z'.repeat(MAX_EMBEDDED_CHARS - '{"t":""}'.length) }
    expect(JSON.stringify(exact)).toHaveLength(MAX_EMBEDDED_CHARS)
    expect(capped(exact)).toBe(exact)
    const over = { t: `${exact.t}z` }
    expect(capped(over)).toBe(
      `${JSON.stringify(over).slice(0, MAX_EMBEDDED_CHARS)}… (1 more characters; the log has them all)`,
    )
  })

  it.each([null, 0, true, 'short'])('keeps %j as it is', (value) => {
    expect(capped(value)).toBe(value)
  })
})
