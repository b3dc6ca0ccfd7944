/** The messages projection alone, over hand-built events: what the model reads next, byte for byte. */
import { describe, expect, it } from 'vitest'
import type { KernelEvent } from '../../src/events/event.schema.js'
import {
  initialTurnMessageState,
  messageOf,
  projectMessages,
  projectTurnMessage,
  reduceTurnMessage,
} from '../../src/projections/messages.projection.js'
import { requested, result, stamp } from './events.js'

const live = (events: readonly KernelEvent[]) => messageOf(events.reduce(reduceTurnMessage, initialTurnMessageState))

describe('messages projection', () => {
  it('one message per turn, results in tool_use order whatever order they finished in', () => {
    const events = stamp(
      { type: 'turn.started', turnId: 'T', mode: 'batch', maxConcurrency: 10 },
      requested('T', 'a', 0),
      requested('T', 'b', 1),
      requested('T', 'c', 2),
      result('T', 'c', 'C'),
      result('T', 'a', 'A', 'error'),
      result('T', 'b', 'B'),
      { type: 'turn.completed', turnId: 'T', results: 3 },
    )
    const expected = {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'A', is_error: true },
        { type: 'tool_result', tool_use_id: 'b', content: 'B' },
        { type: 'tool_result', tool_use_id: 'c', content: 'C' },
      ],
    }
    expect(projectMessages(events)).toEqual([expected])
    expect(projectTurnMessage(events, 'T')).toEqual(expected)
    expect(live(events)).toEqual(expected)
  })

  it('the content comes from tool.result events only: no result, no block', () => {
    const events = stamp(
      requested('T', 'a', 0),
      requested('T', 'b', 1),
      { type: 'tool.completed', turnId: 'T', toolUseId: 'a', output: 'not the result' },
      { type: 'tool.mapped', turnId: 'T', toolUseId: 'a', isError: false },
      result('T', 'b', 'B'),
    )
    expect(projectMessages(events)).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'B' }] },
    ])
    expect(live(events).content.map((b) => b.tool_use_id)).toEqual(['b'])
  })

  // One turn's message out of a whole session's log: the other turns' calls and results (even
  // one under the same tool_use id) are not in it.
  it("projectTurnMessage takes the turn's own events out of a session's log", () => {
    const events = stamp(
      requested('T1', 'a', 0),
      requested('T2', 'a', 0),
      requested('T2', 'b', 1),
      result('T2', 'b', 'B2'),
      result('T2', 'a', 'A2'),
      result('T1', 'a', 'A1'),
    )
    expect(projectTurnMessage(events, 'T1').content).toEqual([{ type: 'tool_result', tool_use_id: 'a', content: 'A1' }])
    expect(projectTurnMessage(events, 'T2').content.map((b) => b.content)).toEqual(['A2', 'B2'])
  })

  it('the first result of a call wins; a second one is ignored', () => {
    const events = stamp(requested('T', 'a', 0), result('T', 'a', 'first'), result('T', 'a', 'second', 'error'))
    expect(projectTurnMessage(events, 'T').content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'first' },
    ])
    expect(live(events).content).toEqual([{ type: 'tool_result', tool_use_id: 'a', content: 'first' }])
  })

  it('a tool_use requested twice keeps its first index', () => {
    const events = stamp(
      requested('T', 'a', 0),
      requested('T', 'b', 1),
      requested('T', 'a', 5),
      result('T', 'a', 'A'),
      result('T', 'b', 'B'),
    )
    expect(projectTurnMessage(events, 'T').content.map((b) => b.tool_use_id)).toEqual(['a', 'b'])
    expect(live(events).content.map((b) => b.tool_use_id)).toEqual(['a', 'b'])
  })

  it('orders by the tool_use index, not by the order the requests were logged', () => {
    const events = stamp(
      requested('T', 'second', 1),
      requested('T', 'first', 0),
      requested('T', 'third', 2),
      result('T', 'third', '3'),
      result('T', 'second', '2'),
      result('T', 'first', '1'),
    )
    expect(projectTurnMessage(events, 'T').content.map((b) => b.content)).toEqual(['1', '2', '3'])
    expect(live(events).content.map((b) => b.content)).toEqual(['1', '2', '3'])
  })

  it('a discarded turn sends nothing: left out of projectMessages, an empty message alone', () => {
    const events = stamp(
      requested('D', 'x', 0),
      result('D', 'x', 'X'),
      { type: 'turn.discarded', turnId: 'D', reason: 'the stream fell back' },
      requested('K', 'y', 0),
      result('K', 'y', 'Y'),
    )
    expect(projectMessages(events)).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'y', content: 'Y' }] },
    ])
    expect(projectTurnMessage(events, 'D')).toEqual({ role: 'user', content: [] })
    expect(live(events.slice(0, 3))).toEqual({ role: 'user', content: [] })
  })

  it('turns come in the order they started, each with only its own calls', () => {
    const events = stamp(
      requested('T1', 'a', 0),
      requested('T2', 'a', 0),
      result('T2', 'a', 'second turn'),
      result('T1', 'a', 'first turn'),
    )
    expect(projectMessages(events).map((m) => m.content.map((b) => b.content))).toEqual([
      ['first turn'],
      ['second turn'],
    ])
  })

  it('ids the model chose that name Object.prototype members are plain keys', () => {
    const events = stamp(
      requested('T', '__proto__', 0),
      requested('T', 'constructor', 1),
      result('T', 'constructor', 'c'),
      result('T', '__proto__', 'p'),
    )
    expect(projectTurnMessage(events, 'T').content.map((b) => b.tool_use_id)).toEqual(['__proto__', 'constructor'])
  })

  it('events that do not shape the message leave the live state as it was (the same object)', () => {
    const [started] = stamp({ type: 'turn.started', turnId: 'T', mode: 'stream', maxConcurrency: 1 })
    expect(reduceTurnMessage(initialTurnMessageState, started as KernelEvent)).toBe(initialTurnMessageState)
    const [req] = stamp(requested('T', 'a', 0))
    const next = reduceTurnMessage(initialTurnMessageState, req as KernelEvent)
    expect(next).not.toBe(initialTurnMessageState)
    expect(initialTurnMessageState.order).toEqual([])
  })

  it('is stable byte for byte: the same JSON for the same log, however the results interleaved', () => {
    const blocks = ['a', 'b', 'c', 'd'].map((id, i) => ({ id, i }))
    const head = blocks.map(({ id, i }) => requested('T', id, i, 'Tool', { n: i }))
    const tails = [
      ['a', 'b', 'c', 'd'],
      ['d', 'c', 'b', 'a'],
      ['b', 'd', 'a', 'c'],
    ].map((order) => stamp(...head, ...order.map((id) => result('T', id, `out ${id} "quoted" \u2028`))))
    const texts = tails.map((events) => JSON.stringify(projectMessages(events), null, 2))
    expect(new Set(texts).size).toBe(1)
    expect(JSON.stringify(live(tails[1] as KernelEvent[]))).toBe(JSON.stringify(projectMessages(tails[2] ?? [])[0]))
    expect(texts[0]).toBe(
      JSON.stringify(
        [
          {
            role: 'user',
            content: ['a', 'b', 'c', 'd'].map((id) => ({
              type: 'tool_result',
              tool_use_id: id,
              content: `out ${id} "quoted" \u2028`,
            })),
          },
        ],
        null,
        2,
      ),
    )
  })
})
