import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { UnreadBuffer } from '../../src/adapters/background-process.js'

describe('UnreadBuffer', () => {
  it('keeps what fits whole, and its head and tail with a count of the rest otherwise (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary-ascii', maxLength: 40 }), { maxLength: 60 }), (chunks) => {
        const buffer = new UnreadBuffer(50, 80)
        for (const chunk of chunks) buffer.push(chunk)
        const all = chunks.join('')
        const { head, tail, droppedChars } = buffer.take()
        if (all.length <= 130) expect({ head, tail, droppedChars }).toEqual({ head: all, tail: '', droppedChars: 0 })
        else {
          expect(head).toBe(all.slice(0, 50))
          expect(tail).toBe(all.slice(all.length - 80))
          expect(droppedChars).toBe(all.length - 130)
        }
        // A read forgets what it returned.
        expect(buffer.take()).toEqual({ head: '', tail: '', droppedChars: 0 })
      }),
      { numRuns: 200 },
    )
  })

  it('stays bounded however much arrives unread', () => {
    const buffer = new UnreadBuffer(10, 20)
    for (let i = 0; i < 100_000; i++) buffer.push(`line ${i}\n`)
    const { head, tail, droppedChars } = buffer.take()
    expect(head).toBe('line 0\nlin')
    expect(tail.length).toBe(20)
    expect(tail.endsWith('line 99999\n')).toBe(true)
    expect(head.length + tail.length + droppedChars).toBeGreaterThan(1_000_000)
  })
})
