/**
 * The JSONL reader's edges, each against zod's own verdict: the fast path may only ever accept
 * what the schema accepts, unchanged, and the slow path's messages name what is wrong and where.
 */
import { describe, expect, it } from 'vitest'
import { EVENT_VERSION, KernelEventSchema, parseJsonl, toJsonLine, type KernelEvent } from '../../src/index.js'
import { fastParseEvent, upgrade, UPGRADES } from '../../src/events/jsonl.js'

const base = { v: EVENT_VERSION, seq: 0, at: 1, turnId: 't' }
const dispatched = { ...base, type: 'tool.dispatched', toolUseId: 'a', batch: 0, running: 1 }
const ended = { ...base, type: 'turn.ended', stopReason: null }

/** The fast path agrees with zod: the same event back when zod accepts it unchanged, else nothing. */
function agrees(candidate: unknown): void {
  const zod = KernelEventSchema.safeParse(candidate)
  const fast = fastParseEvent(candidate)
  if (fast !== undefined) {
    expect(zod.success, `fast path accepted what zod rejects: ${JSON.stringify(candidate)}`).toBe(true)
    expect(fast).toEqual(zod.success ? zod.data : undefined)
  }
}

describe('the fast path accepts nothing the schema rejects', () => {
  const variants: unknown[] = [
    dispatched,
    { ...dispatched, batch: -1 },
    { ...dispatched, batch: 0.5 },
    { ...dispatched, batch: '0' },
    { ...dispatched, running: Number.MAX_SAFE_INTEGER + 2 },
    { ...dispatched, seq: -1 },
    { ...dispatched, extra: true },
    { ...dispatched, toolUseId: undefined },
    { ...dispatched, type: 'tool.nope' },
    ended,
    { ...ended, stopReason: 'tool_use' },
    { ...ended, stopReason: undefined },
    { ...ended, stopReason: 3 },
    { ...base, type: 'turn.completed', results: 0 },
    { ...base, type: 'turn.completed', results: -0.5 },
    { ...base, type: 'tool.queued', toolUseId: 'a', safe: true },
    { ...base, type: 'tool.queued', toolUseId: 'a', safe: 'yes' },
    { ...base, type: 'tool.queued', toolUseId: 'a', safe: false, reason: 'unsafe' },
    { ...base, type: 'tool.queued', toolUseId: 'a', safe: false, reason: null },
    null,
    [],
    'turn.started',
    7,
  ]
  it.each(variants.map((v) => [JSON.stringify(v) ?? String(v), v]))('%s', (_, candidate) => agrees(candidate))
})

describe('lines that are not events', () => {
  it('skips blank and whitespace-only lines, refuses JSON that is not an object, names the field at fault', () => {
    const good = toJsonLine(dispatched as KernelEvent)
    const parsed = parseJsonl(
      `\n   \n${good}\t\n[]\n7\nnull\n${JSON.stringify({ ...dispatched, batch: 'x' })}\n${good}`,
    )
    expect(parsed.events).toHaveLength(2)
    expect(parsed.corrupt.map((c) => c.line)).toEqual([5, 6, 7, 8])
    expect(parsed.corrupt[0]?.message).toMatch(/^not a toolkernel event/)
    expect(parsed.corrupt[3]?.message).toMatch(/^not a toolkernel event at batch: /)
  })

  it('an event from a newer toolkernel, or an older version without an upgrade path, says so', () => {
    expect(upgrade({ ...dispatched, v: EVENT_VERSION + 1 })).toBe(
      `written by a newer toolkernel (event version ${EVENT_VERSION + 1}; this one reads up to ${EVENT_VERSION})`,
    )
    expect(upgrade({ ...dispatched, v: 0 })).toBe(`event version 0 has no upgrade path to ${EVENT_VERSION}`)
    expect(upgrade({ ...dispatched, v: 'one' })).toEqual({ ...dispatched, v: 'one' })
    expect(upgrade([1])).toEqual([1])
    expect(upgrade(null)).toBe(null)
  })

  it('1 → 2: the persisted marker inside output becomes its own field; a tool output like it stays output', () => {
    const ids = { seq: 0, at: 1, turnId: 't', toolUseId: 'u', type: 'tool.completed' }
    expect(upgrade({ ...ids, v: 1, output: { persisted: true } })).toEqual({ ...ids, v: 2, persisted: true })
    // Only the exact marker the v1 recorder wrote: anything more is the tool's own output.
    for (const output of [{ persisted: true, id: 42 }, { persisted: 'yes' }, [true], 'persisted'])
      expect(upgrade({ ...ids, v: 1, output })).toEqual({ ...ids, v: 2, output })
    const other = { ...ids, type: 'tool.queued', safe: true, v: 1 }
    expect(upgrade(other)).toEqual({ ...other, v: 2 })
    expect(KernelEventSchema.safeParse(upgrade({ ...ids, v: 1, output: { persisted: true } })).success).toBe(true)
  })

  it('upgrades an older event step by step, each step bumping the version', () => {
    const seen: number[] = []
    UPGRADES[0] = (event) => {
      seen.push(event.v as number)
      return { ...event, running: 1, batch: 0 }
    }
    try {
      expect(upgrade({ ...base, v: 0, type: 'tool.dispatched', toolUseId: 'a' })).toEqual(dispatched)
      expect(seen).toEqual([0])
    } finally {
      delete UPGRADES[0]
    }
  })
})

describe('1 → 2: tool.errored gains the error class its text shows', () => {
  const errored = (message: string) => ({ seq: 0, at: 1, turnId: 't', toolUseId: 'u', type: 'tool.errored', message })
  it('an errno code or an error name at the head of the text, else Error; never free text', () => {
    const cases: Array<[string, string]> = [
      ['Read failed: ENOENT: no such file or directory', 'ENOENT'],
      ['Bash failed: TypeError: x is not a function', 'TypeError'],
      ['mcp__s__t failed: the server said no: really', 'Error'],
      ['Echo failed: secret-token: leaked', 'Error'],
      ['not the usual text', 'Error'],
    ]
    for (const [message, errorClass] of cases)
      expect(upgrade({ ...errored(message), v: 1 })).toEqual({ ...errored(message), v: 2, errorClass })
  })
})

describe('the fast path and records (z.record of session.configured tool definitions)', () => {
  const configured = (inputSchema: string) =>
    JSON.parse(
      `{"v":2,"seq":0,"at":1,"turnId":"t","type":"session.configured","toolkernel":"0.2.0","cwd":"/","mode":"default",` +
        `"rules":{"allow":[],"ask":[],"deny":[]},"limits":{"maxConcurrency":1,"messageBudgetChars":1,"progressLogChars":null},` +
        `"hooks":[],"tools":[{"name":"T","aliases":[],"schema":"x","interrupt":"block","cascades":false,"validates":false,` +
        `"maxResultSizeChars":null,"definition":{"description":"d","inputSchema":${inputSchema}}}]}`,
    ) as unknown
  it('takes a plain record as it is', () => {
    const event = configured('{"type":"object","properties":{}}')
    expect(fastParseEvent(event)).toBe(event)
  })
  it('leaves a record with an own __proto__ key to zod, which drops it', () => {
    const event = configured('{"__proto__":{"polluted":true},"type":"object"}')
    expect(fastParseEvent(event)).toBeUndefined()
    expect(KernelEventSchema.safeParse(event).success).toBe(true)
  })
})
