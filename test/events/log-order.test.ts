/** checkLogOrder: the golden logs are in order; shuffled, duplicated and misplaced events are named. */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { KernelEvent } from '../../src/events/event.schema.js'
import { parseJsonl } from '../../src/events/jsonl.js'
import { checkLogOrder } from '../../src/events/log-order.js'

const DIR = new URL('../fixtures/logs/', import.meta.url).pathname
const goldenNames = readdirSync(DIR).filter((name) => name.endsWith('.jsonl'))
const golden = (name: string): KernelEvent[] => parseJsonl(readFileSync(join(DIR, name), 'utf8')).events
const renumber = (events: readonly KernelEvent[]): KernelEvent[] => events.map((e, seq) => ({ ...e, seq }))

describe('checkLogOrder', () => {
  it.each(goldenNames)('passes the golden log %s', (name) => {
    expect(checkLogOrder(golden(name))).toEqual({ ok: true })
  })

  it('passes an empty log and interleaved turns (each started before and completed after its own events)', () => {
    expect(checkLogOrder([])).toEqual({ ok: true })
    const [a, b] = [
      golden('denial.jsonl'),
      golden('hook-block.jsonl').map((e) => ({ ...e, turnId: `other-${e.turnId}` })),
    ]
    const mixed = renumber(a.flatMap((e, i) => [e, ...(b[i] !== undefined ? [b[i]] : [])]).concat(b.slice(a.length)))
    expect(checkLogOrder(mixed)).toEqual({ ok: true })
  })

  it("lets a background shell's events follow the turn that started it, never precede it", () => {
    const events = golden('denial.jsonl')
    const turnId = (events[0] as KernelEvent).turnId
    const exited = {
      v: 2,
      seq: 0,
      at: 0,
      turnId,
      type: 'shell.exited',
      shellId: 'shell_1',
      exitCode: 0,
      signal: null,
      how: 'exited',
    } as KernelEvent
    expect(checkLogOrder(renumber([...events, exited]))).toEqual({ ok: true })
    // Any other event of a completed turn is still out of order.
    const ended = { ...exited, type: 'turn.ended', stopReason: null } as unknown as KernelEvent
    expect(checkLogOrder(renumber([...events, ended])).ok).toBe(false)
    const early = renumber([{ ...exited, turnId: 'later' }, ...events])
    expect(checkLogOrder(early)).toEqual({
      ok: false,
      seq: 0,
      problem: "shell.exited of turn later comes before the turn's turn.started",
    })
  })

  it('fails a shuffled copy at the first seq that goes back', () => {
    const events = golden('parallel-batch.jsonl')
    const shuffled = [...events.slice(0, 5), events[6], events[5], ...events.slice(7)] as KernelEvent[]
    expect(checkLogOrder(shuffled)).toEqual({ ok: false, seq: 5, problem: 'seq goes back from 6 to 5' })
  })

  it('fails a copy with a duplicated seq', () => {
    const events = golden('denial.jsonl')
    const duplicated = [...events.slice(0, 8), events[7], ...events.slice(8)] as KernelEvent[]
    expect(checkLogOrder(duplicated)).toEqual({
      ok: false,
      seq: 7,
      problem: expect.stringMatching(/^seq 7 appears twice/) as unknown as string,
    })
  })

  it('fails turns out of order even when seq was renumbered: events before turn.started or after turn.completed', () => {
    const events = golden('denial.jsonl')
    const started = events[0] as KernelEvent
    const late = renumber([...events.slice(1), started])
    expect(checkLogOrder(late)).toMatchObject({
      ok: false,
      seq: 0,
      problem: expect.stringMatching(/before the turn's turn\.started/),
    })
    const completed = events.findIndex((e) => e.type === 'turn.completed')
    const after = renumber([
      ...events.slice(0, completed - 1),
      ...events.slice(completed, completed + 1),
      events[completed - 1] as KernelEvent,
    ])
    expect(checkLogOrder(after)).toMatchObject({
      ok: false,
      seq: completed,
      problem: expect.stringMatching(/comes after the turn's turn\.completed/) as unknown as string,
    })
    expect(checkLogOrder(renumber([started, ...events]))).toMatchObject({
      ok: false,
      seq: 1,
      problem: expect.stringMatching(/starts twice/),
    })
  })

  it('fails a tool event before its tool.requested, naming the call', () => {
    const events = golden('denial.jsonl')
    const requested = events.findIndex((e) => e.type === 'tool.requested')
    const moved = renumber([
      ...events.slice(0, requested),
      events[requested + 1] as KernelEvent,
      events[requested] as KernelEvent,
      ...events.slice(requested + 2),
    ])
    const result = checkLogOrder(moved)
    expect(result).toMatchObject({ ok: false, seq: requested })
    expect(!result.ok && result.problem).toMatch(/^tool\.\w+ of call \S+ \(turn \S+\) comes before its tool\.requested/)
  })
})
