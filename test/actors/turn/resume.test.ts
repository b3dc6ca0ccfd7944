/**
 * Going on with a parked turn (src/actors/turn/resume.ts, docs/approvals.md): a person's answer
 * checked to the letter and made an event, why a call that does not wait cannot be answered, and
 * a parked turn read back from the log — what another process goes on from.
 */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, createMemoryLog, type KernelEvent } from '../../../src/index.js'
import { answerEvent, earlyStartOf, resumedTurn } from '../../../src/actors/turn/resume.js'
import { pendingApprovals } from '../../../src/projections/approvals.projection.js'
import type { EventOf } from '../../../src/events/event.schema.js'
import { Ask, assistant, fixedClock, testKernel } from '../../helpers.js'

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  call: async ({ text }) => `echo ${text}`,
})

/** A session with one parked turn: a done call, the parked Ask, and a call queued behind it. */
async function parkedSession() {
  const log = createMemoryLog(fixedClock())
  const kernel = testKernel([Echo, Ask], { log })
  const first = await kernel.runTurn(
    assistant(
      ['done', 'Echo', { text: 'hi' }],
      ['asked', 'Ask', { text: 'may I' }],
      ['behind', 'Echo', { text: 'then' }],
    ),
  )
  const events = log.read()
  return { kernel, first, events, pending: pendingApprovals(events) }
}

describe('an answer, checked to the letter', () => {
  it.each([
    ['', 'kernel.answer: toolUseId must be a non-empty string, got ""'],
    [7, 'kernel.answer: toolUseId must be a non-empty string, got 7'],
  ])('a toolUseId of %j is refused', async (id, message) => {
    const { pending, events } = await parkedSession()
    expect(() => answerEvent(pending, events, id as string, { behavior: 'allow' })).toThrow(new TypeError(message))
  })

  it.each([
    [
      null,
      "kernel.answer: the answer must be { behavior: 'allow', updatedInput?, grant?, digest? } or { behavior: 'deny', message, digest? }, got null",
    ],
    [
      'yes',
      "kernel.answer: the answer must be { behavior: 'allow', updatedInput?, grant?, digest? } or { behavior: 'deny', message, digest? }, got \"yes\"",
    ],
    [{ behavior: 'maybe' }, "kernel.answer: behavior must be 'allow' or 'deny', got \"maybe\""],
    [
      { behavior: 'allow', input: {} },
      "kernel.answer: unknown field input in a 'allow' answer; it takes behavior, updatedInput, grant, digest",
    ],
    [
      { behavior: 'deny', message: 'no', grant: {}, input: {} },
      "kernel.answer: unknown fields grant, input in a 'deny' answer; it takes behavior, message, digest",
    ],
    [{ behavior: 'allow', digest: 5 }, 'kernel.answer: digest must be the pending call’s digest (a string)'],
    [{ behavior: 'deny' }, 'kernel.answer: a denial needs a message for the model (a non-empty string)'],
    [{ behavior: 'deny', message: '  ' }, 'kernel.answer: a denial needs a message for the model (a non-empty string)'],
    [
      { behavior: 'allow', grant: null },
      "kernel.answer: grant must be { scope: 'call' }, { scope: 'tool' } or { scope: 'rule', rule }, got null",
    ],
    [
      { behavior: 'allow', grant: 'tool' },
      "kernel.answer: grant must be { scope: 'call' }, { scope: 'tool' } or { scope: 'rule', rule }, got \"tool\"",
    ],
    [
      { behavior: 'allow', grant: { scope: 'forever' } },
      "kernel.answer: grant must be { scope: 'call' }, { scope: 'tool' } or { scope: 'rule', rule }, got {\"scope\":\"forever\"}",
    ],
    [
      { behavior: 'allow', grant: { scope: 'rule', rule: '' } },
      "kernel.answer: a grant of scope 'rule' names the rule, e.g. { scope: 'rule', rule: 'Bash(npm test)' }",
    ],
  ])('%j is refused with what it takes', async (given, message) => {
    const { pending, events } = await parkedSession()
    expect(() => answerEvent(pending, events, 'asked', given)).toThrow(new TypeError(message))
  })

  it('becomes exactly the permission.answered the call appends: nothing unset is written', async () => {
    const { pending, events } = await parkedSession()
    const digest = pending[0]?.digest ?? ''
    const turnId = pending[0]?.turnId ?? ''
    const ids = { type: 'permission.answered', turnId, toolUseId: 'asked', digest }
    expect(answerEvent(pending, events, 'asked', { behavior: 'allow' })).toStrictEqual({ ...ids, behavior: 'allow' })
    expect(answerEvent(pending, events, 'asked', { behavior: 'allow', digest })).toStrictEqual({
      ...ids,
      behavior: 'allow',
    })
    expect(
      answerEvent(pending, events, 'asked', {
        behavior: 'allow',
        updatedInput: { text: 'edited' },
        grant: { scope: 'rule', rule: 'Ask' },
      }),
    ).toStrictEqual({
      ...ids,
      behavior: 'allow',
      updatedInput: { text: 'edited' },
      grant: { scope: 'rule', rule: 'Ask' },
    })
    expect(
      answerEvent(pending, events, 'asked', { behavior: 'allow', grant: { scope: 'tool', rule: 'x' } }),
    ).toStrictEqual({ ...ids, behavior: 'allow', grant: { scope: 'tool' } })
    expect(answerEvent(pending, events, 'asked', { behavior: 'deny', message: 'not now' })).toStrictEqual({
      ...ids,
      behavior: 'deny',
      message: 'not now',
    })
  })
})

