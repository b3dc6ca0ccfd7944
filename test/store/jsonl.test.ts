/** The JSONL event store on a real temp directory: the contract, and what a crash leaves. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createJsonlEventStore } from '../../src/adapters/jsonl-event.store.js'
import type { KernelEvent } from '../../src/events/event.schema.js'
import type { EventStore, StoredEvent } from '../../src/ports/event-store.port.js'
import { freshStream, sampleEvent, sampleEvents, storeContract, until } from './contract.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'toolkernel-jsonl-store-'))
  dirs.push(dir)
  return dir
}

let open: EventStore[] = []
storeContract(
  'jsonl',
  () => {
    const dir = tempDir()
    const store = createJsonlEventStore(dir, { fsync: 'fences' })
    open.push(store)
    return Promise.resolve({
      store,
      reopen: () => Promise.resolve(createJsonlEventStore(dir)),
    })
  },
  async () => {
    for (const store of open) await store.close()
    open = []
  },
)

describe('jsonl event store: files', () => {
  it('writes one file per stream in the JSONL log format, and reopening cuts off a torn last line', async () => {
    const dir = tempDir()
    const s = freshStream()
    const store = createJsonlEventStore(dir, { fsync: 'every' })
    await store.append(s, sampleEvents(0, 3), { expectedVersion: 0 })
    await store.close()
    const file = join(dir, `${s}.jsonl`)
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(sampleEvents(0, 3))
    appendFileSync(file, '{"v":1,"seq":3,"at')
    const again = createJsonlEventStore(dir)
    expect(await again.version(s)).toBe(3)
    expect(await again.append(s, sampleEvents(3, 1), { expectedVersion: 3 })).toMatchObject({ ok: true, version: 4 })
    await again.close()
    expect(readFileSync(file, 'utf8').trim().split('\n').length).toBe(4)
  })
})

describe('jsonl event store: a stream is read when first used (decision 170)', () => {
  /** A store directory holding `streams`, each written by a store of its own and closed. */
  const written = async (streams: Record<string, number>): Promise<string> => {
    const dir = tempDir()
    const writer = createJsonlEventStore(dir)
    for (const [stream, count] of Object.entries(streams))
      await writer.append(stream, sampleEvents(0, count), { expectedVersion: 0 })
    await writer.close()
    return dir
  }
  const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n')

  it('opens a directory whose stream has a corrupt line; reads that stop short of it work, one that reaches it names the line', async () => {
    const dir = await written({ bad: 10, good: 2 })
    const file = join(dir, 'bad.jsonl')
    const text = lines(file)
    text[2] = '{"v":2,"seq":2,"at":1,"type":"no.such.event","turnId":"t"}'
    writeFileSync(file, text.join('\n'))
    const store = createJsonlEventStore(dir)
    expect(await store.version('bad')).toBe(10)
    expect((await store.read('bad', 5)).map((e) => e.version)).toEqual([5, 6, 7, 8, 9, 10])
    expect((await store.read('good')).map((e) => e.event)).toEqual(sampleEvents(0, 2))
    await expect(store.read('bad')).rejects.toThrow(/bad\.jsonl:3: .*does not read back/)
    // What was read stays readable, and the stream still takes appends at its version.
    expect(await store.append('bad', sampleEvents(10, 1), { expectedVersion: 10 })).toMatchObject({ version: 11 })
    expect((await store.read('bad', 10)).map((e) => e.version)).toEqual([10, 11])
    await store.close()
  })

  it('finds the last snapshot from the end and reads from it', async () => {
    const dir = tempDir()
    const writer = createJsonlEventStore(dir)
    const snapshot: KernelEvent = {
      v: 2,
      seq: 5,
      at: 5,
      type: 'session.snapshot',
      turnId: 'turn_1',
      format: 1,
      upTo: 4,
      turns: 1,
      carried: [],
    }
    await writer.append('s', [...sampleEvents(0, 5), snapshot, ...sampleEvents(6, 3)], { expectedVersion: 0 })
    await writer.close()
    const file = join(dir, 's.jsonl')
    const text = lines(file)
    text[0] = '{"torn": ' // the part before the snapshot is never parsed
    writeFileSync(file, text.join('\n'))
    const store = createJsonlEventStore(dir)
    expect(await store.lastSnapshot?.('s')).toBe(6)
    expect((await store.read('s', 6)).map((e) => e.event.type)).toEqual([
      'session.snapshot',
      'turn.completed',
      'turn.completed',
      'turn.completed',
    ])
    await store.close()
  })

  it('blank lines hold no event: versions count events, and appends go on after them', async () => {
    const dir = await written({ s: 3 })
    const file = join(dir, 's.jsonl')
    const text = lines(file)
    writeFileSync(file, ['', text[0], '  ', text[1], '\t\r', text[2], ''].join('\n'))
    const store = createJsonlEventStore(dir)
    expect(await store.version('s')).toBe(3)
    expect(await store.append('s', sampleEvents(3, 1), { expectedVersion: 3 })).toMatchObject({ version: 4 })
    expect((await store.read('s')).map((e) => e.event)).toEqual(sampleEvents(0, 4))
    expect((await store.read('s', 2)).map((e) => e.version)).toEqual([2, 3, 4])
    await store.close()
    const again = createJsonlEventStore(dir)
    expect((await again.read('s')).map((e) => e.event)).toEqual(sampleEvents(0, 4))
    await again.close()
  })

  it('keeps an event written whole without its newline, and cuts off a torn one', async () => {
    const dir = await written({ whole: 2, torn: 2 })
    const whole = join(dir, 'whole.jsonl')
    writeFileSync(whole, readFileSync(whole, 'utf8') + JSON.stringify(sampleEvent(2)))
    appendFileSync(join(dir, 'torn.jsonl'), '{"v":2,"se')
    const store = createJsonlEventStore(dir)
    expect(await store.version('whole')).toBe(3)
    expect(await store.version('torn')).toBe(2)
    await store.append('whole', sampleEvents(3, 1), { expectedVersion: 3 })
    await store.append('torn', sampleEvents(2, 1), { expectedVersion: 2 })
    await store.close()
    expect(
      lines(whole)
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(sampleEvents(0, 4))
    expect(
      lines(join(dir, 'torn.jsonl'))
        .filter((line) => line !== '')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(sampleEvents(0, 3))
  })

  it('the global order after a reopen: the streams it found, by name, then its own appends; pages continue from any checkpoint', async () => {
    const dir = await written({ b: 3, a: 2, c: 1 })
    const store = createJsonlEventStore(dir)
    await store.append('b', sampleEvents(3, 1), { expectedVersion: 3 })
    await store.append('d', sampleEvents(0, 1), { expectedVersion: 0 })
    const order = ['a1', 'a2', 'b1', 'b2', 'b3', 'c1', 'b4', 'd1']
    const all = await store.readAll('')
    expect(all.map((e) => `${e.stream}${e.version}`)).toEqual(order)
    // Every checkpoint continues with what follows it, a page at a time.
    for (let k = 0; k < all.length; k++) {
      const rest = await store.readAll((all[k] as StoredEvent).position, 2)
      expect(rest.map((e) => `${e.stream}${e.version}`)).toEqual(order.slice(k + 1, k + 3))
    }
    const seen: string[] = []
    const sub = store.subscribe(
      (all[3] as StoredEvent).position,
      (batch) => void seen.push(...batch.map((e) => `${e.stream}${e.version}`)),
      {
        pollMs: 20,
      },
    )
    await until(async () => seen.length === 4, 'the feed to catch up')
    expect(seen).toEqual(order.slice(4))
    await until(async () => (await sub.lag()) === 0, 'lag 0')
    await sub.close()
    await expect(async () => store.readAll('17')).rejects.toThrow(/not one of this store's positions/)
    await store.close()
  })
})
