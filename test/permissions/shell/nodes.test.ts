// The small helpers over the syntax tree, alone (nodes.ts): how a reason quotes a long text, what
// counts as a substitution the grammar did not read, and which names arithmetic text uses.
import { describe, expect, it } from 'vitest'
import { hasUnparsedSubstitution, identifiersIn, snippet } from '../../../src/permissions/shell/nodes.js'

describe('snippet', () => {
  it('quotes a text of up to 60 characters whole, and cuts a longer one to 57 and an ellipsis', () => {
    expect(snippet('a'.repeat(60))).toBe(JSON.stringify('a'.repeat(60)))
    expect(snippet('b'.repeat(61))).toBe(JSON.stringify(`${'b'.repeat(57)}...`))
    expect(snippet('say "hi"')).toBe('"say \\"hi\\""')
  })
})

describe('hasUnparsedSubstitution', () => {
  it.each([
    ['`rm x`', true],
    ['a$(rm x)', true],
    ['${x@P}', true],
    ['$[x]', true],
    // Escaped, each is text.
    ['\\`rm x\\`', false],
    ['\\$(rm x)', false],
    ['\\\\`x`', true],
    // A $ before anything else, or at the end, expands nothing that runs.
    ['$x', false],
    ['a$', false],
    ['price: 5$', false],
    ['', false],
  ])('%j: %s', (text, expected) => {
    expect(hasUnparsedSubstitution(text)).toBe(expected)
  })
})

describe('identifiersIn', () => {
  it.each([
    ['a[i]+b', ['a', 'i', 'b']],
    ['0x1f + 10', []],
    ['_x2*y_', ['_x2', 'y_']],
    ['', []],
    ['3abc', []],
  ])('%j names %j', (text, names) => {
    expect(identifiersIn(text)).toEqual(names)
  })
})
