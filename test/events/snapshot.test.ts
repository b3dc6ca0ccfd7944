/**
 * Session snapshots (issue 33): the option, a snapshot that does not read back (the whole log is
 * read instead, decision 167), the stores that open a session from the last snapshot (memory and
 * JSONL event stores, the JSONL log), and the readers of the whole log (replay, timeline, stats,
 * telemetry) that pass snapshots over.
 */
import { appendFileSync, mkdtempSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createJsonlEventStore,
  createJsonlLog,
  createKernel,
  createMemoryEventStore,
  createMemoryLog,
  projectTimeline,
  replay,
  type KernelEvent,
} from '../../src/index.js'
import { historyFromSnapshot, resumeHistory, SNAPSHOT_FORMAT, SnapshotKeeper } from '../../src/events/snapshot.js'
import { lastSnapshotOffset } from '../../src/adapters/jsonl-file.js'
import { projectStats } from '../../src/projections/stats.projection.js'
import { projectTelemetry } from '../../src/projections/telemetry.projection.js'
import { projectTimelineModel } from '../../src/projections/timeline-model.projection.js'
import { Ask, counterIds, fixedClock } from '../helpers.js'

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes.',
  inputSchema: z.object({ text: z.string() }),
  isConcurrencySafe: () => true,
  call: async ({ text }) => text,
})
const tools = [Echo, Ask]
const turn = (...uses: Array<[string, string]>) =>
  ({
    role: 'assistant',
    content: uses.map(([id, name]) => ({ type: 'tool_use', id, name, input: { text: id } })),
    stop_reason: 'tool_use',
  }) as never

/** Ten turns, snapshots every three: a grant, a parked call, plain calls. */
async function session(log = createMemoryLog(fixedClock())): Promise<KernelEvent[]> {
  const kernel = createKernel({ tools, log, snapshotEvery: 3, ports: { clock: fixedClock(), ids: counterIds() } })
  await kernel.runTurn(turn(['a1', 'Ask']))
  await kernel.answer('a1', { behavior: 'allow', grant: { scope: 'call' } })
  for (let i = 0; i < 8; i++) await kernel.runTurn(turn([`e${i}`, 'Echo']))
  await kernel.runTurn(turn(['a2', 'Ask'], ['e9', 'Echo']))
  await kernel.close()
  return [...log.read()]
}

const snapshots = (events: readonly KernelEvent[]) => events.filter((e) => e.type === 'session.snapshot')

describe('the snapshotEvery option', () => {
  it.each([
    [-1, 'got -1'],
    [1.5, 'got 1.5'],
    ['5', 'got "5"'],
    [Infinity, 'got Infinity'],
    [true, 'got true'],
  ])('refuses %s with what it takes, and says what it got', (value, got) => {
    expect(() => createKernel({ tools, snapshotEvery: value as never })).toThrow(
      /snapshotEvery must be a whole number of turns between session snapshots \(0 or false: none; default 50\)/,
    )
    // A string is quoted, so '5' does not read as the number 5.
    expect(() => createKernel({ tools, snapshotEvery: value as never })).toThrow(new RegExp(`, ${got}$`))
  })

  it('writes one every N top-level turns (3 here), none with 0 or false, one per 50 by default', async () => {
    const events = await session()
    expect(snapshots(events).map((e) => e.type === 'session.snapshot' && e.turns)).toEqual([3, 6, 9])
    for (const off of [0, false] as const) {
      const log = createMemoryLog(fixedClock())
      const kernel = createKernel({ tools, log, snapshotEvery: off })
      for (let i = 0; i < 4; i++) await kernel.runTurn(turn([`e${i}`, 'Echo']))
      expect(snapshots(log.read())).toEqual([])
    }
    const log = createMemoryLog(fixedClock())
    const kernel = createKernel({ tools, log })
    for (let i = 0; i < 51; i++) await kernel.runTurn(turn([`e${i}`, 'Echo']))
    expect(snapshots(log.read())).toHaveLength(1)
  })
})

describe('a log that keeps a window of turns', () => {
  it('gets the same snapshots as one that keeps everything (what it drops, the keeper lets go)', async () => {
    const whole = snapshots(await session())
    const windowed = createMemoryLog(fixedClock(), { retainTurns: 1 })
    const events: KernelEvent[] = []
    windowed.events$.subscribe((e) => events.push(e))
    await session(windowed)
    expect(snapshots(events)).toEqual(whole)
    expect(whole).toHaveLength(3)
  })
})

