/** The turn budget alone: claimBudget's two limits, previewOf's head and tail, textOf. */
import { describe, expect, it } from 'vitest'
import { claimBudget, PREVIEW_CHARS, previewOf, textOf, type TurnBudget } from '../../../src/actors/turn/budget.js'

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
    const b = budget(100, 90)
    expect(claimBudget(b, 11, 1000)).toBe(true)
    expect(b.used).toBe(90)
    expect(claimBudget(b, 10, 1000)).toBe(false)
    expect(b.used).toBe(100)
  })

  it('a tool that is never persisted (Infinity) is not, even past the message budget, but it uses room', () => {
    const b = budget(100, 90)
    expect(claimBudget(b, 500, Infinity)).toBe(false)
    expect(b.used).toBe(590)
    expect(claimBudget(b, 1, 1000)).toBe(true)
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
