/**
 * The JSONL log's `retainTurns`: memory holds the last finished turns (as the memory log's window
 * does), the file keeps every event, and a log reopened with or without the option reads it all.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createJsonlLog, readJsonlFile } from '../../src/adapters/jsonl-log.store.js'
import { createKernel, type EventLog, type KernelEvent } from '../../src/index.js'
import { assistant, Echo, fixedClock } from '../helpers.js'

const dirs: string[] = []
const tempLog = () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-retain-'))
  dirs.push(dir)
  return join(dir, 'session.jsonl')
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Ids that do not repeat across the kernels that share one file. */
const idsFrom = (from: number) => {
  let n = 0
  return { next: (prefix: string) => `${prefix}_${from}_${++n}` }
}

async function runTurns(log: EventLog, from: number, count: number): Promise<void> {
  const kernel = createKernel({ tools: [Echo], log, ports: { clock: fixedClock(), ids: idsFrom(from) } })
  for (let turn = from; turn < from + count; turn++) {
    const { message } = await kernel.runTurn(assistant([`t${turn}a`, 'Echo', { text: `${turn}` }]))
    expect(message.content).toEqual([{ type: 'tool_result', tool_use_id: `t${turn}a`, content: `${turn}` }])
  }
}
const turnsIn = (events: readonly { type: string; turnId: string }[]) =>
  events.filter((event) => event.type === 'turn.started').map((event) => event.turnId)

/** What a dropped turn leaves in memory: the session's facts, framed by the turn's start and end. */
const FRAME = new Set(['turn.started', 'turn.completed', 'session.configured', 'pool.changed', 'permission.granted'])

/** `retained` is the file's last `turns` turns whole, and of older turns only their frames. */
function expectWindow(retained: readonly KernelEvent[], file: readonly KernelEvent[], turns: number): void {
  const last = new Set(turnsIn(file).slice(-turns))
  const bySeq = new Map(file.map((event) => [event.seq, event]))
  for (const event of retained) expect(event).toEqual(bySeq.get(event.seq))
  expect(retained.filter((event) => last.has(event.turnId))).toEqual(file.filter((event) => last.has(event.turnId)))
  const older = retained.filter((event) => !last.has(event.turnId))
  expect(older.filter((event) => !FRAME.has(event.type))).toEqual([])
  expect(retained.length).toBeLessThan(file.length)
}

describe('createJsonlLog retainTurns', () => {
  it('keeps the last n finished turns in memory and every event in the file', async () => {
    const path = tempLog()
    const log = createJsonlLog(path, fixedClock(), { retainTurns: 2 })
    await runTurns(log, 0, 6)
    const retained = log.read()
    log.close()
    const file = readJsonlFile(path).events
    expect(turnsIn(file)).toHaveLength(6)
    expectWindow(retained, file, 2)
  })

  it('trims the history it reopens, appends after the last seq, and reads back whole without the option', async () => {
    const path = tempLog()
    const first = createJsonlLog(path, fixedClock())
    await runTurns(first, 0, 4)
    first.close()
    const reopened = createJsonlLog(path, fixedClock(), { retainTurns: 1 })
    expectWindow(reopened.read(), readJsonlFile(path).events, 1)
    await runTurns(reopened, 4, 2)
    reopened.close()
    const whole = createJsonlLog(path, fixedClock())
    const events = whole.read()
    whole.close()
    expect(turnsIn(events)).toHaveLength(6)
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index))
  })

  it('refuses a bad retainTurns before it creates the file', () => {
    const path = tempLog()
    expect(() => createJsonlLog(path, fixedClock(), { retainTurns: 0 })).toThrow(
      /createJsonlLog: retainTurns must be a whole number of turns, at least 1/,
    )
    expect(existsSync(path)).toBe(false)
  })
})
