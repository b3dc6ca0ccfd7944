/** updateOf alone: which events become updates, and with what. */
import { describe, expect, it } from 'vitest'
import { KernelEventSchema, type KernelEvent } from '../../src/events/event.schema.js'
import { updateOf } from '../../src/projections/updates.projection.js'
import { result, stamp } from './events.js'

describe('updateOf', () => {
  it('tool.started, tool.progress and tool.result become started, progress and completed updates', () => {
    const [started, progress, done, failed] = stamp(
      { type: 'tool.started', turnId: 'T', toolUseId: 'a', interrupt: 'cancel' },
      { type: 'tool.progress', turnId: 'T', toolUseId: 'a', data: { line: 'compiling', n: 3 } },
      result('T', 'a', 'ok'),
      result('T', 'b', 'no such file', 'error'),
    ) as [KernelEvent, KernelEvent, KernelEvent, KernelEvent]
    expect(updateOf(started)).toEqual({ type: 'started', toolUseId: 'a' })
    expect(updateOf(progress, 'Make')).toEqual({
      type: 'progress',
      toolUseId: 'a',
      tool: 'Make',
      data: { line: 'compiling', n: 3 },
    })
    expect(updateOf(done)).toEqual({
      type: 'completed',
      toolUseId: 'a',
      outcome: 'success',
      block: { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
    })
    expect(updateOf(failed)).toMatchObject({ type: 'completed', toolUseId: 'b', outcome: 'error' })
  })

  it('progress data is passed on as logged, even when it is not an object', () => {
    const [text] = stamp({ type: 'tool.progress', turnId: 'T', toolUseId: 'a', data: 'line 1\n' })
    expect(updateOf(text as KernelEvent, 'Bash')).toEqual({
      type: 'progress',
      toolUseId: 'a',
      tool: 'Bash',
      data: 'line 1\n',
    })
  })

  it('every other event type makes no update', () => {
    const others = KernelEventSchema.options
      .map((option) => option.shape.type.value)
      .filter((type) => !['tool.started', 'tool.progress', 'tool.result'].includes(type))
    expect(others.length).toBeGreaterThan(15)
    for (const type of others) {
      const event = { v: 2, seq: 0, at: 0, turnId: 'T', toolUseId: 'a', type } as unknown as KernelEvent
      expect(updateOf(event), type).toBeUndefined()
    }
  })
})
