/**
 * The checks replay leaves to the log (src/replay/not-checked.ts), piece by piece: which input
 * rejections a stand-in could not word, what of an event is left out of the comparison, and the
 * saved outputs read back or stood in for. Events are built by hand; the whole path through
 * replay and the CLI is in replay.units.test.ts and test/cli/replay-checks.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { KernelEventInput } from '../../src/events/event.schema.js'
import { inputRejections, savedOutputs, withoutGivenText } from '../../src/replay/not-checked.js'
import { indexRecording } from '../../src/replay/recorded.js'
import { stamp } from '../projections/events.js'

const T = 'turn_1'
const ev = (input: Record<string, unknown>): KernelEventInput => ({ turnId: T, ...input }) as KernelEventInput
const parsed = (toolUseId: string, tool: string) => ev({ type: 'tool.parsed', toolUseId, tool })
const rejected = (toolUseId: string, code: string, message = `bad ${toolUseId}`, step = 'validate') =>
  ev({ type: 'tool.rejected', toolUseId, step, code, message })

describe('inputRejections', () => {
  const turn = stamp(
    parsed('a', 'AddNote'),
    rejected('a', 'invalid_input', 'text must be a string'),
    parsed('b', 'AddNote'),
    rejected('b', 'validate_input', 'no secrets'),
    parsed('c', 'Echo'),
    rejected('c', 'invalid_input'),
    ev({ type: 'tool.validated', toolUseId: 'd' }),
    rejected('e', 'invalid_input'),
    parsed('f', 'AddNote'),
    rejected('f', 'invalid_input', 'extra key', 'preHook'),
    ev({ type: 'tool.mapped', toolUseId: 'a', isError: true }),
  )

  it("lists the invalid_input rejections of the named tools' calls, in log order, with the log's text", () => {
    expect(inputRejections(turn, new Set(['AddNote']))).toStrictEqual([
      { turnId: T, toolUseId: 'a', tool: 'AddNote', position: 1, step: 'validate', message: 'text must be a string' },
      { turnId: T, toolUseId: 'f', tool: 'AddNote', position: 9, step: 'preHook', message: 'extra key' },
    ])
  })

  it('lists nothing of a tool not named, of a call the turn never parsed, or when no tool is named', () => {
    expect(inputRejections(turn, new Set(['Echo'])).map((r) => r.toolUseId)).toStrictEqual(['c'])
    expect(inputRejections(turn, new Set(['Other']))).toStrictEqual([])
    expect(inputRejections(turn, new Set())).toStrictEqual([])
  })
})

describe('withoutGivenText', () => {
  const given = new Set(['a'])

  it("takes the message off a given call's invalid_input rejection, and the content off its result", () => {
    expect(withoutGivenText(rejected('a', 'invalid_input', 'why'), given)).toStrictEqual({
      turnId: T,
      type: 'tool.rejected',
      toolUseId: 'a',
      step: 'validate',
      code: 'invalid_input',
    })
    const result = ev({
      type: 'tool.result',
      toolUseId: 'a',
      outcome: 'error',
      block: { type: 'tool_result', tool_use_id: 'a', content: 'why', is_error: true },
    })
    expect(withoutGivenText(result, given)).toStrictEqual({
      turnId: T,
      type: 'tool.result',
      toolUseId: 'a',
      outcome: 'error',
      block: { type: 'tool_result', tool_use_id: 'a', is_error: true },
    })
  })

  it("leaves every other event whole: another code, another event, another call's, one of no call", () => {
    for (const event of [
      rejected('a', 'validate_input', 'no secrets'),
      ev({ type: 'tool.budgeted', toolUseId: 'a', path: '/r/a', chars: 3 }),
      rejected('b', 'invalid_input'),
      ev({ type: 'turn.ended', stopReason: 'tool_use' }),
    ])
      expect(withoutGivenText(event, given)).toBe(event)
  })
})

describe('savedOutputs', () => {
  const completed = (toolUseId: string) => ev({ type: 'tool.completed', toolUseId, persisted: true })
  const budgeted = (toolUseId: string, where: Record<string, unknown>, chars: number) =>
    ev({ type: 'tool.budgeted', toolUseId, ...where, chars })
  const recording = indexRecording(
    stamp(
      parsed('read', 'Dump'),
      completed('read'),
      budgeted('read', { path: '/r/read.txt' }, 5),
      parsed('gone', 'Dump'),
      completed('gone'),
      budgeted('gone', { path: '/r/gone.txt' }, 3),
      parsed('failed', 'Dump'),
      completed('failed'),
      budgeted('failed', { error: 'disk full' }, 2),
      parsed('unnamed', 'Dump'),
      completed('unnamed'),
      parsed('kept', 'Echo'),
      ev({ type: 'tool.completed', toolUseId: 'kept', output: 'small' }),
    ),
  )

  it('reads back what it can, stands in for the rest with the recorded size, and lists those calls', () => {
    const asked: string[] = []
    const readResult = (path: string) => {
      asked.push(path)
      return path === '/r/read.txt' ? 'hello' : undefined
    }
    const { texts, unread } = savedOutputs(T, recording, readResult)
    // Only a recorded path is asked about; an output kept in the log is not saved output.
    expect(asked).toStrictEqual(['/r/read.txt', '/r/gone.txt'])
    expect(Object.fromEntries(texts)).toStrictEqual({ read: 'hello', gone: '………', failed: '……', unnamed: '' })
    const preview = "so its preview, which quotes it, is the log's"
    expect(unread).toStrictEqual([
      {
        turnId: T,
        toolUseId: 'gone',
        tool: 'Dump',
        position: 5,
        step: 'budget',
        message: `the saved output /r/gone.txt is not there to read, ${preview}`,
      },
      {
        turnId: T,
        toolUseId: 'failed',
        tool: 'Dump',
        position: 8,
        step: 'budget',
        message: `the output was not saved (disk full), ${preview}`,
      },
    ])
  })

  it('stands in with the line count the preview gave, each line break one of its characters', () => {
    const preview = 'Output too large to show whole (5 characters, 3 lines); the full output is saved to /r/x'
    const lined = indexRecording(
      stamp(
        parsed('x', 'Dump'),
        completed('x'),
        budgeted('x', { path: '/r/x' }, 5),
        ev({
          type: 'tool.result',
          toolUseId: 'x',
          outcome: 'success',
          block: { type: 'tool_result', tool_use_id: 'x', content: preview },
        }),
      ),
    )
    expect(savedOutputs(T, lined, () => undefined).texts.get('x')).toBe('\n\n………')
  })

  it('a saved output no longer as long as the log says is stood in for, and said to have changed', () => {
    const one = indexRecording(stamp(parsed('x', 'Dump'), completed('x'), budgeted('x', { path: '/r/x' }, 5)))
    const { texts, unread } = savedOutputs(T, one, () => 'hell')
    expect(texts.get('x')).toBe('……………')
    expect(unread[0]?.message).toBe(
      "the saved output /r/x has changed since (4 characters, not 5), so its preview, which quotes it, is the log's",
    )
  })

  it('a save that failed without a reason says so', () => {
    const bare = indexRecording(stamp(parsed('x', 'Dump'), completed('x'), budgeted('x', {}, 1)))
    expect(savedOutputs(T, bare, () => 'never asked').unread[0]?.message).toBe(
      "the output was not saved (no reason recorded), so its preview, which quotes it, is the log's",
    )
  })
})
