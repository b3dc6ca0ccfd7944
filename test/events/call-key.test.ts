import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { callKey } from '../../src/events/call-key.js'
import { runs } from '../runs.js'

describe('callKey', () => {
  it('the same tool_use_id in two turns gives two keys', () => {
    expect(callKey('T1', 'a')).not.toBe(callKey('T2', 'a'))
  })

  it('is injective over kernel turn ids (no NUL) and any model-chosen id, NUL included', () => {
    const turnId = fc.string().filter((s) => !s.includes('\u0000'))
    fc.assert(
      fc.property(turnId, fc.string(), turnId, fc.string(), (t1, u1, t2, u2) => {
        fc.pre(t1 !== t2 || u1 !== u2)
        expect(callKey(t1, u1)).not.toBe(callKey(t2, u2))
      }),
      { numRuns: runs(300) },
    )
  })
})
