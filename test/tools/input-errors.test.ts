import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { closest, describeIssues, editDistance, schemaHint } from '../../src/tools/input-errors.js'

describe('describeIssues', () => {
  const schema = z.strictObject({
    path: z.string(),
    limit: z.number().int().min(1).optional(),
    mode: z.enum(['a', 'b']).optional(),
  })
  const describe_ = (input: unknown) => {
    const r = schema.safeParse(input)
    return r.success ? [] : describeIssues(r.error.issues, input)
  }

  it('names missing fields with the expected type', () => {
    expect(describe_({})).toEqual(['missing required field `path` (expected string)'])
  })
  it('names wrong types with expected and received', () => {
    expect(describe_({ path: 3 })).toEqual(['`path` must be a string, got a number'])
    expect(describe_({ path: [] })).toEqual(['`path` must be a string, got an array'])
    expect(describe_({ path: null })).toEqual(['`path` must be a string, got null'])
  })
  it('names unexpected fields', () => {
    expect(describe_({ path: 'x', colour: 1, size: 2 })).toEqual(['unexpected field `colour`; unexpected field `size`'])
  })
  it('lists allowed values and range limits', () => {
    expect(describe_({ path: 'x', mode: 'c' })).toEqual(['`mode` must be one of "a", "b", got "c"'])
    expect(describe_({ path: 'x', limit: 0 })[0]).toMatch(/^`limit`: too small/)
  })
})

describe('schemaHint', () => {
  it('summarises fields, optional ones marked', () => {
    expect(
      schemaHint({
        properties: {
          path: { type: 'string' },
          n: { type: 'integer' },
          m: { enum: ['a', 'b'] },
          xs: { type: 'array', items: { type: 'string' } },
        },
        required: ['path'],
      }),
    ).toBe('{ path: string, n?: integer, m?: "a" | "b", xs?: string[] }')
  })
})

describe('closest', () => {
  it('suggests a near name, case-insensitively, and nothing for a far one', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(closest('Reed', ['Read', 'Write', 'Bash'])).toBe('Read')
    expect(closest('bash', ['Read', 'Write', 'Bash'])).toBe('Bash')
    expect(closest('Deploy', ['Read', 'Write', 'Bash'])).toBeUndefined()
  })
})
