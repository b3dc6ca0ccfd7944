import { mkdtempSync, readFileSync, readdirSync, writeFileSync, appendFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { KernelEventSchema } from '../../src/events/event.schema.js'
import { FAST_PATH_TYPES, fastParseEvent, upgrade } from '../../src/events/jsonl.js'
import { createJsonlLog, createMemoryLog, parseJsonl, toJsonLine, type KernelEvent } from '../../src/index.js'
import { fixedClock } from '../helpers.js'
import { runs } from '../runs.js'

const started = (turnId: string) => ({
  type: 'turn.started' as const,
  turnId,
  mode: 'batch' as const,
  maxConcurrency: 10,
})

describe('parseJsonl', () => {
  const a: KernelEvent = { v: 2, seq: 0, at: 1, ...started('t1') }
  const b: KernelEvent = { v: 2, seq: 1, at: 2, type: 'turn.completed', turnId: 't1', results: 0 }

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
    expect(first).toEqual({ v: 2, seq: 0, at: 1, ...started('t1') })
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
    writeFileSync(path, 'garbage\n' + toJsonLine({ v: 2, seq: 0, at: 1, ...started('t1') }))
    expect(() => createJsonlLog(path, fixedClock())).toThrow(/session\.jsonl:1: not JSON/)
  })
})

describe('parseJsonl: lines that are not whole events', () => {
  const a: KernelEvent = { v: 2, seq: 0, at: 1, ...started('t1') }
  const b: KernelEvent = { v: 2, seq: 1, at: 2, type: 'turn.completed', turnId: 't1', results: 0 }

  it('keeps a last line that is a whole event but lost its newline (a write torn just before it)', () => {
    expect(parseJsonl(toJsonLine(a) + JSON.stringify(b))).toEqual({ events: [a, b], corrupt: [], torn: false })
  })

  it('reports two events glued on one line by its number, never silently', () => {
    const text = toJsonLine(a) + JSON.stringify(b) + toJsonLine(b) + toJsonLine(a)
    const parsed = parseJsonl(text)
    expect(parsed.corrupt).toEqual([{ line: 2, message: expect.stringMatching(/^not JSON/) as unknown as string }])
    expect(parsed.events).toEqual([a, a])
  })

  it('reports a last line that is JSON but no event, even without its newline: that is no torn write', () => {
    const parsed = parseJsonl(toJsonLine(a) + JSON.stringify({ ...b, results: -1 }))
    expect(parsed.torn).toBe(false)
    expect(parsed.corrupt).toEqual([{ line: 2, message: expect.stringMatching(/at results/) as unknown as string }])
  })
})

describe('the fast path of event validation', () => {
  const goldenDir = new URL('../fixtures/logs/', import.meta.url).pathname
  const golden = readdirSync(goldenDir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(goldenDir, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        // Golden logs are written at older event versions: the fast path sees them upgraded, as the reader does.
        .map((line) => upgrade(JSON.parse(line)) as Record<string, unknown>),
    )

  it('covers every event type of the schema, and takes every golden event', () => {
    expect([...FAST_PATH_TYPES].sort()).toEqual(KernelEventSchema.options.map((o) => o.shape.type.value).sort())
    for (const event of golden) expect(fastParseEvent(event), JSON.stringify(event)).toBe(event)
  })

  it('never takes what zod refuses or would change (fail-closed): mutated golden events', () => {
    const mutate = (value: unknown, path: readonly string[], replacement: unknown): unknown => {
      if (path.length === 0) return replacement
      const [head, ...rest] = path as [string, ...string[]]
      if (Array.isArray(value)) return value.map((v, i) => (String(i) === head ? mutate(v, rest, replacement) : v))
      const copy = { ...(value as Record<string, unknown>) }
      if (rest.length === 0 && replacement === DELETE) delete copy[head]
      else copy[head] = mutate(copy[head], rest, replacement)
      return copy
    }
    const paths = (value: unknown, prefix: string[] = []): string[][] =>
      value !== null && typeof value === 'object'
        ? Object.keys(value).flatMap((k) => [
            [...prefix, k],
            ...paths((value as Record<string, unknown>)[k], [...prefix, k]),
          ])
        : []
    const DELETE = Symbol('delete')
    const replacement = fc.oneof(
      fc.constant(DELETE),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(-1, 0.5, 2 ** 53, 1e308 * 10, '', 'turn.started', 'text', true, null, [], {}),
    )
    fc.assert(
      fc.property(
        fc.constantFrom(...golden),
        fc.nat(),
        replacement,
        fc.option(fc.string({ minLength: 1, maxLength: 8 })),
        (event, pick, value, extraKey) => {
          const all = paths(event)
          let changed = mutate(event, all[pick % all.length] ?? [], value) as Record<string, unknown>
          if (extraKey !== null) changed = { ...changed, [extraKey]: 1 }
          const fast = fastParseEvent(changed)
          if (fast === undefined) return
          const zod = KernelEventSchema.safeParse(changed)
          expect(zod.success).toBe(true)
          expect(zod.data).toStrictEqual(fast)
        },
      ),
      { numRuns: runs(3000) },
    )
  })

  it('refuses a malformed event with its line number, with the message zod gives', () => {
    const line = JSON.stringify({ v: 2, seq: 0, at: 1, type: 'tool.queued', turnId: 't', toolUseId: 'u', safe: 'yes' })
    expect(parseJsonl(`${line}\n`).corrupt).toEqual([
      { line: 1, message: 'not a toolkernel event at safe: Invalid input: expected boolean, received string' },
    ])
  })
})
