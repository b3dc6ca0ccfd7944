/**
 * indexRecording: every outside answer a recorded log holds, indexed per call — what the tool
 * returned or threw, its progress, its hooks, the user's permission answers, where output was
 * persisted, and what its validator said (and whether at once). Events are built by hand.
 */
import { describe, expect, it } from 'vitest'
import type { KernelEventInput } from '../../src/events/event.schema.js'
import { indexRecording, stripPrefix, type RecordedCall } from '../../src/replay/recorded.js'
import { requested, stamp } from '../projections/events.js'

const T = 'turn_1'
const ev = (input: Record<string, unknown>): KernelEventInput => ({ turnId: T, ...input }) as KernelEventInput
const parsed = (toolUseId: string, tool = 'Echo', hooks?: { pre: boolean; post: boolean }) =>
  ev({ type: 'tool.parsed', toolUseId, tool, ...(hooks !== undefined ? { hooks } : {}) })
const validated = (toolUseId: string) => ev({ type: 'tool.validated', toolUseId })
const queued = (toolUseId: string) => ev({ type: 'tool.queued', toolUseId, safe: true })

/** What a call's entry holds before any answer: nothing, in empty lists and false flags. */
const fresh = (): RecordedCall => ({
  progress: [],
  retries: [],
  hooks: { pre: [], post: [] },
  hookEvents: { pre: [], post: [] },
  hooked: { pre: false, post: false },
  hookedEvents: {},
})

function callOf(inputs: KernelEventInput[], toolUseId = 'a'): RecordedCall | undefined {
  return indexRecording(stamp(...inputs)).calls.get(toolUseId)
}