describe('a call that does not wait says why', () => {
  it('none such, answered already (in the log, not yet gone on), has its result, never parked', async () => {
    const { pending, events } = await parkedSession()
    const answer = { behavior: 'allow' }
    expect(() => answerEvent(pending, events, 'nobody', answer)).toThrow(
      'kernel.answer: no tool call nobody in this session',
    )
    expect(() => answerEvent(pending, events, 'done', answer)).toThrow(
      'kernel.answer: tool call done has its result already; there is nothing to answer',
    )
    expect(() => answerEvent(pending, events, 'behind', answer)).toThrow(
      'kernel.answer: tool call behind is not waiting for an answer (it never parked for approval)',
    )
    // The answer is in the log; the turn has not gone on with it yet (the process stopped there).
    const answered = [...events, answerEvent(pending, events, 'asked', answer) as unknown as KernelEvent]
    expect(() => answerEvent(pendingApprovals(answered), answered, 'asked', answer)).toThrow(
      'kernel.answer: tool call asked was answered already; an approval is given once',
    )
    // No longer among the pending (a log cut differently): the log still tells it was answered.
    expect(() => answerEvent([], answered, 'asked', answer)).toThrow(
      'kernel.answer: tool call asked was answered already; an approval is given once',
    )
  })
})

describe('a parked turn read back from the log', () => {
  it('its start, every call, the calls without a result at their folded state, what its results used', async () => {
    const { events, first } = await parkedSession()
    const started = events.find((e) => e.type === 'turn.started') as EventOf<'turn.started'>
    const resumed = resumedTurn(events, started.turnId)
    expect(resumed.first).toBe(started.seq)
    expect(resumed.ids).toEqual(['done', 'asked', 'behind'])
    expect(resumed.calls.map((c) => [c.use.id, c.use.index, c.dispatched, c.from.step])).toEqual([
      ['asked', 1, true, 'permission'],
      ['behind', 2, false, 'parse'],
    ])
    expect(resumed.calls[0]?.use).toStrictEqual({ id: 'asked', name: 'Ask', input: { text: 'may I' }, index: 1 })
    expect(resumed.used).toBe('echo hi'.length)
    expect(resumed.config).toStrictEqual({ mode: 'batch', earlyStart: 'all' })
    expect(first.pending.map((p) => p.toolUseId)).toEqual(['asked'])
  })

  it("calls in any order of the log come back in tool_use order, with a call's input error", () => {
    const at = { v: 2, at: 0 } as const
    const events = [
      { ...at, seq: 0, type: 'turn.started', turnId: 't', mode: 'stream', maxConcurrency: 4 },
      { ...at, seq: 1, type: 'tool.requested', turnId: 't', toolUseId: 'b', name: 'Echo', input: {}, index: 1 },
      {
        ...at,
        seq: 2,
        type: 'tool.requested',
        turnId: 't',
        toolUseId: 'a',
        name: 'Echo',
        input: {},
        index: 0,
        inputError: 'the input was cut off',
      },
    ] as unknown as KernelEvent[]
    const resumed = resumedTurn(events, 't')
    expect(resumed.calls.map((c) => c.use)).toStrictEqual([
      { id: 'a', name: 'Echo', input: {}, index: 0, inputError: 'the input was cut off' },
      { id: 'b', name: 'Echo', input: {}, index: 1 },
    ])
    expect(resumed.config).toStrictEqual({ mode: 'stream', earlyStart: 'safe' })
  })

  it('a turn the log does not start is refused by name', () => {
    expect(() => resumedTurn([], 'gone')).toThrow('toolkernel: turn gone has no turn.started in this log')
  })
})

describe('earlyStartOf', () => {
  const started = (fields: object) => ({ type: 'turn.started', turnId: 't', ...fields }) as EventOf<'turn.started'>
  it('is what the turn recorded; a log from before the field: all for a batch, safe for a stream', () => {
    expect(earlyStartOf(started({ mode: 'batch', earlyStart: 'none' }))).toBe('none')
    expect(earlyStartOf(started({ mode: 'stream', earlyStart: 'all' }))).toBe('all')
    expect(earlyStartOf(started({ mode: 'batch' }))).toBe('all')
    expect(earlyStartOf(started({ mode: 'stream' }))).toBe('safe')
  })
})
