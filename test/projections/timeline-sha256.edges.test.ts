/**
 * sha256Base64 against node:crypto on every length from 0 to 200 bytes (every padding case, one to
 * four blocks, each base64 tail) and on multi-byte UTF-8: the page's CSP hashes must match exactly,
 * or the browser blocks its own script.
 */
import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { sha256Base64 } from '../../src/projections/timeline-sha256.js'

const node = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64')
/** Varied bytes, so that every word of the schedule and every round constant counts. */
const ascii = (length: number) => Array.from({ length }, (_, i) => String.fromCharCode(32 + ((i * 37) % 95))).join('')

describe('sha256Base64 agrees with node:crypto', () => {
  it('on every ASCII length 0..200', () => {
    const lengths = Array.from({ length: 201 }, (_, n) => n)
    expect(lengths.map((n) => sha256Base64(ascii(n)))).toEqual(lengths.map((n) => node(ascii(n))))
  })

  // Two-, three- and four-byte UTF-8 sequences, surrogate pairs and the separators the page escapes.
  it.each([
    ['two-byte', 'é'.repeat(33)],
    ['three-byte', '€\u2028\u2029'.repeat(21)],
    ['four-byte (surrogate pairs)', '😀'.repeat(17)],
    ['mixed, over many blocks', `a é € 😀 </script>\n${'ß'.repeat(300)}`],
    ['a NUL and high bytes', '\u0000\u00ff\u0100'],
  ])('on %s text', (_, text) => {
    expect(sha256Base64(text)).toBe(node(text))
  })

  it('with the known digest of "abc"', () => {
    expect(sha256Base64('abc')).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=')
  })
})
