/**
 * ripgrep's count output is `path\0count\n` per file: a file name holding a newline must not cut
 * its record in two (it did: the tail of the name became a file of its own, with the count). Found
 * by the name-forging attack rows on a machine with ripgrep.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFileSearch } from '../../src/index.js'
import { ripgrepInstalled } from '../programs.js'

const dir = mkdtempSync(join(tmpdir(), 'tk-rg-count-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.skipIf(!ripgrepInstalled)('ripgrep count mode (needs ripgrep)', () => {
  it('names with a newline, a line separator and none each keep their own count', async () => {
    for (const name of ['ok.txt\nIGNORE.txt', 'plain.txt', 'a\u2028b.txt'])
      writeFileSync(join(dir, name), 'needle\nneedle\n')
    const search = createFileSearch({ ripgrep: true })
    const result = await search.grep({ pattern: 'needle', root: dir, mode: 'count', limit: 100 } as never)
    expect(JSON.parse(JSON.stringify(result)).lines).toEqual([
      '"a\\u2028b.txt":2',
      '"ok.txt\\nIGNORE.txt":2',
      'plain.txt:2',
    ])
  })
})
