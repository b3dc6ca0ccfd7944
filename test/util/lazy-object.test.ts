/** lazyObject (decision 171): built once, on first use, and indistinguishable from the object after. */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { lazyObject } from '../../src/util/lazy-object.js'
import { KernelEventSchema } from '../../src/events/event.schema.js'

describe('lazyObject', () => {
  it('builds nothing until used, then once', () => {
    let built = 0
    const value = lazyObject(() => {
      built++
      return { a: 1, twice: (n: number) => n * 2 }
    })
    expect(built).toBe(0)
    expect(value.a).toBe(1)
    expect(value.twice(4)).toBe(8)
    expect('a' in value).toBe(true)
    expect(built).toBe(1)
  })

  it('behaves as the object: keys, spread, getters, instanceof, writes', () => {
    class Thing {
      n = 2
      get double(): number {
        return this.n * 2
      }
    }
    const value = lazyObject(() => new Thing())
    expect(value).toBeInstanceOf(Thing)
    expect(Object.keys(value)).toEqual(['n'])
    expect({ ...value }).toEqual({ n: 2 })
    value.n = 5
    expect(value.double).toBe(10)
  })

  it('the event union works through it: parse, safeParse, and inside another schema', () => {
    const event = { v: 2, seq: 0, at: 1, type: 'turn.completed', turnId: 't', results: 0 }
    expect(KernelEventSchema.parse(event)).toEqual(event)
    expect(KernelEventSchema.safeParse({ ...event, type: 'nope' }).success).toBe(false)
    expect(z.array(KernelEventSchema).parse([event])).toEqual([event])
    expect(KernelEventSchema).toBeInstanceOf(z.ZodType)
  })
})
