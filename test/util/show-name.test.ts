import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { showName } from '../../src/util/show-name.js'

/** What a reader of tool output takes as the end of a line. */
const BREAKS = /[\n\r\u000b\u000c\u0085\u2028\u2029]/

describe('showName', () => {
  it('leaves ordinary names as they are, and quotes one that starts with a double quote', () => {
    expect(showName('src/a b/ü €.ts')).toBe('src/a b/ü €.ts')
    expect(showName('"x".txt')).toBe('"\\"x\\".txt"')
  })

  it('never puts a line break in the output, and a quoted name reads back as the name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (name) => {
        const shown = showName(name)
        expect(shown).not.toMatch(BREAKS)
        if (shown !== name) expect(JSON.parse(shown)).toBe(name)
        else expect(name.startsWith('"')).toBe(false)
      }),
      { numRuns: 500 },
    )
  })
})