describe('a snapshot that does not read back (decision 167: the whole log is read)', () => {
  const withSnapshot = async () => {
    const events = await session()
    const at = events.findLastIndex((e) => e.type === 'session.snapshot')
    return { events, at }
  }

  it('another format, a carried event that does not parse, events out of order: refused with why, whole log used', async () => {
    const { events, at } = await withSnapshot()
    const snapshot = events[at] as Extract<KernelEvent, { type: 'session.snapshot' }>
    const cases: Array<[Partial<typeof snapshot>, RegExp]> = [
      [{ format: SNAPSHOT_FORMAT + 1 }, /snapshot format 2 is not the one this toolkernel reads \(1\)/],
      [{ carried: [{ type: 'nonsense' }] }, /carried event 0 does not parse/],
      [{ carried: [...snapshot.carried].reverse() }, /is out of order for a snapshot up to/],
      [{ upTo: snapshot.seq }, /out of order/],
    ]
    for (const [change, reason] of cases) {
      const bad = [...events.slice(0, at), { ...snapshot, ...change } as KernelEvent, ...events.slice(at + 1)]
      const read = historyFromSnapshot(bad.slice(at))
      expect(read.ok).toBe(false)
      if (!read.ok) expect(read.refusal.reason).toMatch(reason)
      expect(resumeHistory(bad)).toBe(bad)
    }
    expect(resumeHistory(events).length).toBeLessThan(events.length)
  })
})

describe('the keeper lets over turns go, and fails closed when the log does what the kernel never does', () => {
  it('a fact for a turn it let go makes it unfaithful; the kernel then writes no snapshot', () => {
    const at = { v: 2 as const, at: 1 }
    const keeper = new SnapshotKeeper()
    const events = [
      { ...at, seq: 0, turnId: 't1', type: 'turn.started', mode: 'batch', maxConcurrency: 1 },
      { ...at, seq: 1, turnId: 't1', type: 'turn.completed', results: 0 },
      { ...at, seq: 2, turnId: 't2', type: 'turn.started', mode: 'batch', maxConcurrency: 1 },
    ] as KernelEvent[]
    for (const event of events) keeper.add(event)
    expect(keeper.carried().map((e) => e.seq)).toEqual([2])
    expect(keeper.unfaithful).toBeUndefined()
    keeper.add({
      ...at,
      seq: 3,
      turnId: 't1',
      type: 'permission.granted',
      toolUseId: 'x',
      tool: 'Ask',
      scope: 'tool',
    } as KernelEvent)
    expect(keeper.unfaithful).toBe('a permission.granted (seq 3) came for turn t1 after it was over')
  })
})

describe('a kernel whose log holds what the kernel never appends', () => {
  it('writes no more snapshots once its keeper cannot follow the log (resume then reads the whole log)', async () => {
    const log = createMemoryLog(fixedClock())
    const kernel = createKernel({ tools, log, snapshotEvery: 1, ports: { clock: fixedClock(), ids: counterIds() } })
    await kernel.runTurn(turn(['e1', 'Echo']))
    await kernel.runTurn(turn(['e2', 'Echo']))
    await kernel.runTurn(turn(['e3', 'Echo']))
    const before = snapshots(log.read()).length
    expect(before).toBe(3)
    // A grant for a turn the keeper let go: a snapshot could not say what it belongs to.
    // (The second turn: the first holds the session's configuration, which the keeper keeps.)
    const over = log.read().filter((e) => e.type === 'turn.completed')[1]?.turnId ?? ''
    log.append({ type: 'permission.granted', turnId: over, toolUseId: 'e1', tool: 'Echo', scope: 'tool' })
    await kernel.runTurn(turn(['e4', 'Echo']))
    await kernel.runTurn(turn(['e5', 'Echo']))
    expect(snapshots(log.read())).toHaveLength(before)
    expect(log.read().filter((e) => e.type === 'turn.completed')).toHaveLength(5)
  })
})

