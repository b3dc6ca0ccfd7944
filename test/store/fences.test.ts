/**
 * Durability fences and group commit, on real stores: a tool runs only once what led to it is
 * stored (write-ahead), a turn's result only once the turn is stored, and a parallel batch is a
 * few round trips, not one per event. A lost lease stops the session before any tool runs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createJsonlLog } from '../../src/adapters/jsonl-log.store.js'
import { createMemoryEventStore } from '../../src/adapters/memory-event.store.js'
import { Bash, buildTool, createKernel, createMemoryLog, projectMessages } from '../../src/index.js'
import type { EventStore } from '../../src/ports/event-store.port.js'
import { assistant, Echo, fixedClock } from '../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'toolkernel-fences-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A real store that counts its round trips. */
function counted(store: EventStore): EventStore & { appends: number } {
  const counting: EventStore & { appends: number } = {
    appends: 0,
    append: (...args) => (counting.appends++, store.append(...args)),
    read: (...args) => store.read(...args),
    version: (stream) => store.version(stream),
    readAll: (...args) => store.readAll(...args),
    subscribe: (...args) => store.subscribe(...args),
    acquire: (...args) => store.acquire(...args),
    renew: (...args) => store.renew(...args),
    release: (lease) => store.release(lease),
    close: () => store.close(),
  }
  return counting
}

/** A tool that reports which events of its own call were stored when it started. */
function probe(seen: () => Promise<string[]>) {
  return buildTool({
    name: 'Probe',
    description: () => 'Reports what the log held when it ran.',
    inputSchema: z.object({}),
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async () => (await seen()).join(','),
  })
}

