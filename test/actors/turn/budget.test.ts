/** The turn budget alone: claimBudget's two limits, previewOf's head and tail, textOf. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  claimBudget,
  KEEP_WHOLE_CHARS,
  PREVIEW_CHARS,
  previewOf,
  textOf,
  type TurnBudget,
} from '../../../src/actors/turn/budget.js'
import { runs } from '../../runs.js'

const budget = (limit: number, used = 0): TurnBudget => ({ limit, used })

describe('claimBudget', () => {
  it('within both limits: not persisted, and its room is reserved in the message', () => {
    const b = budget(100, 10)
    expect(claimBudget(b, 50, 60)).toBe(false)
    expect(b.used).toBe(60)
  })

  it("exactly at the tool's limit, or exactly filling the message, is still not persisted", () => {
    const b = budget(100)
    expect(claimBudget(b, 60, 60)).toBe(false)
    expect(claimBudget(b, 40, 1000)).toBe(false)
    expect(b.used).toBe(100)
  })

  it("past the tool's own limit: persisted, and nothing is reserved for it", () => {
    const b = budget(1000, 5)
    expect(claimBudget(b, 61, 60)).toBe(true)
    expect(b.used).toBe(5)
  })

  it('past what the message has left: persisted, even under the tool limit', () => {
    const b = budget(10_000, 8_000)
    expect(claimBudget(b, 2_001, 5_000)).toBe(true)
    expect(b.used).toBe(8_000)
    expect(claimBudget(b, 2_000, 5_000)).toBe(false)
    expect(b.used).toBe(10_000)
  })

  // A preview's notice alone is some 250 characters: persisting a short output for the message
  // budget gave the model a preview longer than the output it replaced (failed before the fix).
  it('an output no longer than KEEP_WHOLE_CHARS is kept whole past the message budget, and counted', () => {
    const b = budget(100, 100)
    expect(claimBudget(b, KEEP_WHOLE_CHARS, 5_000)).toBe(false)
    expect(b.used).toBe(100 + KEEP_WHOLE_CHARS)
    expect(claimBudget(b, KEEP_WHOLE_CHARS + 1, 5_000)).toBe(true)
    expect(b.used).toBe(100 + KEEP_WHOLE_CHARS)
  })

  it("…but not past the tool's own limit, which the tool chose", () => {
    const b = budget(10_000)
    expect(claimBudget(b, 101, 100)).toBe(true)
    expect(b.used).toBe(0)
  })

  it('a tool that is never persisted (Infinity) is not, even past the message budget, but it uses room', () => {
    const b = budget(10_000, 9_000)
    expect(claimBudget(b, 5_000, Infinity)).toBe(false)
    expect(b.used).toBe(14_000)
    expect(claimBudget(b, KEEP_WHOLE_CHARS + 1, 5_000)).toBe(true)
  })
})

describe('previewOf', () => {
  const big = `${'h'.repeat(PREVIEW_CHARS)}${'m'.repeat(5000)}\nline two\n${'t'.repeat(PREVIEW_CHARS - 1)}E`

  it('keeps the head and the tail (where errors are), says how much was left out, and where the rest is', () => {
    const preview = previewOf(big, '/results/T/tu.txt')
    const lines = preview.split('\n')
    expect(lines[0]).toBe(
      `Output too large to show whole (${big.length} characters, 3 lines); the full output is saved to /results/T/tu.txt — read parts of it with Read (offset and limit) or search it with Grep.`,
    )
    expect(preview).toContain(`First ${PREVIEW_CHARS} characters:\n${'h'.repeat(PREVIEW_CHARS)}\n[…`)
    expect(preview).toContain(`[… ${big.length - 2 * PREVIEW_CHARS} characters omitted …]`)
    expect(preview.endsWith(`Last ${PREVIEW_CHARS} characters:\n${big.slice(-PREVIEW_CHARS)}`)).toBe(true)
    expect(preview.endsWith('tE')).toBe(true)
    expect(preview).not.toContain('line two')
  })

  it('without a path: says it could not be saved and why, or that there is no result store', () => {
    expect(previewOf(big, undefined, 'ENOSPC: no space left on device').split('\n')[0]).toMatch(
      /; it could not be saved \(ENOSPC: no space left on device\), so only its beginning and end are shown\.$/,
    )
    expect(previewOf(big, undefined).split('\n')[0]).toMatch(/it could not be saved \(no result store\)/)
  })

  // Bug: a text shorter than head + tail (a tool with a small maxResultSizeChars, or a small result
  // the message budget had no room for) is shown twice — head and tail overlap — under
  // "[… -N characters omitted …]", so the preview is longer than the output it replaces.
  it('a text shorter than head and tail together is shown once, with nothing negative omitted', () => {
    const text = `${'x'.repeat(1500)}END`
    const preview = previewOf(text, '/results/tu.txt')
    expect(preview).not.toMatch(/-\d+ characters omitted/)
    expect(preview.split('END').length - 1).toBe(1)
  })
})

describe('previewOf is shorter than the output it replaces', () => {
  const path = '/results/a-turn-id/a-tool-use-id.txt'

  it('for any output longer than KEEP_WHOLE_CHARS, saved or not', () => {
    fc.assert(
      fc.property(fc.integer({ min: KEEP_WHOLE_CHARS + 1, max: 20_000 }), fc.boolean(), (length, saved) => {
        const text = 'x'.repeat(length)
        const preview = saved ? previewOf(text, path) : previewOf(text, undefined, 'ENOSPC')
        expect(preview.length).toBeLessThan(length)
      }),
      { numRuns: runs(200) },
    )
  })

  it('shows fewer than PREVIEW_CHARS from each end when both would make it as long as the output', () => {
    const text = `${'a'.repeat(2_000)}${'z'.repeat(2_000)}`
    const preview = previewOf(text, path)
    const side = Number(/First (\d+) characters:/.exec(preview)?.[1])
    expect(side).toBeGreaterThan(1_500)
    expect(side).toBeLessThan(PREVIEW_CHARS)
    expect(preview).toContain(
      `First ${side} characters:\n${'a'.repeat(side)}\n[… ${4_000 - 2 * side} characters omitted …]`,
    )
    expect(preview.endsWith(`Last ${side} characters:\n${'z'.repeat(side)}`)).toBe(true)
  })

  it('a saved output gets no more of its ends than the message has room for', () => {
    const text = `${'a'.repeat(5_000)}${'z'.repeat(5_000)}`
    const some = previewOf(text, path, undefined, 600)
    expect(some.length).toBeLessThanOrEqual(600)
    expect(some).toMatch(/First \d{2,3} characters:\naaaa/)
    const none = previewOf(text, path, undefined, 0)
    expect(none).not.toContain('aa')
    expect(none).toMatch(/^Output too large to show whole \(10000 characters, 1 lines\); the full output is saved to /)
    expect(none).toMatch(/this message has no room left to show any of it\.$/)
  })

  // A tool's own small limit: the notice and frame alone are longer than the output, so it is
  // shown whole rather than as "no room left" or empty ends.
  it('an output shorter than a preview frame is shown whole after the notice, saved or not', () => {
    const text = `${'s'.repeat(149)}E`
    expect(previewOf(text, path)).toBe(
      `Output over its size limit (150 characters, 1 lines); the full output is saved to ${path} — read parts of it with Read (offset and limit) or search it with Grep. It is short enough to show whole:\n\n${text}`,
    )
    expect(previewOf(text, undefined, 'ENOSPC', 0)).toBe(
      `Output over its size limit (150 characters, 1 lines); it could not be saved (ENOSPC). It is short enough to show whole:\n\n${text}`,
    )
  })

  it('never shows ends of 0 characters: at every length and every room, the ends or no ends', () => {
    for (let length = 1; length <= 1_200; length++) {
      const preview = previewOf('x'.repeat(length), path)
      expect(preview, `length ${length}`).not.toMatch(/First 0 characters|no room left/)
    }
    for (let room = 0; room <= 800; room++) {
      const preview = previewOf('x'.repeat(10_000), path, undefined, room)
      expect(preview, `room ${room}`).not.toMatch(/First 0 characters/)
    }
  })

  it('an output that could not be saved shows its ends whatever the room: it is nowhere else', () => {
    const text = `${'a'.repeat(5_000)}${'z'.repeat(5_000)}`
    expect(previewOf(text, undefined, 'ENOSPC', 0)).toContain(`First ${PREVIEW_CHARS} characters:`)
  })
})

describe('textOf', () => {
  it('string content as it is; text parts joined by newlines, images counting as empty', () => {
    expect(textOf({ type: 'tool_result', tool_use_id: 'a', content: 'plain' })).toBe('plain')
    expect(
      textOf({
        type: 'tool_result',
        tool_use_id: 'a',
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toBe('one\n\ntwo')
  })
})
