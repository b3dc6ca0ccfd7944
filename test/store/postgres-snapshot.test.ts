/**
 * Session snapshots on PostgreSQL (issue 33): the store finds a session's last snapshot through
 * its partial index (migration 2), the kernel opens the session from there, and a row that only
 * mentions a snapshot in its data is not taken for one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { z } from 'zod'
import { createPostgresEventStore } from '../../src/adapters/postgres-event.store.js'
import { SNAPSHOT_ROW } from '../../src/adapters/postgres-schema.js'
import { buildTool, createKernel } from '../../src/index.js'
import { Ask, counterIds } from '../helpers.js'
import { postgres } from '../programs.js'
import { startTestServer, type TestServer } from '../postgres-server.js'

const Echo = buildTool({
  name: 'Echo',
  description: () => 'Echoes.',
  inputSchema: z.object({ text: z.unknown() }),
  isConcurrencySafe: () => true,
  call: async ({ text }) => JSON.stringify(text),
})
const turn = (id: string, name: string, text: unknown = id) =>
  ({ role: 'assistant', content: [{ type: 'tool_use', id, name, input: { text } }], stop_reason: 'tool_use' }) as never

describe.skipIf(postgres === undefined)('postgres: a session opens from its last snapshot', () => {
  let server: TestServer
  let url: string
  beforeAll(async () => {
    server = await startTestServer(postgres as string)
    url = await server.createDatabase('snapshots')
  }, 60_000)
  afterAll(() => server?.stop())

  it('lastSnapshot finds it by the index; the kernel reads from it, the parked call goes on', async () => {
    const store = createPostgresEventStore({ connection: url })
    const a = createKernel({ tools: [Echo, Ask], store, session: 's1', snapshotEvery: 2, ports: { ids: counterIds() } })
    await a.ready()
    await a.runTurn(turn('a1', 'Ask'))
    for (let i = 0; i < 4; i++) await a.runTurn(turn(`e${i}`, 'Echo'))
    // After the last snapshot: a call whose input holds a snapshot's text.
    await a.runTurn(turn('e9', 'Echo', { type: 'session.snapshot', format: 1 }))
    await a.close()
    const all = await store.read('s1')
    const last = all.findLast((s) => s.event.type === 'session.snapshot')
    expect(await store.lastSnapshot?.('s1')).toBe(last?.version)
    expect(await store.lastSnapshot?.('nobody')).toBeUndefined()

    const b = createKernel({ tools: [Echo, Ask], store, session: 's1', ports: { ids: counterIds() } })
    await b.ready()
    expect(b.log.read().length).toBeLessThan(all.length)
    expect(b.pendingApprovals().map((p) => p.toolUseId)).toEqual(['a1'])
    const answered = await b.answer('a1', { behavior: 'allow' })
    expect(answered.message.content[0]).toMatchObject({ tool_use_id: 'a1', content: 'asked a1' })
    await b.close()
    const after = await store.read('s1')
    expect(after.map((s) => s.event.seq)).toEqual(after.map((_, i) => i))
    expect(after.map((s) => s.version)).toEqual(after.map((_, i) => i + 1))

    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query('SET enable_seqscan = off')
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT version FROM toolkernel_events WHERE stream = 's1' AND ${SNAPSHOT_ROW} ORDER BY version DESC LIMIT 1`,
      )
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/toolkernel_events_snapshots/)
    } finally {
      await client.end()
    }
    await store.close()
  }, 60_000)
})
