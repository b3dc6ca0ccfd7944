/** Hand-built events for the projection tests: the envelope stamped in order, as a log would. */
import { toolResultBlock, type KernelEvent, type KernelEventInput } from '../../src/events/event.schema.js'

/**
 * Stamps events with `v`, `seq` and `at`. `at` is given per event where a test measures time
 * (a pair of event and time), and otherwise counts up from the last one.
 */
export function stamp(...inputs: Array<KernelEventInput | readonly [KernelEventInput, number]>): KernelEvent[] {
  let at = 0
  return inputs.map((item, seq) => {
    const [input, time] = Array.isArray(item)
      ? (item as readonly [KernelEventInput, number])
      : [item as KernelEventInput, at + 1]
    at = time
    return { v: 2, seq, at, ...input } as KernelEvent
  })
}

export const requested = (
  turnId: string,
  toolUseId: string,
  index: number,
  name = 'Echo',
  input: unknown = {},
): KernelEventInput => ({ type: 'tool.requested', turnId, toolUseId, index, name, input })

export const result = (
  turnId: string,
  toolUseId: string,
  content: string,
  outcome: 'success' | 'error' | 'cancelled' = 'success',
): KernelEventInput => ({
  type: 'tool.result',
  turnId,
  toolUseId,
  outcome,
  block: toolResultBlock(toolUseId, content, outcome !== 'success'),
})
