/**
 * The JSONL reader against zod, differentially: for every event built from the schema and each
 * field changed to a wrong type, an out-of-range number, a string failing its pattern, an extra or
 * missing key, the reader must say exactly what `KernelEventSchema.safeParse` says (the same event,
 * or a corrupt line with zod's first issue), and the fast path must take the line exactly when zod
 * takes it unchanged. Then the blank-line, version and upgrade branches, with exact messages.
 */
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { EVENT_VERSION, KernelEventSchema } from '../../src/events/event.schema.js'
import { FAST_PATH_TYPES, fastParseEvent, JsonlLineParser, parseJsonl, upgrade } from '../../src/events/jsonl.js'
import { runs } from '../runs.js'
import type * as SchemaModule from '../../src/events/event.schema.js'
import type * as JsonlModule from '../../src/events/jsonl.js'

type Json = Record<string, unknown>

// Keys are written `type` first, unlike the schema's order (the envelope first): zod would return
// them in its own order, so a line that reads back byte for byte came through the fast path as is.
const env = (type: string): Json => ({ type, v: EVENT_VERSION, seq: 3, at: 1.5, turnId: 't' })
const tool = (type: string): Json => ({ ...env(type), toolUseId: 'u' })

/** One valid event of every type, with its optional fields present (each field is then changed). */
const VALID: Json[] = [
  {
    ...env('turn.started'),
    mode: 'batch',
    maxConcurrency: 1,
    earlyStart: 'safe',
    cwd: '/w',
    permissions: { mode: 'default', allow: ['Read'], ask: [], deny: [] },
  },
  {
    ...env('session.configured'),
    toolkernel: '0.2.0',
    cwd: '/w',
    mode: 'default',
    rules: { allow: [], ask: ['Bash'], deny: [] },
    limits: { maxConcurrency: 1, messageBudgetChars: 0, progressLogChars: null, toolTimeoutMs: 5, timeoutGraceMs: 0 },
    hooks: [{ event: 'PreToolUse', matcher: '*', hooks: ['h'] }],
    asks: true,
    approvals: 'park',
    pool: { format: 'anthropic', deferral: { mode: 'auto', contextTokens: 1, share: 0.1, maxTools: 3 } },
    tools: [
      {
        name: 'T',
        aliases: ['t'],
        schema: 'ab12',
        interrupt: 'block',
        cascades: false,
        validates: true,
        maxResultSizeChars: null,
        defer: true,
        definition: {
          description: 'd',
          inputSchema: { type: 'object' },
          searchHint: 'h',
          inputExamples: [{ a: 1 }],
        },
      },
    ],
  },
  { ...env('turn.recovered'), reason: 'crash', open: ['u'] },
  { ...env('turn.aborted'), reason: 'user' },
  { ...env('turn.ended'), stopReason: null },
  { ...env('turn.discarded'), reason: 'r' },
  { ...env('turn.completed'), results: 0 },
  { ...tool('tool.requested'), index: 0, name: 'Read', input: { path: 'a' }, inputError: 'e' },
  { ...tool('tool.queued'), safe: false, reason: 'unsafe' },
  { ...tool('tool.dispatched'), batch: 0, running: 1 },
  { ...tool('tool.parsed'), tool: 'Read', hooks: { pre: true, post: false } },
  { ...tool('tool.validated') },
  {
    ...tool('tool.hooked'),
    phase: 'pre',
    outcome: 'continue',
    reason: 'r',
    decision: 'ask',
    updatedInput: { a: 1 },
    additionalContext: 'c',
    systemMessages: ['m'],
  },
  {
    ...tool('hook.finished'),
    phase: 'post',
    hook: 'h',
    outcome: 'error',
    exitCode: null,
    decision: 'deny',
    reason: 'r',
    updatedInput: [1],
    additionalContext: 'c',
    systemMessage: 's',
    stopReason: 'x',
    error: 'e',
  },
  { ...tool('permission.requested'), tool: 'Bash', reason: 'r', suggestions: ['Bash(ls)'] },
  { ...tool('permission.granted'), tool: 'Bash', scope: 'rule', fingerprint: 'f', rule: 'Bash(ls)' },
  { ...tool('tool.permitted'), behavior: 'allow', source: 'rule', reason: 'r', updatedInput: null },
  { ...tool('tool.started'), interrupt: 'cancel' },
  { ...tool('tool.progress'), data: 'tick' },
  { ...tool('tool.completed'), output: { text: 'ok' }, persisted: true },
  { ...tool('tool.errored'), message: 'Read failed: ENOENT: no such file', errorClass: 'ENOENT', attempts: 2 },
  { ...tool('tool.budgeted'), path: '/r/x', chars: 10 },
  { ...tool('tool.rejected'), step: 'validate', code: 'invalid_input', message: 'm' },
  { ...tool('tool.cancelled'), step: 'call', reason: 'r' },
  { ...tool('tool.mapped'), isError: true },
  { ...tool('tool.cascaded'), siblings: ['b'] },
  { ...tool('tool.timed_out'), timeoutMs: 1000, graceMs: 0, attempts: 1 },
  { ...tool('tool.retrying'), attempt: 1, delayMs: 0, error: 'e', errorClass: 'ECONNRESET' },
  { ...tool('tool.restarted'), attempt: 2 },
  {
    ...tool('permission.pending'),
    tool: 'Bash',
    input: { command: 'rm -rf build' },
    digest: 'd',
    reason: 'r',
    source: 'rule',
    rule: 'Bash(rm:*)',
    suggestions: ['Bash(rm:*)'],
  },
  {
    ...tool('permission.answered'),
    digest: 'd',
    behavior: 'allow',
    message: 'm',
    updatedInput: { command: 'rm -rf build/tmp' },
    grant: { scope: 'rule', rule: 'Bash(rm:*)' },
  },
  { ...env('turn.parked'), pending: ['u'], waiting: ['w'] },
  { ...env('turn.resumed'), answered: 'u' },
  {
    ...env('pool.assembled'),
    format: 'anthropic',
    visible: ['A'],
    deferred: [],
    loaded: ['B'],
    hash: 'h',
    bytes: 0,
    threshold: { tokens: 1.5, maxTokens: 0, count: 2, maxCount: 0.5, deferred: false },
  },
  { ...env('tool.loaded'), name: 'T', how: 'search', loadedBy: 'u' },
  {
    ...env('pool.changed'),
    source: 'mcp',
    added: ['A'],
    removed: [],
    skipped: ['C'],
    names: [{ name: 'A', server: 's', tool: 'a' }],
    withheld: [{ server: 's', tool: 'b', reason: 'r' }],
    disabled: ['D'],
    enabled: ['E'],
  },
  {
    ...env('session.changed'),
    source: 'tool',
    changedBy: 'u',
    requested: { cwd: '/w/sub', mode: 'plan' },
    cwd: '/w/sub',
    env: { A: '1', B: null },
    data: { k: [1, { x: null }] },
    mode: 'plan',
    previousMode: 'default',
    dropped: [{ field: 'env.BAD NAME', reason: 'r' }],
  },
  { ...env('shell.started'), shellId: 'shell_1', command: 'npm run dev', startedBy: 'u', cwd: '/w', pid: 42 },
  { ...env('shell.read'), shellId: 'shell_1', readBy: 'u', chars: 3, droppedChars: 2, running: true },
  {
    ...env('shell.exited'),
    shellId: 'shell_1',
    exitCode: null,
    signal: 'SIGTERM',
    how: 'killed',
    killedBy: 'u',
    error: 'e',
  },
  { ...env('tools.described'), tools: [{ name: 'Query', description: 'Runs a query (plan).' }] },
  { ...tool('budget.held'), chars: 2000 },
  { ...env('budget.decided'), group: ['u', 'w'], persisted: ['w'] },
  { ...env('session.snapshot'), format: 1, upTo: 2, turns: 1, carried: [{ type: 'turn.started' }] },
  {
    ...tool('tool.result'),
    outcome: 'success',
    block: {
      type: 'tool_result',
      tool_use_id: 'u',
      content: [
        { type: 'text', text: 'x' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } },
        { type: 'tool_reference', tool_name: 'T' },
      ],
      is_error: false,
    },
  },
]

