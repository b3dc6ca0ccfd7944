/**
 * inDecisionOrder: a log from before 0.2 recorded a step when the machine left it, so a service's
 * event (the policy's `permission.requested`, the loader's `tool.loaded`) came before its call's
 * earlier records; replay puts them back in the order today's steps decide them. Events are built
 * by hand, with only the fields the reordering reads.
 */
import { describe, expect, it } from 'vitest'
import type { KernelEvent } from '../../src/events/event.schema.js'
import { inDecisionOrder } from '../../src/replay/decision-order.js'
import { Echo, testKernel, assistant } from '../helpers.js'

const ev = (type: string, toolUseId?: string, more: Record<string, unknown> = {}): KernelEvent =>
  ({ type, turnId: 't', ...(toolUseId === undefined ? {} : { toolUseId }), ...more }) as unknown as KernelEvent
const parsed = (id: string) => ev('tool.parsed', id)
const validated = (id: string) => ev('tool.validated', id)
const asked = (id: string) => ev('permission.requested', id)
const granted = (id: string) => ev('permission.granted', id)
const permitted = (id: string) => ev('tool.permitted', id)
const loaded = (by: string) => ev('tool.loaded', undefined, { loadedBy: by })
const hooked = (id: string, phase: 'pre' | 'post') => ev('tool.hooked', id, { phase })

/** Each event as `type:call`, so an order reads at a glance. */
const order = (events: readonly KernelEvent[]) =>
  events.map((e) => {
    const who = e.type === 'tool.loaded' ? e.loadedBy : 'toolUseId' in e ? e.toolUseId : '-'
    const phase = e.type === 'tool.hooked' ? `(${e.phase})` : ''
    return `${e.type}${phase}:${who}`
  })

describe('inDecisionOrder', () => {
  it('returns a log written today as it is', async () => {
    const kernel = testKernel([Echo], { permissions: { allow: ['Echo'] } })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }], ['b', 'Echo', { text: 'y' }]))
    const events = kernel.log.read()
    expect(inDecisionOrder(events)).toStrictEqual([...events])
  })

  it("moves a call's permission events after its parse and validate records", () => {
    const old = [asked('a'), granted('a'), parsed('a'), validated('a'), permitted('a')]
    expect(order(inDecisionOrder(old))).toStrictEqual([
      'tool.parsed:a',
      'tool.validated:a',
      'permission.requested:a',
      'permission.granted:a',
      'tool.permitted:a',
    ])
  })

  it("moves a tool.loaded after its call's tool.parsed, and before its tool.validated", () => {
    const old = [loaded('a'), parsed('a'), validated('a')]
    expect(order(inDecisionOrder(old))).toStrictEqual(['tool.parsed:a', 'tool.loaded:a', 'tool.validated:a'])
  })

  it("keeps permission events after the call's pre-hook record, and before anything of a later step", () => {
    const old = [asked('a'), parsed('a'), validated('a'), hooked('a', 'pre'), permitted('a')]
    expect(order(inDecisionOrder(old))).toStrictEqual([
      'tool.parsed:a',
      'tool.validated:a',
      'tool.hooked(pre):a',
      'permission.requested:a',
      'tool.permitted:a',
    ])
    // A post-hook record is of a later step than the permission: what was held goes first.
    const post = [asked('a'), hooked('a', 'post')]
    expect(order(inDecisionOrder(post))).toStrictEqual(['permission.requested:a', 'tool.hooked(post):a'])
  })

  it("lets go of one call's held events when another call's service event or record comes", () => {
    expect(order(inDecisionOrder([asked('a'), asked('b'), parsed('b')]))).toStrictEqual([
      'permission.requested:a',
      'tool.parsed:b',
      'permission.requested:b',
    ])
    expect(order(inDecisionOrder([asked('a'), parsed('b')]))).toStrictEqual(['permission.requested:a', 'tool.parsed:b'])
  })

  it('lets go of held events at an event that belongs to no call, and at the end of the log', () => {
    expect(order(inDecisionOrder([asked('a'), ev('turn.ended')]))).toStrictEqual([
      'permission.requested:a',
      'turn.ended:-',
    ])
    expect(order(inDecisionOrder([parsed('a'), asked('a')]))).toStrictEqual(['tool.parsed:a', 'permission.requested:a'])
  })

  it('holds several service events of one call together, in their order', () => {
    const old = [loaded('a'), asked('a'), parsed('a'), validated('a')]
    expect(order(inDecisionOrder(old))).toStrictEqual([
      'tool.parsed:a',
      'tool.loaded:a',
      'tool.validated:a',
      'permission.requested:a',
    ])
  })
})
