import { mkdtempSync, readFileSync, writeFileSync, appendFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createJsonlLog, createMemoryLog, parseJsonl, toJsonLine, type KernelEvent } from '../../src/index.js'
import { fixedClock } from '../helpers.js'

const started = (turnId: string) => ({
  type: 'turn.started' as const,
  turnId,
  mode: 'batch' as const,
  maxConcurrency: 10,
})

describe('parseJsonl', () => {
  const a: KernelEvent = { v: 1, seq: 0, at: 1, ...started('t1') }
  const b: KernelEvent = { v: 1, seq: 1, at: 2, type: 'turn.completed', turnId: 't1', results: 0 }

  it('reads events back in order', () => {
    expect(parseJsonl(toJsonLine(a) + toJsonLine(b))).toEqual({ events: [a, b], corrupt: [], torn: false })
  })

  it('drops a torn last line (no newline, does not parse) and says so', () => {
    const text = toJsonLine(a) + toJsonLine(b).slice(0, 20)
    expect(parseJsonl(text)).toEqual({ events: [a], corrupt: [], torn: true })
  })

  it('reports other bad lines by number, with what is wrong', () => {
    const text = toJsonLine(a) + '{not json\n' + JSON.stringify({ ...b, type: 'nope' }) + '\n' + toJsonLine(b)
    const parsed = parseJsonl(text)
    expect(parsed.events).toEqual([a, b])
    expect(parsed.corrupt.map((c) => c.line)).toEqual([2, 3])
    expect(parsed.corrupt[0]?.message).toMatch(/not JSON/)
    expect(parsed.corrupt[1]?.message).toMatch(/not a toolkernel event at type/)
  })

  it('reads an empty file as an empty log', () => {
    expect(parseJsonl('')).toEqual({ events: [], corrupt: [], torn: false })
  })
})

describe('memory log', () => {
  it('stamps version, sequence and clock time, and streams appends live', () => {
    const log = createMemoryLog(fixedClock())
    const seen: string[] = []
    log.events$.subscribe((e) => seen.push(`${e.seq}:${e.type}`))
    const first = log.append(started('t1'))
    log.append({ type: 'turn.completed', turnId: 't1', results: 0 })
    expect(first).toEqual({ v: 1, seq: 0, at: 1, ...started('t1') })
    expect(seen).toEqual(['0:turn.started', '1:turn.completed'])
    expect(log.read().map((e) => e.seq)).toEqual([0, 1])
  })
})

describe('JSONL log on disk', () => {
  const dirs: string[] = []
  const tempLog = () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolkernel-log-'))
    dirs.push(dir)
    return join(dir, 'session.jsonl')
  }
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('appends one line per event and reads them back on reopen, continuing the sequence', () => {
    const path = tempLog()
    const log = createJsonlLog(path, fixedClock())
    log.append(started('t1'))
    log.append({ type: 'turn.completed', turnId: 't1', results: 0 })
    log.close()
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2)
    const again = createJsonlLog(path, fixedClock())
    expect(again.read().map((e) => e.type)).toEqual(['turn.started', 'turn.completed'])
    expect(again.append(started('t2')).seq).toBe(2)
    again.close()
    expect(parseJsonl(readFileSync(path, 'utf8')).events.map((e) => e.seq)).toEqual([0, 1, 2])
  })

  it('recovers from a torn last line: drops it and appends cleanly after the last whole event', () => {
    const path = tempLog()
    const log = createJsonlLog(path, fixedClock())
    log.append(started('t1'))
    log.close()
    appendFileSync(path, '{"v":1,"seq":1,"at":5,"type":"turn.comp')
    const again = createJsonlLog(path, fixedClock())
    expect(again.read()).toHaveLength(1)
    again.append({ type: 'turn.completed', turnId: 't1', results: 0 })
    again.close()
    const parsed = parseJsonl(readFileSync(path, 'utf8'))
    expect(parsed).toMatchObject({ corrupt: [], torn: false })
    expect(parsed.events.map((e) => e.type)).toEqual(['turn.started', 'turn.completed'])
  })

  it('refuses to append to a file with a corrupt line in the middle, naming the line', () => {
    const path = tempLog()
    writeFileSync(path, 'garbage\n' + toJsonLine({ v: 1, seq: 0, at: 1, ...started('t1') }))
    expect(() => createJsonlLog(path, fixedClock())).toThrow(/session\.jsonl:1: not JSON/)
  })
})