// Wrong types, the number edges of int/nonnegative/positive, strings that fail the errorClass
// pattern (and the number that a coercing regex test would take for one), empty containers.
const REPLACEMENTS: unknown[] = [
  null,
  true,
  0,
  -1,
  0.5,
  2 ** 53,
  123,
  '',
  'x',
  'has space',
  'a'.repeat(65),
  [],
  ['x'],
  [null],
  {},
  { x: 1 },
]
const DELETE = Symbol('delete')

/** Every path to a value in `value`, except the version (its branches are tested on their own below). */
function paths(value: unknown, prefix: readonly string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return []
  return Object.keys(value)
    .filter((key) => prefix.length > 0 || key !== 'v')
    .flatMap((key) => [[...prefix, key], ...paths((value as Json)[key], [...prefix, key])])
}

function changed(value: unknown, path: readonly string[], replacement: unknown): unknown {
  const [head, ...rest] = path
  if (head === undefined) return replacement
  if (Array.isArray(value)) return value.map((v, i) => (String(i) === head ? changed(v, rest, replacement) : v))
  const copy = { ...(value as Json) }
  if (rest.length === 0 && replacement === DELETE) delete copy[head]
  else copy[head] = changed(copy[head], rest, replacement)
  return copy
}

/** Every variant of one event: each value replaced, each key deleted, an extra key at each object. */
function variants(event: Json): unknown[] {
  const out: unknown[] = [event]
  for (const path of paths(event)) {
    for (const replacement of [DELETE, ...REPLACEMENTS]) out.push(changed(event, path, replacement))
    out.push(changed(event, [...path, 'extra'], 1))
  }
  out.push({ ...event, extra: 1 })
  return out
}

