/**
 * describeEvent's edges: the session's configuration, and each optional field absent or present
 * (an absent one adds nothing, never "undefined"), lists of several names joined by commas.
 */
import { describe, expect, it } from 'vitest'
import type { KernelEventInput } from '../../src/events/event.schema.js'
import { describeEvent } from '../../src/projections/timeline.projection.js'
import { stamp } from './events.js'

const T = 'T'
/** A call event of call c in turn T. */
const ev = (input: Record<string, unknown> & { type: string }) =>
  ({ turnId: T, toolUseId: 'c', ...input }) as KernelEventInput
const describeOne = (input: KernelEventInput): string => describeEvent(stamp(input)[0]!)

describe('describeEvent', () => {
  // The first line of every session: the version, how many tools, the mode and where it ran.
  it('session.configured', () => {
    const configured = {
      type: 'session.configured',
      turnId: T,
      toolkernel: '1.2.3',
      cwd: '/work',
      mode: 'default',
      rules: { allow: [], ask: [], deny: [] },
      limits: { maxConcurrency: 4, messageBudgetChars: 1000, progressLogChars: null },
      hooks: [],
      tools: ['Read', 'Bash'].map((name) => ({
        name,
        aliases: [],
        schema: '0123456789abcdef',
        interrupt: 'block',
        cascades: false,
        validates: true,
        maxResultSizeChars: null,
      })),
    } as KernelEventInput
    expect(describeOne(configured)).toBe('toolkernel 1.2.3, 2 tool(s), mode default, cwd /work')
  })

  // Each hook's answer: decision, reason and error each appear only when the hook gave them.
  it.each<[string, Record<string, unknown>, string]>([
    ['bare', {}, 'post-hook h: continue'],
    ['a decision', { decision: 'allow' }, 'post-hook h: continue (allow)'],
    ['a reason', { reason: 'fine' }, 'post-hook h: continue — fine'],
    ['an error', { outcome: 'error', error: 'spawn\nENOENT' }, 'post-hook h: error — spawn ENOENT'],
    [
      'all three',
      { outcome: 'error', decision: 'deny', reason: 'why', error: 'exit 3' },
      'post-hook h: error (deny) — why — exit 3',
    ],
  ])('hook.finished with %s', (_, fields, text) => {
    expect(describeOne(ev({ type: 'hook.finished', phase: 'post', hook: 'h', outcome: 'continue', ...fields }))).toBe(
      text,
    )
  })

  // Optional fields left out say nothing: no "undefined", no empty brackets.
  it.each<[string, KernelEventInput, string]>([
    [
      'a rule grant without its rule',
      ev({ type: 'permission.granted', tool: 'Bash', scope: 'rule' }),
      'granted for the session: ',
    ],
    ['a request with no input', ev({ type: 'tool.requested', index: 0, name: 'Echo' }), '#0 Echo undefined'],
    ['an exclusive queueing with no reason', ev({ type: 'tool.queued', safe: false }), 'queued, exclusive'],
    [
      'a hook verdict with no reason',
      ev({ type: 'tool.hooked', phase: 'pre', outcome: 'continue' }),
      'pre-hook: continue',
    ],
    [
      'a permission with no reason',
      ev({ type: 'tool.permitted', behavior: 'allow', source: 'tool' }),
      'permission allow by tool',
    ],
    ['progress with no data', ev({ type: 'tool.progress' }), 'progress '],
    [
      'a load by the app',
      { type: 'tool.loaded', turnId: T, name: 'mcp__x__y', how: 'app' } as KernelEventInput,
      'loaded mcp__x__y (app)',
    ],
  ])('%s', (_, input, text) => {
    expect(describeOne(input)).toBe(text)
  })

  // Several names are listed with commas; an empty side says "none".
  it.each([
    [['a', 'b'], ['c', 'd'], 'mcp changed: added a, b, removed c, d'],
    [[], ['c'], 'mcp changed: added none, removed c'],
    [[], [], 'mcp changed: added none, removed none'],
  ])('pool.changed added %j removed %j', (added, removed, text) => {
    expect(describeOne({ type: 'pool.changed', turnId: T, source: 'mcp', added, removed } as KernelEventInput)).toBe(
      text,
    )
  })
})
