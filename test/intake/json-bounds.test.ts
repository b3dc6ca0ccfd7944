/** jsonProblem alone: what the log could not serialise, found without recursion. */
import { describe, expect, it } from 'vitest'
import { jsonProblem, MAX_INPUT_DEPTH, MAX_INPUT_VALUES } from '../../src/intake/json-bounds.js'

function nested(levels: number, wrap: (inner: unknown) => unknown = (inner) => ({ a: inner })): unknown {
  let value: unknown = 'leaf'
  for (let i = 0; i < levels; i++) value = wrap(value)
  return value
}

describe('jsonProblem', () => {
  it('plain JSON values are fine', () => {
    for (const value of [null, 0, -0, 1.5, '', 'x', true, [], {}, { a: [1, 'b', { c: null }] }, [[[]]]])
      expect(jsonProblem(value), JSON.stringify(value)).toBeUndefined()
  })

  it('undefined fields are fine (JSON leaves them out)', () => {
    expect(jsonProblem({ a: undefined, b: [undefined] })).toBeUndefined()
    expect(jsonProblem(undefined)).toBeUndefined()
  })

  it(`nesting: ${MAX_INPUT_DEPTH} levels of objects are fine, one more is not; arrays count too`, () => {
    expect(jsonProblem(nested(MAX_INPUT_DEPTH))).toBeUndefined()
    expect(jsonProblem(nested(MAX_INPUT_DEPTH + 1))).toBe(`it is nested more than ${MAX_INPUT_DEPTH} levels deep`)
    expect(jsonProblem(nested(MAX_INPUT_DEPTH + 1, (inner) => [inner]))).toMatch(/nested more than 256/)
    expect(jsonProblem(nested(100_000))).toMatch(/nested more than 256/)
  })

  it('cycles, direct and through an array, are named', () => {
    const self: Record<string, unknown> = {}
    self.me = self
    const ring: unknown[] = [{ x: 1 }]
    ;(ring[0] as Record<string, unknown>).back = ring
    for (const value of [self, ring, { deep: { deeper: self } }])
      expect(jsonProblem(value)).toBe('it refers to itself (a cycle), which JSON cannot express')
  })

  it('shared references are not cycles: the same object twice, side by side or at different depths', () => {
    const shared = { s: [1, 2] }
    expect(jsonProblem({ a: shared, b: shared, c: [shared, { d: shared }] })).toBeUndefined()
    expect(jsonProblem([shared, shared, shared])).toBeUndefined()
    const leafless = {}
    expect(jsonProblem({ x: leafless, y: { z: leafless } })).toBeUndefined()
  })

  it('a shared object after a sibling subtree is still fine (the path is left when a subtree is done)', () => {
    const shared = { k: 1 }
    expect(jsonProblem({ first: { inner: shared, more: [1, 2, 3] }, second: shared })).toBeUndefined()
    expect(jsonProblem([[shared, [shared]], shared])).toBeUndefined()
  })

  it('BigInt, functions and symbols are not JSON', () => {
    expect(jsonProblem({ n: 10n })).toBe('a bigint is not JSON')
    expect(jsonProblem([() => 1])).toBe('a function is not JSON')
    expect(jsonProblem({ s: Symbol('x') })).toBe('a symbol is not JSON')
  })

  it('NaN and the infinities are not JSON numbers', () => {
    expect(jsonProblem({ x: Number.NaN })).toBe('NaN is not a JSON number')
    expect(jsonProblem([Infinity])).toBe('Infinity is not a JSON number')
    expect(jsonProblem(-Infinity)).toBe('-Infinity is not a JSON number')
  })

  it(`more than ${MAX_INPUT_VALUES} values (shared references multiply) is refused`, () => {
    // 2^21 paths through 21 levels of one shared pair: tiny in memory, huge as JSON.
    let value: unknown = 0
    for (let i = 0; i < 21; i++) value = [value, value]
    expect(jsonProblem(value)).toBe(`it holds more than ${MAX_INPUT_VALUES} values`)
    expect(jsonProblem(new Array(MAX_INPUT_VALUES - 1).fill(0))).toBeUndefined()
  })
})
