/** The JSONL event store on a real temp directory: the contract, and what a crash leaves. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createJsonlEventStore } from '../../src/adapters/jsonl-event.store.js'
import type { EventStore } from '../../src/ports/event-store.port.js'
import { freshStream, sampleEvents, storeContract } from './contract.js'

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
