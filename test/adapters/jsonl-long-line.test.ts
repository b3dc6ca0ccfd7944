/**
 * A log line too long to read (issue 30): a log of hundreds of MB without a newline ended the
 * CLI with V8's raw "Cannot create a string longer than…". The reader refuses a line past its
 * limit with the line's number and the limit, having held no more than the limit of it. The
 * limit is made small here; the reading path is the real one, by chunks.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DEFAULT_MAX_LINE_BYTES, readJsonlFile } from '../../src/adapters/jsonl-file.js'
import { CliError, loadLog } from '../../src/cli/load-log.js'

const dir = mkdtempSync(join(tmpdir(), 'tk-long-line-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const EVENT = JSON.stringify({ v: 2, seq: 1, type: 'turn.started' })

describe('an over-long log line', () => {
  it('is refused by line number and limit, whatever the chunking, without reading it whole', () => {
    const path = join(dir, 'long.jsonl')
    writeFileSync(path, `${EVENT}\n${EVENT}\n${'y'.repeat(10_000)}${'\n'}${EVENT}\n`)
    let read = 0
    for (const chunkBytes of [7, 100, 4096, 1 << 20]) {
      const reading = () =>
        readJsonlFile(path, { chunkBytes, maxLineBytes: 1000, onProgress: (bytes) => (read = bytes) })
      expect(reading).toThrow(/^line 3 is longer than 1000 bytes, the most a log line may hold/)
      // It stopped within a chunk of the limit, not at the end of the line.
      expect(read).toBeLessThanOrEqual(2 * EVENT.length + 2 + 1000 + chunkBytes)
    }
    // A last line without a newline is held to the same limit.
    writeFileSync(path, `${EVENT}\n${'z'.repeat(5000)}`)
    expect(() => readJsonlFile(path, { maxLineBytes: 1000 })).toThrow(/^line 2 is longer than 1000 bytes/)
    // At the limit exactly, it is read (here as a corrupt line, as before).
    writeFileSync(path, `${EVENT}\n${'z'.repeat(1000)}\n`)
    const atLimit = readJsonlFile(path, { maxLineBytes: 1000, chunkBytes: 64 })
    expect(atLimit.corrupt.map((c) => c.line)).toContain(2)
  })

  it('ends the CLI reader with a CliError naming the file, the line and the limit', () => {
    const path = join(dir, 'cli.jsonl')
    writeFileSync(path, `${EVENT}\n${'x'.repeat(3 * 1024 * 1024)}`)
    const load = () => loadLog(path, { skipCorrupt: true, err: () => {}, maxLineBytes: 2 * 1024 * 1024 })
    expect(load).toThrow(CliError)
    expect(load).toThrow(`cannot read ${path}: line 2 is longer than 2 MiB, the most a log line may hold`)
  })

  it('has a default well under the longest string V8 can make', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBeLessThan((1 << 29) - 24)
    expect(DEFAULT_MAX_LINE_BYTES).toBeGreaterThanOrEqual(64 * 1024 * 1024)
  })
})
