/** The JSONL store on a real temp directory: reopening after torn writes, and reading in chunks. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createJsonlLog, readJsonlFile } from '../../src/adapters/jsonl-log.store.js'
import { parseJsonl, toJsonLine } from '../../src/events/jsonl.js'
import type { KernelEvent, KernelEventInput } from '../../src/events/event.schema.js'
import { fixedClock } from '../helpers.js'

const dirs: string[] = []
const tempLog = () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-store-'))
  dirs.push(dir)
  return join(dir, 'session.jsonl')
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** One turn of `calls` calls whose outputs carry multi-byte characters and one long line. */
function turnEvents(turn: number, calls: number): KernelEventInput[] {
  const turnId = `turn_${turn}`
  const events: KernelEventInput[] = [{ type: 'turn.started', turnId, mode: 'batch', maxConcurrency: 10 }]
  for (let i = 0; i < calls; i++) {
    const toolUseId = `toolu_${turn}_${i}`
    events.push(
      { type: 'tool.requested', turnId, toolUseId, index: i, name: 'Echo', input: { text: `größe ${i} — ✓ 𝄞 日本` } },
      { type: 'tool.completed', turnId, toolUseId, output: 'ü€𝄞'.repeat(i % 7 === 0 ? 900 : 3 + (i % 5)) },
    )
  }
  events.push({ type: 'turn.completed', turnId, results: calls })
  return events
}

function writeLog(path: string, turns: number): KernelEvent[] {
  const log = createJsonlLog(path, fixedClock())
  for (let t = 0; t < turns; t++) for (const event of turnEvents(t, 20)) log.append(event)
  const events = [...log.read()]
  log.close()
  return events
}

describe('reopening a JSONL log', () => {
  it('repairs a write torn just before its newline: the next append does not glue two lines', () => {
    const path = tempLog()
    const written = writeLog(path, 2)
    truncateSync(path, statSync(path).size - 1)
    expect(readFileSync(path, 'utf8').endsWith('}')).toBe(true)
    const again = createJsonlLog(path, fixedClock())
    expect(again.read()).toEqual(written)
    const appended = again.append({ type: 'turn.started', turnId: 'turn_9', mode: 'batch', maxConcurrency: 1 })
    again.close()
    const third = createJsonlLog(path, fixedClock())
    expect(third.read()).toEqual([...written, appended])
    third.close()
    expect(parseJsonl(readFileSync(path, 'utf8'))).toMatchObject({ corrupt: [], torn: false })
  })

  it('drops a torn last line cut inside a multi-byte character, to the byte, and appends after it', () => {
    const path = tempLog()
    const written = writeLog(path, 1)
    const cut = Buffer.from(JSON.stringify({ v: 1, seq: 99, at: 1, type: 'tool.completed', output: '✓✓' }))
    appendFileSync(path, cut.subarray(0, cut.length - 6))
    const again = createJsonlLog(path, fixedClock())
    expect(again.read()).toEqual(written)
    again.append({ type: 'turn.started', turnId: 'turn_9', mode: 'batch', maxConcurrency: 1 })
    again.close()
    const parsed = parseJsonl(readFileSync(path, 'utf8'))
    expect(parsed).toMatchObject({ corrupt: [], torn: false })
    expect(parsed.events).toHaveLength(written.length + 1)
  })

  it('refuses a log whose last line is JSON but no event, naming the line, and leaves the file alone', () => {
    const path = tempLog()
    writeLog(path, 1)
    appendFileSync(path, '{"v":1,"seq":"x"}')
    const before = readFileSync(path)
    expect(() => createJsonlLog(path, fixedClock())).toThrow(/session\.jsonl:43: not a toolkernel event/)
    expect(readFileSync(path)).toEqual(before)
  })
})

describe('reading a log in chunks', () => {
  it('reads the same events as parsing the whole text, with 1 KB chunks cut through multi-byte characters', () => {
    const path = tempLog()
    const written = writeLog(path, 120)
    const bytes = readFileSync(path)
    expect(bytes.length).toBeGreaterThan(2_000_000)
    // Some chunk boundary falls inside a character (a UTF-8 continuation byte starts the next chunk).
    const cutInside = Array.from({ length: Math.floor(bytes.length / 1024) }, (_, k) => bytes[(k + 1) * 1024])
    expect(cutInside.some((byte) => byte !== undefined && (byte & 0xc0) === 0x80)).toBe(true)
    const progress: number[] = []
    const read = readJsonlFile(path, { chunkBytes: 1024, onProgress: (done, total) => progress.push(done / total) })
    expect(read.events).toEqual(written)
    expect(read).toMatchObject({ corrupt: [], torn: false, unterminated: false, validBytes: bytes.length })
    expect(progress.at(-1)).toBe(1)
    expect(progress).toEqual([...progress].sort((a, b) => a - b))
  })

  it('numbers corrupt lines across chunks, and finds a torn tail past a long line', () => {
    const path = tempLog()
    const events = writeLog(path, 3)
    const lines = readFileSync(path, 'utf8').split('\n')
    lines.splice(50, 0, toJsonLine(events[0] as KernelEvent).trim() + JSON.stringify(events[1]))
    writeFileSync(path, lines.join('\n').replace(/\n$/, '') + '\n{"v":1,"seq":12')
    const read = readJsonlFile(path, { chunkBytes: 100 })
    expect(read.corrupt).toEqual([{ line: 51, message: expect.stringMatching(/^not JSON/) as unknown as string }])
    expect(read.events).toEqual(events)
    expect(read.torn).toBe(true)
    expect(read.validBytes).toBe(statSync(path).size - '{"v":1,"seq":12'.length)
  })
})

describe('group commit and fences', () => {
  const size = (path: string): number => statSync(path).size

  it('gathers appends and writes them at the next turn of the event loop, or at once at a fence', async () => {
    const path = tempLog()
    const log = createJsonlLog(path, fixedClock())
    for (const event of turnEvents(0, 3)) log.append(event)
    // Nothing is written per event: the lines wait for their group.
    expect(size(path)).toBe(0)
    await new Promise((resolve) => setImmediate(resolve))
    expect(parseJsonl(readFileSync(path, 'utf8')).events).toEqual(log.read())
    log.append({ type: 'turn.started', turnId: 'turn_9', mode: 'batch', maxConcurrency: 1 })
    await log.fence?.()
    expect(parseJsonl(readFileSync(path, 'utf8')).events).toEqual(log.read())
    log.close()
  })

  it('close writes what is still gathered; every fsync policy writes the same lines', async () => {
    for (const fsync of ['never', 'fences', 'every', true, false] as const) {
      const path = tempLog()
      const log = createJsonlLog(path, fixedClock(), { fsync })
      for (const event of turnEvents(1, 2)) log.append(event)
      await log.fence?.()
      log.append({ type: 'turn.completed', turnId: 'turn_1', results: 2 })
      log.close()
      expect(parseJsonl(readFileSync(path, 'utf8')).events.length).toBe(log.read().length)
    }
  })
})