/** What zod says of a line's JSON, as the reader must report it. */
function expected(json: unknown): { events: unknown[]; corrupt: Array<{ line: number; message: string }> } {
  const zod = KernelEventSchema.safeParse(json)
  if (zod.success) return { events: [zod.data], corrupt: [] }
  const issue = zod.error.issues[0]
  const where = issue !== undefined && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : ''
  return { events: [], corrupt: [{ line: 1, message: `not a toolkernel event${where}: ${issue?.message}` }] }
}

/** The reader, zod and the fast path agree on one candidate (given as its JSON line). */
function agrees(line: string): void {
  const json = JSON.parse(line) as unknown
  const parsed = parseJsonl(`${line}\n`)
  expect({ events: parsed.events, corrupt: parsed.corrupt }, line).toStrictEqual(expected(json))
  const zod = KernelEventSchema.safeParse(json)
  const unchanged = zod.success && isDeepStrictEqual(zod.data, json)
  // Both ways: never what zod refuses or would change, and always what zod returns as it is.
  expect(fastParseEvent(json) === json, line).toBe(unchanged)
  if (unchanged)
    expect(
      parsed.events.map((e) => JSON.stringify(e)),
      line,
    ).toEqual([line])
}

describe('the reader says what zod says, for every field of every event changed', () => {
  it('covers every event type of the schema', () => {
    const types = VALID.map((e) => e.type as string).sort()
    expect(types).toEqual([...FAST_PATH_TYPES].sort())
    for (const event of VALID) expect(KernelEventSchema.safeParse(event).success, String(event.type)).toBe(true)
  })

  it.each(VALID.map((event) => [event.type as string, event] as const))('%s', (_, event) => {
    for (const variant of variants(event)) agrees(JSON.stringify(variant))
  })

  it('random JSON in any field, and random extra keys (property)', () => {
    const all = VALID.map((event) => [event, paths(event)] as const)
    fc.assert(
      fc.property(
        fc.constantFrom(...all),
        fc.nat(),
        fc.jsonValue({ maxDepth: 2 }),
        fc.option(fc.string({ minLength: 1, maxLength: 6 })),
        ([event, all], pick, value, extra) => {
          let variant = changed(event, all[pick % all.length] ?? [], value) as Json
          // Not `v`: the version's branches are tested on their own below.
          if (extra !== null && extra !== 'v') variant = { ...variant, [extra]: 1 }
          agrees(JSON.stringify(variant))
        },
      ),
      { numRuns: runs(500) },
    )
  })
})

describe('what a corrupt line says: the field at fault, by its dotted path, and zod’s words', () => {
  const configured = VALID[1] as Json
  // No path (the line is no object) gives no " at"; a nested one is dotted.
  it.each([
    ['not an object', '7', 'not a toolkernel event: Invalid input: expected object, received number'],
    [
      'an unknown type',
      '{"type":"nope"}',
      `not a toolkernel event at type: Invalid discriminator value. Expected ${KernelEventSchema.options
        .map((o) => `'${o.shape.type.value}'`)
        .join(' | ')}`,
    ],
    [
      'a nested positive number that is 0',
      JSON.stringify({ ...configured, limits: { maxConcurrency: 0, messageBudgetChars: 0, progressLogChars: 1 } }),
      'not a toolkernel event at limits.maxConcurrency: Too small: expected number to be >0',
    ],
    [
      'a positive number that is 0',
      JSON.stringify({ ...VALID[0], maxConcurrency: 0 }),
      'not a toolkernel event at maxConcurrency: Too small: expected number to be >0',
    ],
    [
      'a number where a pattern-checked string belongs',
      JSON.stringify({ ...tool('tool.errored'), message: 'm', errorClass: 123 }),
      'not a toolkernel event at errorClass: Invalid input: expected string, received number',
    ],
  ])('%s', (_, line, message) => {
    expect(parseJsonl(`${line}\n`)).toEqual({ events: [], corrupt: [{ line: 1, message }], torn: false })
  })

  it('a nested object or record that is null, a string or an array is refused, never thrown on', () => {
    const definition = { description: 'd', inputSchema: {} }
    const withTool = (more: Json) => ({ ...configured, tools: [{ ...(configured.tools as Json[])[0], ...more }] })
    for (const bad of [null, 'str', 5, []]) {
      agrees(JSON.stringify(withTool({ definition: { ...definition, inputSchema: bad } })))
      agrees(JSON.stringify({ ...tool('tool.parsed'), tool: 'T', hooks: bad }))
      agrees(JSON.stringify({ ...configured, rules: bad }))
    }
  })
})

