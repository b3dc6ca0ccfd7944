/**
 * Property tests of streaming turns: random Anthropic streams (block order, text and thinking
 * blocks between calls, JSON split at random points, random stop reasons, blocks cut off), pushed
 * while fast-check's scheduler decides when each tool call finishes, with random abort and
 * discard points.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { projectMessages, type KernelEvent } from '../src/index.js'
import { testKernel } from './helpers.js'
import {
  checkLog,
  inputOf,
  isSafe,
  makeTools,
  reprojected,
  scheduledHooks,
  specsArb,
  type Spec,
} from './prop-helpers.js'
import { runs } from './runs.js'

interface StreamPlan {
  specs: Spec[]
  events: unknown[]
  ids: string[]
}

/** Splits text at the given cut points (fractions of its length). */
function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => Math.floor(c * text.length)))].sort((a, b) => a - b)
  const parts: string[] = ['']
  let from = 0
  for (const p of points) {
    parts.push(text.slice(from, p))
    from = p
  }
  parts.push(text.slice(from))
  return parts
}

const planArb = fc
  .record({
    specs: specsArb,
    cuts: fc.array(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }), {
      minLength: 10,
      maxLength: 10,
    }),
    textBefore: fc.array(fc.constantFrom('none', 'text', 'thinking'), { minLength: 10, maxLength: 10 }),
    stop: fc.constantFrom('tool_use', 'tool_use', 'tool_use', 'max_tokens', 'refusal', 'end_turn', 'pause_turn'),
    cutLast: fc.boolean(),
  })
  .map(({ specs, cuts, textBefore, stop, cutLast }): StreamPlan & { stop: string } => {
    const ids = specs.map((_, i) => `toolu_${i}`)
    const events: unknown[] = [{ type: 'message_start', message: { id: 'msg', role: 'assistant', content: [] } }]
    let index = 0
    specs.forEach((spec, i) => {
      const extra = textBefore[i]
      if (extra !== 'none') {
        const type = extra === 'text' ? 'text' : 'thinking'
        events.push({ type: 'content_block_start', index, content_block: { type, [type]: '' } })
        events.push({
          type: 'content_block_delta',
          index,
          delta:
            extra === 'text'
              ? { type: 'text_delta', text: 'thinking aloud' }
              : { type: 'thinking_delta', thinking: 'hmm' },
        })
        events.push({ type: 'content_block_stop', index: index++ })
      }
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: ids[i], name: spec.tool, input: {} },
      })
      const json = JSON.stringify(inputOf(spec, ids[i] as string))
      const last = i === specs.length - 1
      const fragments = split(json, cuts[i] ?? [])
      // The last block may be cut off mid-input when the message ends on max_tokens.
      const cut = last && cutLast && stop === 'max_tokens'
      for (const partial of cut ? fragments.slice(0, Math.max(1, fragments.length - 1)) : fragments) {
        events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } })
      }
      if (!cut) events.push({ type: 'content_block_stop', index })
      index++
    })
    events.push({ type: 'message_delta', delta: { stop_reason: stop } }, { type: 'message_stop' })
    return { specs, events, ids, stop }
  })

const interruptArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const, at: 0 }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('abort' as const), at: fc.nat({ max: 60 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('discard' as const), at: fc.nat({ max: 60 }) }) },
)

const seq = (events: readonly KernelEvent[], type: KernelEvent['type']) =>
  events.find((e) => e.type === type)?.seq ?? Infinity

describe('streaming properties', () => {
  it('over random streams, stops, aborts and discards: pairing, order, barriers, cap, early start, and replayable logs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        planArb,
        fc.integer({ min: 1, max: 4 }),
        interruptArb,
        async (s, plan, cap, interrupt) => {
          const { tools, violations } = makeTools(s, cap)
          const kernel = testKernel(tools, { maxConcurrency: cap, hooks: scheduledHooks(s) })
          const controller = new AbortController()
          const turn = kernel.startTurn({ signal: controller.signal })
          const feed = async (): Promise<void> => {
            for (let i = 0; i < plan.events.length; i++) {
              await s.schedule(Promise.resolve(), `event ${i}`)
              if (interrupt.kind !== 'none' && i === interrupt.at) {
                if (interrupt.kind === 'abort') controller.abort('user pressed Esc')
                else turn.discard()
                return
              }
              turn.push(plan.events[i])
            }
          }
          const [, result] = await s.waitFor(Promise.all([feed(), turn.result()]))
          const { message, events, discarded } = result
          const interrupted = interrupt.kind !== 'none' && interrupt.at < plan.events.length
          const requested = events.filter((e) => e.type === 'tool.requested').map((e) => e.toolUseId)

          expect(violations).toEqual([])
          expect(discarded).toBe(interrupt.kind === 'discard' && interrupted)
          // Every tool_use the turn saw has exactly one result; the message lists them in order.
          checkLog(
            events,
            requested.map((id) => plan.specs[Number(id.slice(6))] as Spec),
            requested,
            cap,
          )
          if (discarded) {
            expect(message.content).toEqual([])
            expect(projectMessages(kernel.log.read())).toEqual([])
          } else {
            expect(message.content.map((b) => b.tool_use_id)).toEqual(requested)
            expect(reprojected(kernel.log.read())).toBe(JSON.stringify([message]))
            if (!interrupted) expect(requested).toEqual(plan.ids)
          }
          // Nothing starts after an abort, or after a message that did not end in tool use.
          const ended = events.find((e) => e.type === 'turn.ended')
          const voidFrom = Math.min(
            seq(events, 'turn.aborted'),
            seq(events, 'turn.discarded'),
            ended !== undefined && ended.type === 'turn.ended' && ended.stopReason !== 'tool_use'
              ? ended.seq
              : Infinity,
          )
          expect(events.filter((e) => e.type === 'tool.dispatched' && e.seq > voidFrom)).toEqual([])
          // Early start only for safe calls: an unsafe call never starts before the message ends.
          for (const e of events) {
            if (e.type !== 'tool.dispatched' || e.seq > seq(events, 'turn.ended')) continue
            expect(isSafe(plan.specs[Number(e.toolUseId.slice(6))] as Spec), `${e.toolUseId} started early`).toBe(true)
          }
          // A 'block' call that started keeps its real result, unless the turn was discarded.
          if (!discarded) {
            for (const e of events) {
              if (e.type !== 'tool.started') continue
              const spec = plan.specs[Number(e.toolUseId.slice(6))] as Spec
              if (spec.tool !== 'Block') continue
              const outcome = events.find((r) => r.type === 'tool.result' && r.toolUseId === e.toolUseId)
              expect(outcome?.type === 'tool.result' ? outcome.block.content : undefined).toBe(
                spec.fail ? `Block failed: ${e.toolUseId} failed` : `out:${e.toolUseId}`,
              )
            }
          }
        },
      ),
      { numRuns: runs(250) },
    )
  })
})
