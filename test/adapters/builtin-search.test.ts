import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileSearch } from '../../src/adapters/file-search.js'
import type { GrepOptions } from '../../src/index.js'

const root = mkdtempSync(join(tmpdir(), 'toolkernel-pieces-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const whole = createFileSearch({ ripgrep: false })
const request = (more: Partial<GrepOptions>): GrepOptions => ({
  pattern: 'hit',
  root,
  ignoreCase: false,
  context: 0,
  mode: 'content',
  limit: 100,
  ...more,
})

describe('the built-in search in pieces', () => {
  it('finds the same lines and context when a file is matched a piece at a time', async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('hit', 'a', 'b hit b', '', 'x'.repeat(40), 'hit\r'), { maxLength: 60 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.integer({ min: 1, max: 90 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom('hit', '^hit$', 'b$', '^$', 'a|x', 'hit(?=\\r?$)'),
        fc.constantFrom(3, 100),
        async (lines, eol, finalEol, pieceBytes, context, pattern, limit) => {
          const file = `f${++n}.txt`
          writeFileSync(join(root, file), lines.join(eol) + (finalEol && lines.length > 0 ? eol : ''))
          const pieces = createFileSearch({ ripgrep: false, builtinPieceBytes: pieceBytes })
          const req = request({ root: join(root, file), pattern, context, limit })
          expect(await pieces.grep(req)).toEqual(await whole.grep(req))
        },
      ),
      { numRuns: 150 },
    )
  })

  it('stops at a NUL past the first 64 KiB, in pieces too', async () => {
    const text = `${'hit\n'.repeat(20_000)}x\0\nhit\n`
    writeFileSync(join(root, 'late-nul.txt'), text)
    for (const pieceBytes of [1000, 16 * 1024 * 1024]) {
      const search = createFileSearch({ ripgrep: false, builtinPieceBytes: pieceBytes })
      expect((await search.grep(request({ root: join(root, 'late-nul.txt'), mode: 'count' }))).lines).toEqual([
        'late-nul.txt:20000',
      ])
    }
  })
})
