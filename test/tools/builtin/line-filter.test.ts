import { describe, expect, it } from 'vitest'
import { lineFilter } from '../../../src/tools/builtin/line-filter.js'

const refused = (pattern: string): string => {
  const filter = lineFilter(pattern)
  if (filter.ok) throw new Error(`${pattern} was taken`)
  return filter.message
}

describe('BashOutput line filter', () => {
  it('takes plain text and simple expressions', () => {
    for (const pattern of [
      'error',
      'ERROR.*timeout',
      '^\\s*at ',
      'GET /api/\\w+',
      'a|b',
      '(?:GET|POST) /',
      '(?<verb>GET) \\d{3}',
      '[(*+]x+',
    ])
      expect(lineFilter(pattern).ok, pattern).toBe(true)
    const filter = lineFilter('^a \\d')
    expect(filter.ok && filter.test('a 1')).toBe(true)
    expect(filter.ok && filter.test('b 1')).toBe(false)
  })

  it('refuses what could backtrack for long, saying why', () => {
    expect(refused('(a+)+$')).toContain('puts a quantifier on a group')
    expect(refused('(a|aa)*')).toContain('puts a quantifier on a group')
    expect(refused('(\\w+)\\1')).toContain('uses a backreference')
    expect(refused('(?=a)b')).toContain('uses a lookaround')
    expect(refused('(?<!a)b')).toContain('uses a lookaround')
    expect(refused('a.*b.*c')).toContain('more than one unbounded quantifier')
    expect(refused('a{1,50}')).toContain('has a bound of 50')
    expect(refused('a?b?c?d?')).toContain('more than 3 quantifiers')
    expect(refused('x'.repeat(201))).toContain('201 characters long')
    expect(refused('(')).toContain('not a valid regular expression')
  })

  it('matches a long line on its first 1,000 characters', () => {
    const filter = lineFilter('needle')
    expect(filter.ok && filter.test(`${'x'.repeat(999)}needle`)).toBe(false)
    expect(filter.ok && filter.test(`${'x'.repeat(994)}needle`)).toBe(true)
  })
})
