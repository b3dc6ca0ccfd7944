/**
 * Glob keeps memory bounded (issue 30: over 10⁵ files it held ~500 MB to return 3 KB). Measured
 * deterministically, not by RSS or time: `stat` from node:fs/promises is wrapped to count the
 * stats in flight at once (each holds a Stats object and a promise until it settles), and the
 * port's answer is checked to hold no more than the limit asked for.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type * as FsPromises from 'node:fs/promises'
import { afterAll, describe, expect, it, vi } from 'vitest'

const flight = vi.hoisted(() => ({ now: 0, peak: 0, calls: 0 }))
vi.mock('node:fs/promises', async (importOriginal) => {
  const original = await importOriginal<typeof FsPromises>()
  const stat = (async (...args: Parameters<typeof original.stat>) => {
    flight.calls++
    flight.peak = Math.max(flight.peak, ++flight.now)
    try {
      return await original.stat(...args)
    } finally {
      flight.now--
    }
  }) as typeof original.stat
  return { ...original, default: { ...original, stat }, stat }
})

// Fresh modules, so the search imports the counting `stat` even when an earlier test file in this
// worker (isolate: false) already loaded it with the real one; reset again once it is loaded.
vi.resetModules()
const { createFileSearch } = await import('../../src/adapters/file-search.js')
vi.resetModules()

const FILES = 3000
const root = mkdtempSync(join(tmpdir(), 'tk-glob-memory-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
for (let d = 0; d < 10; d++) {
  mkdirSync(join(root, `d${d}`))
  for (let f = 0; f < FILES / 10; f++) {
    const path = join(root, `d${d}`, `f${f}.txt`)
    writeFileSync(path, '')
    // Distinct mtimes: file n is n seconds old, so the newest are d0/f0, d1/f0, …
    const t = 1_700_000_000 - (f * 10 + d)
    utimesSync(path, t, t)
  }
}

describe('Glob over many files', () => {
  it('holds a bounded number of entries however many match, and keeps only the newest `limit`', async () => {
    flight.peak = 0
    flight.calls = 0
    const found = await createFileSearch().glob('**/*.txt', root, { limit: 5 })
    const { matches, total } = Array.isArray(found) ? { matches: found, total: found.length } : found
    expect(flight.calls).toBeGreaterThanOrEqual(FILES)
    expect(flight.peak).toBeLessThanOrEqual(64)
    expect(total).toBe(FILES)
    expect(matches.map((m) => m.path)).toEqual(['d0/f0.txt', 'd1/f0.txt', 'd2/f0.txt', 'd3/f0.txt', 'd4/f0.txt'])
  })

  it('leaves out what `excluded` names before counting, and stops when aborted', async () => {
    const found = await createFileSearch().glob('**/*.txt', root, {
      limit: 3,
      excluded: (path) => path.startsWith('d0/'),
    })
    const { matches, total } = Array.isArray(found) ? { matches: found, total: found.length } : found
    expect(total).toBe(FILES - FILES / 10)
    expect(matches.map((m) => m.path)).toEqual(['d1/f0.txt', 'd2/f0.txt', 'd3/f0.txt'])
    expect(await createFileSearch().glob('**/*.txt', root, { limit: 0 })).toEqual({ matches: [], total: FILES })
    const aborted = AbortSignal.abort(new Error('stop'))
    await expect(createFileSearch().glob('**/*.txt', root, { limit: 3, signal: aborted })).rejects.toThrow()
  })
})