describe('durability fences', () => {
  it('write-ahead over a JSONL log: the call is on disk before its tool runs; the turn before its result', async () => {
    const path = join(dir, 'wal.jsonl')
    const onDisk = (): string[] =>
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { type: string }).type)
    const kernel = createKernel({
      tools: [probe(() => Promise.resolve(onDisk()))],
      log: createJsonlLog(path, fixedClock()),
    })
    const { message } = await kernel.runTurn(assistant(['p1', 'Probe', {}]))
    expect(String(message.content[0]?.content).split(',')).toEqual(
      expect.arrayContaining(['turn.started', 'tool.requested', 'tool.dispatched']),
    )
    expect(onDisk().at(-1)).toBe('turn.completed')
  })

  it('write-ahead over a store: the call is stored before its tool runs, the turn before its result', async () => {
    const store = createMemoryEventStore()
    const kernel = createKernel({
      tools: [probe(async () => (await store.read('s-wal')).map((e) => e.event.type))],
      store,
      session: 's-wal',
    })
    const { message } = await kernel.runTurn(assistant(['p1', 'Probe', {}]))
    expect(String(message.content[0]?.content).split(',')).toEqual(
      expect.arrayContaining(['session.configured', 'turn.started', 'tool.requested']),
    )
    expect((await store.read('s-wal')).at(-1)?.event.type).toBe('turn.completed')
    await kernel.close()
  })

  it('group commit: a parallel batch of 8 calls is a handful of appends, not one per event', async () => {
    const store = counted(createMemoryEventStore())
    const kernel = createKernel({ tools: [Echo], store, session: 's-group' })
    await kernel.ready()
    const before = store.appends
    const uses = Array.from({ length: 8 }, (_, i): [string, string, unknown] => [`e${i}`, 'Echo', { text: `x${i}` }])
    const { events } = await kernel.runTurn(assistant(...uses))
    expect(events.length).toBeGreaterThan(60)
    expect(store.appends - before).toBeLessThanOrEqual(6)
    expect((await store.read('s-group')).length).toBe(kernel.log.read().length)
    await kernel.close()
  })

  it('a lease lost to a takeover: the tool does not run, the turn says why, the store keeps only the owner’s events', async () => {
    let now = 1_000
    const store = createMemoryEventStore({ now: () => now })
    let ran = 0
    const Touch = buildTool({
      name: 'Touch',
      description: () => 'A side effect.',
      inputSchema: z.object({}),
      call: async () => (ran++, 'touched'),
    })
    const kernel = createKernel({ tools: [Touch], store, session: 's-lost', lease: { owner: 'a', ttlMs: 1000 } })
    await kernel.ready()
    now += 5_000
    const taken = await store.acquire('s-lost', 'b', 60_000)
    expect(taken.ok).toBe(true)
    const result = await kernel.runTurn(assistant(['t1', 'Touch', {}]))
    expect(ran).toBe(0)
    expect(result.logError).toMatch(/lease lost/)
    expect(result.message.content).toHaveLength(1)
    expect(result.message.content[0]?.is_error).toBe(true)
    expect((await store.read('s-lost')).some((e) => e.event.type === 'turn.started')).toBe(false)
  })

  it('resume anywhere: a second kernel takes the session over after the first one’s lease expires, recovers its open call, continues', async () => {
    let now = 1_000
    const store = createMemoryEventStore({ now: () => now })
    const Hang = buildTool({
      name: 'Hang',
      description: () => 'Never returns.',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      call: () => new Promise<string>(() => {}),
    })
    const tools = [Echo, Hang]
    const a = createKernel({ tools, store, session: 's-move', lease: { owner: 'a', ttlMs: 1000 } })
    await a.runTurn(assistant(['e1', 'Echo', { text: 'one' }]))
    void a.runTurn(assistant(['h1', 'Hang', {}]))
    await new Promise((resolve) => setImmediate(resolve))
    // Process A is gone (nothing more from it); its lease runs out.
    now += 5_000
    const b = createKernel({ tools, store, session: 's-move', lease: { owner: 'b' } })
    await b.ready()
    const { message } = await b.runTurn(assistant(['e2', 'Echo', { text: 'two' }]))
    expect(message.content.map((block) => block.tool_use_id)).toEqual(['e2'])
    const stored = (await store.read('s-move')).map((e) => e.event)
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i))
    const messages = projectMessages(stored)
    expect(messages.map((m) => m.content.map((block) => block.tool_use_id))).toEqual([['e1'], ['h1'], ['e2']])
    expect(String(messages[1]?.content[0]?.content)).toMatch(/session stopped unexpectedly/)
    await b.close()
  })

  it('resume anywhere keeps the session: grants given on one kernel are honoured by the next', async () => {
    const store = createMemoryEventStore()
    const cwd = mkdtempSync(join(dir, 'grants-'))
    let asked = 0
    const a = createKernel({
      tools: [Bash],
      cwd,
      store,
      session: 's-grants',
      canUseTool: () => (asked++, { behavior: 'allow', grant: { scope: 'rule', rule: 'Bash(tee:*)' } }),
    })
    await a.runTurn(assistant(['a', 'Bash', { command: 'tee one.txt <<< one' }]))
    await a.close()
    expect(asked).toBe(1)
    const b = createKernel({
      tools: [Bash],
      cwd,
      store,
      session: 's-grants',
      canUseTool: () => {
        throw new Error('should not ask: the grant is in the session')
      },
    })
    const { message } = await b.runTurn(assistant(['b', 'Bash', { command: 'tee two.txt <<< two' }]))
    expect(String(message.content[0]?.content)).toBe('two')
    await b.close()
  })

  it('a session another owner holds cannot be opened: ready() and runTurn say who holds it', async () => {
    const store = createMemoryEventStore()
    const a = createKernel({ tools: [Echo], store, session: 's-held', lease: { owner: 'a' } })
    await a.ready()
    const b = createKernel({ tools: [Echo], store, session: 's-held', lease: { owner: 'b' } })
    await expect(b.ready()).rejects.toThrow(/session s-held is leased to a/)
    await expect(b.runTurn(assistant(['e1', 'Echo', { text: 'x' }]))).rejects.toThrow(/leased to a/)
    expect(b.apiTools().map((tool) => tool.name)).toEqual(['Echo'])
    await a.close()
  })

  it('an append whose answer was lost (the connection dropped after the commit) is recognised on retry, not doubled', async () => {
    const store = counted(createMemoryEventStore())
    const append = store.append
    let drop = 0
    // Fault injection over a real store: the first two appends commit, then their answer is lost.
    store.append = async (...args) => {
      const result = await append(...args)
      if (drop++ < 2) throw new Error('Connection terminated unexpectedly')
      return result
    }
    const kernel = createKernel({ tools: [Echo], store, session: 's-lost-answer' })
    const { message, logError } = await kernel.runTurn(assistant(['e1', 'Echo', { text: 'once' }]))
    expect(logError).toBeUndefined()
    expect(message.content[0]?.content).toBe('once')
    const stored = (await store.read('s-lost-answer')).map((e) => e.event)
    expect(stored).toEqual(kernel.log.read())
    await kernel.close()
  })
})

describe('an abort while the write-ahead fence is pending', () => {
  it('a block tool that has not started yet is not started: cancelled, no post-hook for it', async () => {
    let release: () => void = () => {}
    const log = createMemoryLog()
    const gate = new Promise<void>((resolve) => (release = resolve))
    const fenced = Object.assign(log, { fence: () => gate })
    let ran = 0
    let postHooks = 0
    const Writes = buildTool({
      name: 'Writes',
      description: () => 'Has a side effect.',
      inputSchema: z.object({}),
      call: async () => {
        ran++
        return 'done'
      },
    })
    const hook = { type: 'function' as const, fn: () => void postHooks++ }
    const kernel = createKernel({
      tools: [Writes],
      log: fenced,
      hooks: { PostToolUse: [{ hooks: [hook] }], PostToolUseFailure: [{ hooks: [hook] }] },
    })
    const controller = new AbortController()
    const turn = kernel.runTurn(assistant(['w', 'Writes', {}]), { signal: controller.signal })
    // The call waits at its fence; the user interrupts; then the log catches up.
    while (!log.read().some((e) => e.type === 'tool.started')) await new Promise((r) => setImmediate(r))
    controller.abort('user pressed Esc')
    release()
    const { message } = await turn
    expect(ran).toBe(0)
    expect(postHooks).toBe(0)
    expect(String(message.content[0]?.content)).toMatch(/Writes was cancelled before it ran/)
  })
})
