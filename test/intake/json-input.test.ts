/** parseToolInput alone: empty is {}, JSON that stops early is "cut off", other errors keep the parser's words. */
import { describe, expect, it } from 'vitest'
import { parseToolInput } from '../../src/intake/json-input.js'

const cutOff = (text: string) => ({
  input: text,
  inputError: `it was cut off after ${text.length} characters, before the JSON was complete`,
})

describe('parseToolInput', () => {
  it('empty or blank text is an empty object (a tool without parameters streams no fragments)', () => {
    expect(parseToolInput('')).toEqual({ input: {} })
    expect(parseToolInput(' \n\t')).toEqual({ input: {} })
  })

  it('whole JSON is parsed, whatever its type (the call checks that it is an object)', () => {
    expect(parseToolInput('{"a":[1,{"b":null}]}')).toEqual({ input: { a: [1, { b: null }] } })
    expect(parseToolInput('  [1]  ')).toEqual({ input: [1] })
    expect(parseToolInput('"s"')).toEqual({ input: 's' })
  })

  it.each([
    '{"a": 1',
    '{"a": 1,',
    '{"a":',
    '{"a"',
    '{',
    '[1, 2',
    '{"a": "unterminated',
    '{"a": "ends in an escape \\',
    '{"a": "\\u00',
    '{"a": tru',
    '{"a": 1.',
    '{"a": -',
    '{"a": {"b": [',
    '{"a": 1   ',
    '{"a": "}"',
    '"a top-level string',
    '"ends in an escaped quote \\"',
  ])('cut off: %j', (text) => {
    expect(parseToolInput(text)).toEqual(cutOff(text))
  })

  it.each([
    ['{"a": x}', /Unexpected token 'x'/],
    ['{"a":1}}', /Unexpected non-whitespace character after JSON/],
    ['{"a": 1 "b": 2', /Expected ',' or '}' after property value/],
    ['{"a": [1 2', /Expected ',' or ']' after array element/],
    ['}', /Unexpected token/],
    // Failing at the very end is not enough: nothing is left open, so it is not a cut-off object.
    ['tru', /Unexpected end of JSON input/],
    ['-', /No number after minus sign/],
  ])('malformed, with the parser message: %j', (text, message) => {
    const parsed = parseToolInput(text)
    expect(parsed.input).toBe(text)
    expect(parsed.inputError).toMatch(message)
    expect(parsed.inputError).not.toMatch(/cut off/)
  })

  it('braces and brackets inside strings do not count as open', () => {
    expect(parseToolInput('{"a": "{[{["}}')).toEqual({
      input: '{"a": "{[{["}}',
      inputError: expect.stringMatching(/non-whitespace character after JSON/) as unknown as string,
    })
    expect(parseToolInput('{"q": "\\"{"')).toEqual(cutOff('{"q": "\\"{"'))
  })
})