describe('stores open a session from its last snapshot', () => {
  it('the memory event store: the kernel reads the snapshot on, the parked call is there, new events get the next versions', async () => {
    const store = createMemoryEventStore()
    const first = createKernel({ tools, store, session: 's1', snapshotEvery: 3, ports: { ids: counterIds() } })
    await first.ready()
    await first.runTurn(turn(['a1', 'Ask']))
    for (let i = 0; i < 7; i++) await first.runTurn(turn([`e${i}`, 'Echo']))
    await first.close()
    const total = await store.version('s1')
    const second = createKernel({ tools, store, session: 's1', ports: { ids: counterIds() } })
    await second.ready()
    expect(second.log.read().length).toBeLessThan(total / 2)
    expect(second.log.read()[0]?.seq).toBe(0)
    expect(second.pendingApprovals().map((p) => p.toolUseId)).toEqual(['a1'])
    const answered = await second.answer('a1', { behavior: 'allow' })
    expect(answered.message.content[0]).toMatchObject({ tool_use_id: 'a1', content: 'asked a1' })
    await second.close()
    const stored = await store.read('s1')
    expect(stored.map((s) => s.event.seq)).toEqual(stored.map((_, i) => i))
  })

  it('the JSONL event store reopened from its directory does the same', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tk-snap-store-'))
    const store = createJsonlEventStore(dir)
    const first = createKernel({ tools, store, session: 's1', snapshotEvery: 2 })
    await first.ready()
    for (let i = 0; i < 5; i++) await first.runTurn(turn([`e${i}`, 'Echo']))
    await first.close()
    await store.close()
    const again = createJsonlEventStore(dir)
    const second = createKernel({ tools, store: again, session: 's1' })
    await second.ready()
    expect(second.log.read().length).toBeLessThan(await again.version('s1'))
    const next = await second.runTurn(turn(['e5', 'Echo']))
    expect(next.message.content[0]).toMatchObject({ content: 'e5' })
    await second.close()
    await again.close()
  })

  it('the JSONL log with fromSnapshot: read from the last snapshot; a damaged one is passed over for the whole file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'tk-snap-log-')), 'session.jsonl')
    const events = await session(createJsonlLog(path, fixedClock()))
    const log = createJsonlLog(path, fixedClock(), { fromSnapshot: true })
    expect(log.read()).toEqual(resumeHistory(events))
    expect(log.read().length).toBeLessThan(events.length)
    log.close()
    // The offset found with chunks that cut through lines is the same as with one chunk.
    const fd = openSync(path, 'r')
    const offsets = [3, 17, 64, 1 << 20].map((chunk) => lastSnapshotOffset(fd, chunk))
    closeSync(fd)
    expect(new Set(offsets).size).toBe(1)
    expect(readFileSync(path).subarray(offsets[0]).toString().startsWith('{"v":2')).toBe(true)
    // A line whose data holds a snapshot's text is not a snapshot.
    const requested = events.find((e) => e.type === 'tool.requested') as KernelEvent
    const lastSeq = events.at(-1)?.seq ?? 0
    const mention = { ...requested, seq: lastSeq + 1, input: { nested: { type: 'session.snapshot' } } }
    appendFileSync(path, `${JSON.stringify(mention)}\n`)
    const fd2 = openSync(path, 'r')
    expect(lastSnapshotOffset(fd2, 64)).toBe(offsets[0])
    closeSync(fd2)
    // A snapshot of another format: passed over, the whole file is read.
    const text = readFileSync(path, 'utf8').replace(/"format":1,/g, '"format":9,')
    writeFileSync(path, text)
    const whole = createJsonlLog(path, fixedClock(), { fromSnapshot: true })
    expect(whole.read()).toHaveLength(events.length + 1)
    whole.close()
    expect(() => createJsonlLog(path, fixedClock(), { fromSnapshot: 'yes' as never })).toThrow(
      /fromSnapshot must be true or false/,
    )
  })
})

describe('readers of the whole log pass snapshots over', () => {
  it('replay, the timeline, stats and telemetry read a log with snapshots', async () => {
    const events = await session()
    const result = await replay(events, { tools })
    expect(result.ok ? undefined : result.divergence.message).toBeUndefined()
    const rows = projectTimeline(events).filter((r) => r.type === 'session.snapshot')
    expect(rows.map((r) => r.detail)).toEqual([
      expect.stringMatching(
        /^snapshot of the log up to event \d+ \(3 turn\(s\)\): \d+ event\(s\) carried for a resume$/,
      ),
      expect.anything(),
      expect.anything(),
    ])
    const without = events.filter((e) => e.type !== 'session.snapshot')
    // Stats count every event, a snapshot too; nothing else of them changes.
    expect(projectStats(events)).toEqual({ ...projectStats(without), events: events.length })
    expect(projectTelemetry(events).spans).toEqual(projectTelemetry(without).spans)
    expect(projectTimelineModel(events).calls).toEqual(projectTimelineModel(without).calls)
  })
})