describe('blank lines', () => {
  const line = JSON.stringify(VALID[6])
  it('skips empty and whitespace-only lines, but reads a line that only starts with whitespace', () => {
    const text = `\n \n\t\r\n  ${line}\n\t${line}`
    expect(parseJsonl(text)).toEqual({ events: [VALID[6], VALID[6]], corrupt: [], torn: false })
  })

  // JSON's whitespace is space, tab, CR and LF: a line of another Unicode space is no JSON, and says so.
  // A line that begins with JSON whitespace was skipped as blank whenever trim() emptied it, so
  // ` \u00a0` was skipped while `\u00a0` alone was corrupt (failed before the fix).
  it.each(['\u00a0', '\ufeff', '\u2028', ' \u00a0', '\t\ufeff', '\v', ' \f'])(
    'a line of %j is a corrupt line',
    (space) => {
      const parsed = parseJsonl(`${space}\n${line}\n`)
      expect(parsed.events).toEqual([VALID[6]])
      expect(parsed.corrupt).toEqual([{ line: 1, message: expect.stringMatching(/^not JSON \(/) as unknown as string }])
    },
  )
})

describe('event versions', () => {
  const completed = { ...tool('tool.completed'), output: 'x' }
  const newer = JSON.stringify({ ...completed, v: EVENT_VERSION + 1 })
  const why = `written by a newer toolkernel (event version ${EVENT_VERSION + 1}; this one reads up to ${EVENT_VERSION})`

  it('an event from a newer toolkernel is a corrupt line, also as the last line without its newline (no torn write)', () => {
    expect(parseJsonl(`${newer}\n`)).toEqual({ events: [], corrupt: [{ line: 1, message: why }], torn: false })
    expect(new JsonlLineParser().end(newer)).toEqual({
      events: [],
      corrupt: [{ line: 1, message: why }],
      torn: false,
      unterminated: true,
    })
  })

  it('a version that is not a number is no version: zod names the field, nothing is upgraded', () => {
    for (const v of ['1', null, [1], { v: 1 }]) expect(upgrade({ ...completed, v })).toStrictEqual({ ...completed, v })
    expect(parseJsonl(`${JSON.stringify({ ...completed, v: null })}\n`).corrupt).toEqual([
      { line: 1, message: 'not a toolkernel event at v: Invalid input: expected 2' },
    ])
  })
})

describe('1 → 2, only what version 1 wrote', () => {
  const v1 = (event: Json): Json => ({ ...event, v: 1 })
  const v2 = (event: Json): Json => ({ ...event, v: 2 })
  const errored = { ...tool('tool.errored'), message: 'Read failed: ENOENT: no such file' }
  const rejected = { ...tool('tool.rejected'), step: 'parse', code: 'unknown_tool', message: 'Read failed: ENOENT: x' }
  const completed = (output: unknown): Json => ({ ...tool('tool.completed'), output })

  it('the error class is derived for tool.errored with a text message only', () => {
    expect(upgrade(v1(errored))).toStrictEqual(v2({ ...errored, errorClass: 'ENOENT' }))
    // Another event's message is no tool error text; an errored event without a string message is left to zod.
    expect(upgrade(v1(rejected))).toStrictEqual(v2(rejected))
    for (const message of [5, null])
      expect(upgrade(v1({ ...errored, message }))).toStrictEqual(v2({ ...errored, message }))
    expect(upgrade(v1({ ...tool('tool.errored') }))).toStrictEqual(v2(tool('tool.errored')))
  })

  it('the persisted marker is moved only out of tool.completed; a null output stays output', () => {
    const progress = { ...tool('tool.progress'), data: 1, output: { persisted: true } }
    expect(upgrade(v1(progress))).toStrictEqual(v2(progress))
    expect(upgrade(v1(completed(null)))).toStrictEqual(v2(completed(null)))
    expect(parseJsonl(`${JSON.stringify(v1(completed(null)))}\n`).events).toEqual([v2(completed(null))])
    const { output: _output, ...marked } = completed({ persisted: true })
    expect(upgrade(v1(completed({ persisted: true })))).toStrictEqual(v2({ ...marked, persisted: true }))
  })
})

/*
 * The compiler behind the fast path knows constructs the event schema does not use yet (`.max()`,
 * `.lt()`, several patterns, an optional inside a nullable, a record of numbers, an object of only
 * optional keys). A schema change that starts to use one must not make the fast path take what zod
 * refuses: the reader is loaded here over a union of such members, and checked against zod the same way.
 */
const Synthetic = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('x.bounds'),
    le: z.number().max(10),
    lt: z.number().lt(10),
    range: z.number().int().min(0).max(5),
  }),
  z.object({ type: z.literal('x.twoMax'), n: z.number().max(5).max(10) }),
  z.object({ type: z.literal('x.multiple'), n: z.number().multipleOf(2) }),
  z.object({ type: z.literal('x.patterns'), s: z.string().regex(/^a/).regex(/b$/) }),
  z.object({ type: z.literal('x.maybe'), k: z.string().optional().nullable(), list: z.array(z.string().optional()) }),
  z.object({ type: z.literal('x.counts'), counts: z.record(z.string(), z.number()) }),
  z.object({ type: z.literal('x.opts'), opts: z.object({ a: z.string().optional() }) }),
])

