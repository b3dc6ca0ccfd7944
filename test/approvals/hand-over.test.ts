/**
 * A call parks in one process and is answered from another: process A runs a turn whose Deploy
 * call asks, prints what is pending and exits; this process opens the same session (a JSONL log,
 * PostgreSQL), lists the pending call, answers it, and the model gets the message an
 * uninterrupted run gives. Nothing ran in A that needed the approval.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPostgresEventStore } from '../../src/adapters/postgres-event.store.js'
import { buildTool, createJsonlLog, createKernel, type Kernel } from '../../src/index.js'
import { postgres } from '../programs.js'
import { startTestServer, type TestServer } from '../postgres-server.js'
// @ts-expect-error -- a plain ESM fixture shared with the child process
import { approvalTools, message } from '../fixtures/approvals/tools.mjs'

type Tools = Parameters<typeof createKernel>[0]['tools']
type Message = Parameters<Kernel['runTurn']>[0]
const toolsWith = (ran: string[]) => (approvalTools as (deps: unknown, ran: string[]) => Tools)({ buildTool, z }, ran)
const turn = message as Message
const park = new URL('../fixtures/approvals/park.mjs', import.meta.url).pathname

async function processA(...args: string[]): Promise<{ pending: string[]; ran: string[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, [park, ...args])
  return JSON.parse(stdout) as { pending: string[]; ran: string[] }
}

/** The same turn answered at once by canUseTool: what the model gets when nothing pauses. */
async function uninterrupted(): Promise<unknown> {
  const kernel = createKernel({ tools: toolsWith([]), canUseTool: () => ({ behavior: 'allow' }) })
  return (await kernel.runTurn(turn)).message
}

/** Process B: lists the pending call, answers it, and returns the turn's message and what ran. */
async function processB(kernel: Kernel, ran: string[]): Promise<unknown> {
  const [pending, ...more] = kernel.pendingApprovals()
  expect(more).toEqual([])
  expect(pending).toMatchObject({ toolUseId: 'd1', tool: 'Deploy', input: { target: 'staging' } })
  expect(pending?.reason).toBe('deploys to staging')
  const result = await kernel.answer('d1', { behavior: 'allow', digest: pending?.digest ?? '' })
  expect(result.pending).toEqual([])
  // Tally waited behind the parked Deploy: it runs only now, after it.
  expect(ran).toEqual(['Deploy staging', 'Tally'])
  expect(kernel.pendingApprovals()).toEqual([])
  return result.message
}

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-approvals-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('a parked call is answered from another process', () => {
  it('JSONL: A parks and exits; B answers; the message is the uninterrupted one', async () => {
    const path = join(dir, 'session.jsonl')
    const a = await processA('jsonl', path)
    expect(a).toEqual({ pending: ['d1'], ran: ['Note hi'] })
    const ran: string[] = []
    const b = createKernel({ tools: toolsWith(ran) }).resume(createJsonlLog(path))
    expect(await processB(b, ran)).toEqual(await uninterrupted())
    await b.close()
  })

  describe.skipIf(postgres === undefined)('PostgreSQL', () => {
    let server: TestServer
    let url: string
    beforeAll(async () => {
      server = await startTestServer(postgres as string)
      url = await server.createDatabase('approvals')
    }, 60_000)
    afterAll(() => server?.stop())

    it('A parks and exits; B opens the session, answers; the message is the uninterrupted one', async () => {
      const a = await processA('pg', url, 'waiting')
      expect(a).toEqual({ pending: ['d1'], ran: ['Note hi'] })
      const ran: string[] = []
      const store = createPostgresEventStore({ connection: url })
      const b = createKernel({ tools: toolsWith(ran), store, session: 'waiting', lease: { owner: 'b' } })
      await b.ready()
      expect(await processB(b, ran)).toEqual(await uninterrupted())
      await b.close()
      await store.close()
    })
  })
})