describe('indexRecording', () => {
  it('lists every turn.started turnId in order, and nothing else', () => {
    const recording = indexRecording(
      stamp(
        { type: 'turn.started', turnId: 'one', mode: 'batch', maxConcurrency: 1 },
        { type: 'turn.ended', turnId: 'one', stopReason: 'tool_use' },
        { type: 'turn.completed', turnId: 'one', results: 0 },
        { type: 'turn.started', turnId: 'two', mode: 'stream', maxConcurrency: 1 },
      ),
    )
    expect(recording.turnIds).toStrictEqual(['one', 'two'])
    expect(indexRecording([]).turnIds).toStrictEqual([])
  })

  it('keeps an entry only for calls, empty until an answer is recorded', () => {
    const recording = indexRecording(
      stamp({ type: 'turn.started', turnId: T, mode: 'batch', maxConcurrency: 1 }, requested(T, 'a', 0), queued('a')),
    )
    expect([...recording.calls.keys()]).toStrictEqual(['a'])
    expect(recording.calls.get('a')).toStrictEqual(fresh())
  })

  it('records what the tool returned, what it threw, and its progress in order', () => {
    expect(
      callOf([requested(T, 'a', 0), ev({ type: 'tool.completed', toolUseId: 'a', output: { n: 1 } })]),
    ).toStrictEqual({ ...fresh(), completion: { output: { n: 1 } } })
    expect(
      callOf([requested(T, 'a', 0), ev({ type: 'tool.errored', toolUseId: 'a', message: 'Echo failed: boom' })]),
    ).toStrictEqual({ ...fresh(), completion: { error: 'Echo failed: boom' } })
    // Each failed attempt of a retried tool, with its class only where the log has one.
    const retried = (error: string, errorClass?: string) =>
      ev({ type: 'tool.retrying', toolUseId: 'a', attempt: 1, delayMs: 0, error, ...(errorClass && { errorClass }) })
    expect(callOf([requested(T, 'a', 0), retried('busy'), retried('EAGAIN: later', 'EAGAIN')])?.retries).toStrictEqual([
      { error: 'busy' },
      { error: 'EAGAIN: later', errorClass: 'EAGAIN' },
    ])
    const progress = callOf([
      requested(T, 'a', 0),
      ev({ type: 'tool.progress', toolUseId: 'a', data: 'one' }),
      ev({ type: 'tool.progress', toolUseId: 'a', data: { step: 2 } }),
    ])
    expect(progress?.progress).toStrictEqual(['one', { step: 2 }])
  })

  it('records where oversize output was persisted, or why it was not, its size and position', () => {
    const [, saved] = stamp(
      requested(T, 'a', 0),
      ev({ type: 'tool.budgeted', toolUseId: 'a', path: '/r/a.txt', chars: 9 }),
    )
    const entry = indexRecording([saved!]).calls.get('a')
    expect(saved?.seq).toBeGreaterThan(0)
    expect(entry).toStrictEqual({ ...fresh(), budgeted: { path: '/r/a.txt', chars: 9, position: saved?.seq } })
    const [, failed] = stamp(
      requested(T, 'a', 0),
      ev({ type: 'tool.budgeted', toolUseId: 'a', error: 'disk full', chars: 3 }),
    )
    expect(indexRecording([failed!]).calls.get('a')?.budgeted).toStrictEqual({
      error: 'disk full',
      chars: 3,
      position: failed?.seq,
    })
  })

  it("records the saved output's line count from its preview's notice, and from nothing else", () => {
    const budgeted = ev({ type: 'tool.budgeted', toolUseId: 'a', path: '/r/a.txt', chars: 60 })
    const result = (content: unknown) =>
      ev({
        type: 'tool.result',
        toolUseId: 'a',
        outcome: 'success',
        block: { type: 'tool_result', tool_use_id: 'a', content },
      })
    const lines = (...events: KernelEventInput[]) =>
      indexRecording(stamp(requested(T, 'a', 0), ...events)).calls.get('a')?.budgeted?.lines
    const notice = 'Output too large to show whole (60 characters, 12 lines); the full output is saved to /r/a.txt'
    expect(lines(budgeted, result(notice))).toBe(12)
    expect(
      lines(budgeted, result([{ type: 'text', text: 'Output over its size limit (60 characters, 3 lines). It is' }])),
    ).toBe(3)
    // Not a preview, or no saved output to count.
    expect(lines(budgeted, result(`see: ${notice}`))).toBeUndefined()
    expect(
      lines(budgeted, result([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } }])),
    ).toBeUndefined()
    expect(lines(result(notice))).toBeUndefined()
  })

  it('records whether the result block was an error', () => {
    const mapped = (isError: boolean) => ev({ type: 'tool.mapped', toolUseId: 'a', isError })
    expect(callOf([requested(T, 'a', 0), mapped(true)])).toStrictEqual({ ...fresh(), mappedError: true })
    expect(callOf([requested(T, 'a', 0), mapped(false)])?.mappedError).toBe(false)
  })

  describe('validation', () => {
    it('is immediate when tool.validated is the very next event after its own tool.parsed', () => {
      expect(callOf([requested(T, 'a', 0), parsed('a'), validated('a')])?.validation).toStrictEqual({
        answer: { result: true },
        immediate: true,
      })
    })

    it('is not immediate after another event of the call, after another call, or first in the log', () => {
      const notImmediate = { answer: { result: true }, immediate: false }
      // The previous event is the call's own, but not its tool.parsed.
      expect(callOf([requested(T, 'a', 0), queued('a'), validated('a')])?.validation).toStrictEqual(notImmediate)
      // The previous event is another call's tool.parsed.
      const [first, second] = [requested(T, 'a', 0), requested(T, 'b', 1)]
      expect(callOf([first, second, parsed('a'), parsed('b'), validated('a')])?.validation).toStrictEqual(notImmediate)
      // The previous event is another call's event of another type.
      expect(callOf([first, second, parsed('a'), queued('b'), validated('a')])?.validation).toStrictEqual(notImmediate)
      // Nothing precedes it (a log that lost its start).
      expect(callOf([validated('a')])?.validation).toStrictEqual(notImmediate)
    })

    it("keeps a validator's rejection with the tool's prefix taken off", () => {
      const rejected = ev({
        type: 'tool.rejected',
        toolUseId: 'a',
        step: 'validate',
        code: 'validate_input',
        message: 'Checked rejected its input: no such path /x',
      })
      expect(callOf([requested(T, 'a', 0, 'Checked'), parsed('a', 'Checked'), rejected])).toStrictEqual({
        ...fresh(),
        tool: 'Checked',
        validation: { answer: { result: false, message: 'no such path /x' }, immediate: true },
      })
    })

    it('ignores other rejections: a schema error in the validate step, a failure in another step', () => {
      const schema = ev({
        type: 'tool.rejected',
        toolUseId: 'a',
        step: 'validate',
        code: 'invalid_input',
        message: 'Invalid input for Echo',
      })
      const denied = ev({
        type: 'tool.rejected',
        toolUseId: 'a',
        step: 'permission',
        code: 'permission_denied',
        message: 'denied',
      })
      expect(callOf([requested(T, 'a', 0), parsed('a'), schema])?.validation).toBeUndefined()
      expect(callOf([requested(T, 'a', 0), parsed('a'), validated('a'), denied])?.validation).toStrictEqual({
        answer: { result: true },
        immediate: true,
      })
    })
  })

  describe('hooks', () => {
    const finished = (phase: 'pre' | 'post', hook: string, more: Record<string, unknown> = {}) =>
      ev({ type: 'hook.finished', toolUseId: 'a', phase, hook, outcome: 'continue', ...more })

    it('takes which hook steps apply from tool.parsed, and leaves them off when it does not say', () => {
      expect(callOf([requested(T, 'a', 0), parsed('a', 'Echo', { pre: true, post: false })])?.hooked).toStrictEqual({
        pre: true,
        post: false,
      })
      expect(callOf([requested(T, 'a', 0), parsed('a', 'Echo', { pre: false, post: true })])?.hooked).toStrictEqual({
        pre: false,
        post: true,
      })
      expect(callOf([requested(T, 'a', 0), parsed('a')])).toStrictEqual({ ...fresh(), tool: 'Echo' })
    })

    it('marks a phase hooked when its tool.hooked is recorded (an older log without hooks in tool.parsed)', () => {
      const hooked = ev({ type: 'tool.hooked', toolUseId: 'a', phase: 'post', outcome: 'continue' })
      expect(callOf([requested(T, 'a', 0), parsed('a'), hooked])?.hooked).toStrictEqual({ pre: false, post: true })
    })

    it('keeps each hook.finished per phase, as a result in order and as the event itself', () => {
      const events = [
        requested(T, 'a', 0),
        finished('pre', 'PreToolUse[0].hooks[0]'),
        finished('pre', 'PreToolUse[0].hooks[1]', { outcome: 'block', reason: 'no' }),
        finished('post', 'PostToolUse[0].hooks[0]'),
      ]
      const entry = callOf(events)
      const stamped = stamp(...events)
      expect(entry?.hooks).toStrictEqual({
        pre: [
          { label: 'PreToolUse[0].hooks[0]', order: 0, outcome: 'continue' },
          { label: 'PreToolUse[0].hooks[1]', order: 1, outcome: 'block', reason: 'no' },
        ],
        post: [{ label: 'PostToolUse[0].hooks[0]', order: 0, outcome: 'continue' }],
      })
      expect(entry?.hookEvents).toStrictEqual({ pre: [stamped[1], stamped[2]], post: [stamped[3]] })
    })

    it('copies every field a hook answered, and none it did not', () => {
      const full = finished('pre', 'h', {
        outcome: 'error',
        exitCode: 2,
        decision: 'ask',
        reason: 'why',
        updatedInput: { text: 'new' },
        additionalContext: 'ctx',
        systemMessage: 'note',
        stopReason: 'stop',
        error: 'exit 2',
      })
      expect(callOf([requested(T, 'a', 0), full])?.hooks.pre).toStrictEqual([
        {
          label: 'h',
          order: 0,
          outcome: 'error',
          exitCode: 2,
          decision: 'ask',
          reason: 'why',
          updatedInput: { text: 'new' },
          additionalContext: 'ctx',
          systemMessage: 'note',
          stopReason: 'stop',
          error: 'exit 2',
        },
      ])
      expect(callOf([requested(T, 'a', 0), finished('pre', 'h', { exitCode: null })])?.hooks.pre).toStrictEqual([
        { label: 'h', order: 0, outcome: 'continue', exitCode: null },
      ])
    })
  })

  describe('permission answers', () => {
    const permitted = (more: Record<string, unknown>) => ev({ type: 'tool.permitted', toolUseId: 'a', ...more })
    const granted = (more: Record<string, unknown>) =>
      ev({ type: 'permission.granted', toolUseId: 'a', tool: 'Echo', ...more })
    const answerOf = (...events: KernelEventInput[]) => callOf([requested(T, 'a', 0), ...events])?.answer

    it("keeps only the user's answers, not the tool's, a rule's or the mode's", () => {
      for (const source of ['tool', 'rule', 'mode', 'hook', 'default'])
        expect(answerOf(permitted({ behavior: 'allow', source }))).toBeUndefined()
      expect(answerOf(permitted({ behavior: 'allow', source: 'user' }))).toStrictEqual({ behavior: 'allow' })
    })

    it('keeps a denial with its reason, or says denied when the log has none', () => {
      expect(answerOf(permitted({ behavior: 'deny', source: 'user', reason: 'not now' }))).toStrictEqual({
        behavior: 'deny',
        message: 'not now',
      })
      expect(answerOf(permitted({ behavior: 'deny', source: 'user' }))).toStrictEqual({
        behavior: 'deny',
        message: 'denied',
      })
    })

    it('keeps the input the user rewrote', () => {
      expect(answerOf(permitted({ behavior: 'allow', source: 'user', updatedInput: { text: 'safe' } }))).toStrictEqual({
        behavior: 'allow',
        updatedInput: { text: 'safe' },
      })
    })

    it('keeps the grant that came with the answer, by scope', () => {
      const allow = permitted({ behavior: 'allow', source: 'user' })
      expect(answerOf(granted({ scope: 'call', fingerprint: 'f' }), allow)).toStrictEqual({
        behavior: 'allow',
        grant: { scope: 'call' },
      })
      expect(answerOf(granted({ scope: 'tool' }), allow)).toStrictEqual({ behavior: 'allow', grant: { scope: 'tool' } })
      expect(answerOf(granted({ scope: 'rule', rule: 'Echo(hi*)' }), allow)).toStrictEqual({
        behavior: 'allow',
        grant: { scope: 'rule', rule: 'Echo(hi*)' },
      })
      expect(answerOf(granted({ scope: 'rule' }), allow)).toStrictEqual({
        behavior: 'allow',
        grant: { scope: 'rule', rule: '' },
      })
    })
  })
})

describe('stripPrefix', () => {
  it('takes the prefix off only where the text starts with it', () => {
    expect(stripPrefix('Echo failed: boom', 'Echo failed: ')).toBe('boom')
    expect(stripPrefix('boom', 'Echo failed: ')).toBe('boom')
    expect(stripPrefix('x Echo failed: boom', 'Echo failed: ')).toBe('x Echo failed: boom')
    expect(stripPrefix('Echo failed: ', 'Echo failed: ')).toBe('')
  })
})