async function syntheticReader(): Promise<typeof JsonlModule> {
  vi.resetModules()
  vi.doMock('../../src/events/event.schema.js', async (original) => ({
    ...(await original<typeof SchemaModule>()),
    KernelEventSchema: Synthetic,
  }))
  try {
    return await import('../../src/events/jsonl.js')
  } finally {
    vi.doUnmock('../../src/events/event.schema.js')
    // The next import gets fresh modules: under a shared worker (isolate: false) the mocked
    // reader must not stay in the registry for the test files that run after this one.
    vi.resetModules()
  }
}

const SYNTHETIC: Json[] = [
  { type: 'x.bounds', le: 10, lt: 9.5, range: 5 },
  { type: 'x.twoMax', n: 4 },
  { type: 'x.multiple', n: 4 },
  { type: 'x.patterns', s: 'ab' },
  { type: 'x.maybe', k: 'a', list: ['a'] },
  { type: 'x.counts', counts: { a: 1 } },
  { type: 'x.opts', opts: { a: 'x' } },
]
// Each bound and its neighbours, strings matching one pattern of two, containers of the right and wrong kinds.
const SYNTHETIC_VALUES: unknown[] = [
  -1,
  0,
  5,
  6,
  7,
  9.5,
  10,
  11,
  'ab',
  'acb',
  'ac',
  'cb',
  '',
  null,
  [],
  ['a'],
  ['a', 'b'],
  {},
  { a: 'x' },
  { a: 1 },
]

describe('the fast path compiled from constructs the schema does not use yet', () => {
  it('takes the types whose checks it knows in full, and leaves the others to zod', async () => {
    const reader = await syntheticReader()
    expect([...reader.FAST_PATH_TYPES].sort()).toEqual(['x.bounds', 'x.counts', 'x.maybe', 'x.opts', 'x.patterns'])
    for (const event of SYNTHETIC) expect(Synthetic.safeParse(event).success, String(event.type)).toBe(true)
  })

  it('agrees with zod on every field changed', async () => {
    const reader = await syntheticReader()
    for (const event of SYNTHETIC)
      for (const path of paths(event).filter((p) => p[0] !== 'type'))
        for (const value of [DELETE, ...SYNTHETIC_VALUES]) {
          const json = changed(event, path, value)
          const line = JSON.stringify(json)
          const zod = Synthetic.safeParse(json)
          const unchanged = zod.success && isDeepStrictEqual(zod.data, json)
          const fastType = reader.FAST_PATH_TYPES.has(String(event.type))
          // The one construct it leaves to zod though zod takes the event as is: a key that is optional
          // only through a wrapper (`nullable(optional(…))`) and missing. Fail-closed, so not wrong.
          const viaWrapper = event.type === 'x.maybe' && path[0] === 'k' && value === DELETE
          expect(reader.fastParseEvent(json) === json, line).toBe(unchanged && fastType && !viaWrapper)
          expect(reader.parseJsonl(`${line}\n`).events, line).toStrictEqual(zod.success ? [zod.data] : [])
        }
  })
})
