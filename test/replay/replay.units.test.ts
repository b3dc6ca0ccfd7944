/**
 * Re-execution replay, piece by piece: the divergence report, the configuration a log replays
 * with, streaming and batch turns (aborted, discarded, cut off), and each outside answer fed back
 * at its recorded moment. Logs are recorded with real kernels, then edited to make divergences.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  createMemoryLog,
  recover,
  replay,
  type EventOf,
  type KernelEvent,
  type ReplayResult,
  type Tool,
} from '../../src/index.js'
import type { HookRunner } from '../../src/hooks/hook-runner.js'
import { assistant, Echo, fixedClock, testKernel } from '../helpers.js'
import {
  deferred,
  edited,
  expectOk,
  Guarded,
  holdTool,
  Reporting,
  reportingLog,
  reseq,
  shown,
  slowCheckedTool,
  stream,
  SyncChecked,
  Watch,
  without,
  Writer,
} from './units-helpers.js'

const dirs: string[] = []
const tempDir = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolkernel-replay-')))
  dirs.push(dir)
  return dir
}
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })))

const divergenceOf = (result: ReplayResult) => {
  expect(result.ok).toBe(false)
  if (result.ok) throw new Error('expected a divergence')
  return result.divergence
}
/** A tool that writes and always asks a person first. */
const Asks = Object.assign(Object.create(Echo) as Tool, {
  isReadOnly: () => false,
  checkPermissions: () => ({ behavior: 'ask', message: 'sure?' }),
})
/** The result without the re-executed log (compared on its own where it matters). */
const withoutLog = ({ log: _log, ...rest }: ReplayResult) => rest

const STOPPED = 'replay stopped: the engine waited for something the log does not record'

async function echoLog(...texts: string[]): Promise<KernelEvent[]> {
  const kernel = testKernel([Echo])
  for (const [i, text] of texts.entries()) await kernel.runTurn(assistant([`e${i}`, 'Echo', { text }]))
  return [...kernel.log.read()]
}

describe('the divergence report', () => {
  it('an out-of-order log: the seq and turn of the event that breaks the order, and the problem', async () => {
    const events = await echoLog('x')
    const stray = events.find((e) => e.type === 'tool.queued') as KernelEvent
    const broken = edited(
      events,
      (e) => e === stray,
      () => ({ turnId: 'turn_ghost' }),
    )
    const result = await replay(broken, { tools: [Echo] })
    expect(withoutLog(result)).toStrictEqual({
      ok: false,
      turns: 0,
      divergence: {
        position: stray.seq,
        turnId: 'turn_ghost',
        expected: { ...stray, turnId: 'turn_ghost' },
        actual: undefined,
        message: "the log is out of order: tool.queued of turn turn_ghost comes before the turn's turn.started",
      },
    })
    // Nothing was replayed, so nothing was left to the log.
    const asked = await replay(broken, { tools: [Echo], inputNotChecked: ['Echo'] })
    expect(asked.notChecked).toStrictEqual([])
  })

  it("options it does not know are refused, named as replay's", async () => {
    const events = await echoLog('x')
    await expect(replay(events, { tools: [Echo], readResutl: () => '' } as never)).rejects.toThrow(/^replay: /)
  })

  it('a turn without turn.started is refused by the order check, not replayed or skipped', async () => {
    const events = await echoLog('x')
    const orphan = events.map((e) => ({ ...e, turnId: 'orphan' }) as KernelEvent).slice(1)
    const result = await replay(reseq([...events, ...orphan]), { tools: [Echo] })
    expect(divergenceOf(result).message).toBe(
      "the log is out of order: session.configured of turn orphan comes before the turn's turn.started",
    )
  })

  it('a changed decision: where, which turn, both events and a message that shows them', async () => {
    const events = await echoLog('x', 'y')
    const recorded = events.findLast((e) => e.type === 'tool.result') as KernelEvent & { type: 'tool.result' }
    const changed = edited(
      events,
      (e) => e === recorded,
      (e) => ({
        block: { ...(e as typeof recorded).block, content: 'not what Echo says' },
      }),
    )
    const result = await replay(changed, { tools: [Echo] })
    const expected = changed.find((e) => e.seq === recorded.seq) as KernelEvent
    const actual = { ...recorded, at: 0 }
    expect(withoutLog(result)).toStrictEqual({
      ok: false,
      turns: 2,
      divergence: {
        position: recorded.seq,
        turnId: recorded.turnId,
        expected,
        actual,
        message: `at event ${recorded.seq}: the log has ${shown(expected)}, but the engine now decides ${shown(actual)}`,
      },
    })
  })

  it('shows an event of up to 400 characters whole, and a longer one cut with an ellipsis', async () => {
    const events = await echoLog('x')
    const recorded = events.find((e) => e.type === 'tool.result') as KernelEvent & { type: 'tool.result' }
    const withContent = (content: string) =>
      edited(
        events,
        (e) => e === recorded,
        () => ({ block: { ...recorded.block, content } }),
      )
    const length = (content: string) => shown({ ...recorded, block: { ...recorded.block, content } }).length
    // `shown` is "tool.result " and then the JSON: pad the JSON to exactly 400 characters, then 401.
    const pad = 400 + 'tool.result '.length - length('')
    const exact = divergenceOf(await replay(withContent('z'.repeat(pad)), { tools: [Echo] }))
    expect(exact.message).toContain(`the log has ${shown(exact.expected as KernelEvent)}, but`)
    expect(exact.message).not.toContain('…')
    const long = divergenceOf(await replay(withContent('z'.repeat(pad + 1)), { tools: [Echo] }))
    const text = shown(long.expected as KernelEvent).slice('tool.result '.length)
    expect(text).toHaveLength(401)
    expect(long.message).toContain(`the log has tool.result ${text.slice(0, 400)}…, but`)
  })

  it('a difference in the last event, turn.completed, is reported too', async () => {
    const events = await echoLog('x')
    const last = events.at(-1) as KernelEvent
    const result = await replay(
      edited(
        events,
        (e) => e === last,
        () => ({ results: 7 }),
      ),
      { tools: [Echo] },
    )
    expect(divergenceOf(result)).toMatchObject({ position: last.seq, expected: { type: 'turn.completed', results: 7 } })
  })
})

describe('the configuration a log replays with', () => {
  it("the recorded rules decide by default; the caller's replace them", async () => {
    const kernel = testKernel([Echo, Writer], { permissions: { deny: ['Writer'], allow: ['Echo'] } })
    await kernel.runTurn(assistant(['w', 'Writer', { path: '/notes/a.md' }], ['e', 'Echo', { text: 'x' }]))
    const events = kernel.log.read()
    expectOk(await replay(events, { tools: [Echo, Writer] }))
    const loosened = divergenceOf(await replay(events, { tools: [Echo, Writer], permissions: { allow: ['Writer'] } }))
    expect(loosened.expected).toMatchObject({ type: 'tool.permitted', toolUseId: 'w', behavior: 'deny' })
  })

  it("the recorded working directory decides by default; the caller's replaces it", async () => {
    const cwd = tempDir()
    const kernel = testKernel([Writer], { cwd, permissions: { mode: 'acceptEdits' } })
    await kernel.runTurn(assistant(['w', 'Writer', { path: join(cwd, 'note.md') }]))
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'tool.permitted')).toMatchObject({ behavior: 'allow', source: 'mode' })
    expectOk(await replay(events, { tools: [Writer] }))
    // Elsewhere, the same write is outside the working directory: the mode no longer allows it.
    const moved = divergenceOf(await replay(events, { tools: [Writer], cwd: tempDir() }))
    expect(moved.expected).toMatchObject({ type: 'tool.permitted', toolUseId: 'w', source: 'mode' })
    expect(moved.actual).toMatchObject({ type: 'tool.permitted', toolUseId: 'w', source: 'tool' })
  })

  it('the message budget is the one the log recorded (session.configured), unless the caller gives another', async () => {
    const dir = tempDir()
    const results = {
      save: async ({ toolUseId }: { toolUseId: string }, content: string) => {
        const path = join(dir, `${toolUseId}.out`)
        writeFileSync(path, content)
        return path
      },
    }
    const kernel = testKernel([Echo], { messageBudgetChars: 5, results })
    // longer than KEEP_WHOLE_CHARS, which a full message keeps whole
    await kernel.runTurn(assistant(['big', 'Echo', { text: 'more than five '.repeat(100) }]))
    const events = kernel.log.read()
    expect(events.some((e) => e.type === 'tool.budgeted')).toBe(true)
    const readResult = (path: string) => readFileSync(path, 'utf8')
    expect(events.find((e) => e.type === 'session.configured')).toMatchObject({ limits: { messageBudgetChars: 5 } })
    expectOk(await replay(events, { tools: [Echo], readResult }))
    expectOk(await replay(events, { tools: [Echo], messageBudgetChars: 5, readResult }))
    const whole = divergenceOf(await replay(events, { tools: [Echo], messageBudgetChars: 200_000, readResult }))
    expect(whole.expected).toMatchObject({ type: 'tool.completed', persisted: true })
  })

  it("turn.started's cwd and rules, and tool.parsed's hooks, are configuration: not compared", async () => {
    const cwd = tempDir()
    const kernel = testKernel([Echo], {
      cwd,
      hooks: { PreToolUse: [{ hooks: [{ type: 'function', name: 'ok', fn: () => undefined }] }] },
    })
    await kernel.runTurn(assistant(['e', 'Echo', { text: 'x' }]))
    const events = edited(
      kernel.log.read(),
      (e) => e.type === 'turn.started' || e.type === 'tool.parsed',
      (e) =>
        e.type === 'turn.started'
          ? { cwd: '/somewhere/else', permissions: { mode: 'plan', allow: [], ask: ['Echo'], deny: [] } }
          : { hooks: undefined },
    )
    const parsed = events.find((e) => e.type === 'tool.parsed')
    expect(parsed !== undefined && 'hooks' in parsed && parsed.hooks === undefined).toBe(true)
    expectOk(await replay(events, { tools: [Echo], cwd, permissions: {} }))
  })

  it("a call's flags, which older logs lack, are not compared; the decision they went with is", async () => {
    const kernel = testKernel([Asks])
    const first = await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    await kernel.answer('a', { behavior: 'allow', digest: first.pending[0]?.digest ?? '' })
    const flagged = (e: KernelEvent) => e.type === 'permission.pending' || e.type === 'tool.permitted'
    const events = kernel.log.read()
    expect(events.filter(flagged).map((e) => [e.type, 'flags' in e])).toStrictEqual([
      ['permission.pending', true],
      ['tool.permitted', true],
    ])
    const older = edited(events, flagged, () => ({ flags: undefined }))
    expectOk(await replay(older, { tools: [Asks] }))
    const denied = edited(
      events,
      (e) => e.type === 'tool.permitted',
      () => ({ flags: undefined, behavior: 'deny' }),
    )
    expect(divergenceOf(await replay(denied, { tools: [Asks] })).expected).toMatchObject({ type: 'tool.permitted' })
  })

  it('a session.configured from before it recorded what the model was sent of each tool replays', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['e', 'Echo', { text: 'x' }]))
    const older = edited(
      kernel.log.read(),
      (e) => e.type === 'session.configured',
      (e) => ({ tools: (e as EventOf<'session.configured'>).tools.map(({ definition: _d, ...tool }) => tool) }),
    )
    expect(JSON.stringify(older)).not.toContain('"definition"')
    expectOk(await replay(older, { tools: [Echo] }))
  })

  it('the session.configured of a resumed kernel, in a later turn, is not compared', async () => {
    const log = createMemoryLog(fixedClock())
    await testKernel([Echo], { log }).runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    await testKernel([Echo], { log })
      .resume(log)
      .runTurn(assistant(['b', 'Echo', { text: 'y' }]))
    const events = log.read()
    expect(events.filter((e) => e.type === 'session.configured').map((e) => e.turnId)).toHaveLength(2)
    expect(withoutLog(await replay(events, { tools: [Echo] }))).toStrictEqual({
      ok: true,
      turns: 2,
      events: events.length,
    })
  })
})

describe('streaming and batch turns', () => {
  it('a stream turn replays with the early start it recorded', async () => {
    const release = deferred()
    const tools = [Echo, Writer, holdTool(release.promise)]
    for (const earlyStart of ['none', 'safe', 'all'] as const) {
      const kernel = testKernel(tools)
      const turn = kernel.startTurn({ earlyStart })
      turn.addToolUse({ id: 'e', name: 'Echo', input: { text: 'x' } })
      turn.addToolUse({ id: 'w', name: 'Writer', input: { path: '/notes/a.md' } })
      turn.end('tool_use')
      await turn.result()
      expectOk(await replay(kernel.log.read(), { tools }))
    }
  })

  // Regression (issue 10): normal() compared earlyStart, so a log from before the field diverged
  // at its first event whatever the fallback decided. It is configuration, not compared now.
  it('a log without earlyStart (an older one): stream turns start safe calls early, batch turns all', async () => {
    const kernel = testKernel([Echo, Writer])
    for (const use of [
      { id: 'e', name: 'Echo', input: { text: 'x' } },
      { id: 'w', name: 'Writer', input: { path: '/a' } },
    ]) {
      const turn = kernel.startTurn()
      turn.addToolUse(use)
      turn.end('tool_use')
      await turn.result()
    }
    await kernel.runTurn(assistant(['w2', 'Writer', { path: '/b' }]))
    const events = kernel.log.read()
    // Streamed, the Echo call started before the message ended and the Writer call after it;
    // in the batch turn, the Writer call started at once.
    const order = events.filter((e) => e.type === 'tool.dispatched' || e.type === 'turn.ended').map((e) => e.type)
    expect(order).toStrictEqual([
      'tool.dispatched',
      'turn.ended',
      'turn.ended',
      'tool.dispatched',
      'tool.dispatched',
      'turn.ended',
    ])
    const old = edited(
      events,
      (e) => e.type === 'turn.started',
      () => ({ earlyStart: undefined }),
    )
    expectOk(await replay(old, { tools: [Echo, Writer] }))
  })

  it('a batch message that ended for another reason than tool use voids its calls, as recorded', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn({ ...assistant(['a', 'Echo', { text: 'x' }]), stop_reason: 'max_tokens' })
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'turn.ended')).toMatchObject({ stopReason: 'max_tokens' })
    expectOk(await replay(events, { tools: [Echo] }))
  })

  it('a batch turn whose signal was aborted before it started, and one aborted while running', async () => {
    const kernel = testKernel([Echo, Watch])
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }], ['b', 'Echo', { text: 'y' }]), {
      signal: AbortSignal.abort('gone before it began'),
    })
    const controller = new AbortController()
    const running = kernel.runTurn(assistant(['w', 'Watch', {}], ['c', 'Echo', { text: 'z' }]), {
      signal: controller.signal,
    })
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort('the user pressed Esc')
    await running
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'turn.aborted')).toHaveLength(2)
    expect(events.some((e) => e.type === 'tool.started' && e.toolUseId === 'w')).toBe(true)
    expectOk(await replay(events, { tools: [Echo, Watch] }))
  })

  it('a streamed tool_use whose JSON was cut off keeps its input error', async () => {
    const kernel = testKernel([Echo])
    const turn = kernel.startTurn()
    turn.push(stream.start(0, 'cut'))
    turn.push(stream.delta(0, '{"text": "unfinished'))
    turn.push(stream.stop(0))
    turn.end('tool_use')
    await turn.result()
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'tool.requested')).toMatchObject({ inputError: expect.any(String) })
    expectOk(await replay(events, { tools: [Echo] }))
  })

  it('a stream turn aborted mid-block: the block it cut off is flushed, and a block tool runs on', async () => {
    const release = deferred()
    const tools = [Echo, holdTool(release.promise)]
    const kernel = testKernel(tools)
    const controller = new AbortController()
    const turn = kernel.startTurn({ signal: controller.signal })
    turn.push(stream.start(0, 'h', 'Hold'))
    turn.push(stream.stop(0))
    turn.push(stream.start(1, 'cut'))
    turn.push(stream.delta(1, '{"text":'))
    controller.abort('the user pressed Esc')
    release.resolve()
    await turn.result()
    const events = kernel.log.read()
    const types = events.map((e) => e.type)
    expect(types.slice(types.indexOf('turn.aborted'), types.indexOf('turn.aborted') + 3)).toStrictEqual([
      'turn.aborted',
      'tool.requested',
      'tool.queued',
    ])
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ toolUseId: 'h', output: 'held' })
    expectOk(await replay(events, { tools }))
  })

  it('a stream turn discarded mid-block: its calls are stopped and the cut-off block flushed', async () => {
    const kernel = testKernel([Echo, Watch])
    const turn = kernel.startTurn()
    turn.push(stream.start(0, 'w', 'Watch'))
    turn.push(stream.stop(0))
    turn.push(stream.start(1, 'cut'))
    turn.push(stream.delta(1, '{"te'))
    turn.discard('the stream fell back')
    await turn.result()
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'turn.discarded')).toMatchObject({ reason: 'the stream fell back' })
    expectOk(await replay(events, { tools: [Echo, Watch] }))
  })

  // Regression (issue 10): each flushed block is logged as tool.requested then tool.queued, and
  // only the first was handed on with the interruption; the walk then re-added the second to a
  // turn that had ended, and replay threw instead of replaying.
  it('a stream turn aborted with two blocks cut off replays', async () => {
    const kernel = testKernel([Echo])
    const controller = new AbortController()
    const turn = kernel.startTurn({ signal: controller.signal })
    turn.push(stream.start(0, 'one'))
    turn.push(stream.delta(0, '{"text":'))
    turn.push(stream.start(1, 'two'))
    turn.push(stream.delta(1, '{"te'))
    controller.abort('the user pressed Esc')
    await turn.result()
    expect(kernel.log.read().filter((e) => e.type === 'tool.requested')).toHaveLength(2)
    expectOk(await replay(kernel.log.read(), { tools: [Echo] }))
  })

  // Regression (issue 10, in the kernel): a block tool's progress after its turn was discarded
  // was logged after turn.completed, a log out of order that replay refuses.
  it('a discarded turn whose running tool reports progress afterwards leaves a log in order', async () => {
    const release = deferred()
    const Noisy = Object.assign(Object.create(holdTool(release.promise)) as Tool, {
      async *call() {
        yield 'working'
        await release.promise
        return 'held'
      },
    })
    const kernel = testKernel([Noisy])
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'n', name: 'Hold', input: {} })
    turn.discard('the stream fell back')
    await turn.result()
    release.resolve()
    await new Promise((resolve) => setImmediate(resolve))
    expectOk(await replay(kernel.log.read(), { tools: [Noisy] }))
  })

  it('a log cut right after turn.aborted (not recovered) replays without throwing', async () => {
    const kernel = testKernel([Echo, Watch])
    const controller = new AbortController()
    const turn = kernel.startTurn({ signal: controller.signal })
    turn.addToolUse({ id: 'w', name: 'Watch', input: {} })
    controller.abort('the user pressed Esc')
    await turn.result()
    const events = kernel.log.read()
    const cut = events.slice(0, events.findIndex((e) => e.type === 'turn.aborted') + 1)
    expectOk(await replay(cut, { tools: [Echo, Watch] }))
  })
})

describe('outside answers, each at its recorded moment', () => {
  it("waits for a tool's own asynchronous permission check before moving on", async () => {
    const kernel = testKernel([Guarded])
    await kernel.runTurn(assistant(['a', 'Guarded', { text: 'yes' }]))
    await kernel.runTurn(assistant(['b', 'Guarded', { text: 'no' }]))
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'c', name: 'Guarded', input: { text: 'yes' } })
    turn.end('tool_use')
    await turn.result()
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'tool.permitted').map((e) => e.behavior)).toStrictEqual([
      'allow',
      'deny',
      'allow',
    ])
    expectOk(await replay(events, { tools: [Guarded] }))
  })

  // Regression (issue 10): an asynchronous permission check that ended after a sibling's tool
  // returned was answered before that sibling's recorded completion, a divergence for a faithful
  // log. Its verdict is now released at its recorded moment, as validateInput's is.
  it('parallel calls whose asynchronous permission checks end after a sibling returned', async () => {
    const kernel = testKernel([Guarded])
    await kernel.runTurn(assistant(['a', 'Guarded', { text: 'yes' }], ['b', 'Guarded', { text: 'no' }]))
    expectOk(await replay(kernel.log.read(), { tools: [Guarded] }))
  })

  it('answers a synchronous validator at once, so parallel calls keep their order', async () => {
    const kernel = testKernel([SyncChecked])
    await kernel.runTurn(
      assistant(
        ['a', 'SyncChecked', { text: 'ok' }],
        ['b', 'SyncChecked', { text: 'bad' }],
        [
          'c',
          'SyncChecked',
          {
            text: 'ok',
          },
        ],
      ),
    )
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'tool.rejected')).toMatchObject({
      toolUseId: 'b',
      message: 'SyncChecked rejected its input: bad is not allowed',
    })
    expectOk(await replay(events, { tools: [SyncChecked] }))
  })

  it('a validator that waited when recorded and is gone now: the engine now decides at once', async () => {
    const verdict = deferred()
    const kernel = testKernel([slowCheckedTool(verdict.promise)])
    const turn = kernel.runTurn(assistant(['a', 'SlowChecked', { text: 'x' }], ['b', 'SlowChecked', { text: 'y' }]))
    await new Promise((resolve) => setImmediate(resolve))
    verdict.resolve()
    await turn
    const events = kernel.log.read()
    expectOk(await replay(events, { tools: [slowCheckedTool(verdict.promise)] }))
    const now = divergenceOf(await replay(events, { tools: [slowCheckedTool(verdict.promise, false)] }))
    expect(now.actual).toMatchObject({ type: 'tool.validated', toolUseId: 'a' })
  })

  it('a crash while a validator was still deciding, and a sibling went on: recovered, it replays', async () => {
    const verdict = deferred()
    const tools = [slowCheckedTool(verdict.promise), Echo]
    const log = createMemoryLog(fixedClock())
    void testKernel(tools, { log }).runTurn(
      assistant(['a', 'SlowChecked', { text: 'x' }], ['b', 'Echo', { text: 'y' }]),
    )
    await new Promise((resolve) => setImmediate(resolve))
    const cut = createMemoryLog(fixedClock(), log.read())
    for (const event of recover(cut.read())) cut.append(event)
    const events = cut.read()
    const parsedA = events.findIndex((e) => e.type === 'tool.parsed' && e.toolUseId === 'a')
    expect(events[parsedA + 1]).toMatchObject({ toolUseId: 'b' })
    expectOk(await replay(events, { tools }))
  })

  it("an app's own hook runner, which records no hook.finished: the step is released at tool.hooked", async () => {
    const hookRunner: HookRunner = {
      has: () => true,
      run: async () => ({ outcome: 'continue', systemMessages: [], errors: [] }),
    }
    const kernel = testKernel([Echo], { ports: { hookRunner } })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'tool.hooked')).toHaveLength(2)
    expect(events.some((e) => e.type === 'hook.finished')).toBe(false)
    expectOk(await replay(events, { tools: [Echo] }))
  })

  // Regression (issue 10): a hook step's outcome came only from hook.finished, which an app's own
  // hook runner never records; what its hooks said (here, context for the model) was lost.
  it("an app's own hook runner that adds context replays", async () => {
    const hookRunner: HookRunner = {
      has: (phase) => phase === 'pre',
      run: async () => ({
        outcome: 'continue',
        additionalContext: 'keys are case-sensitive',
        systemMessages: [],
        errors: [],
      }),
    }
    const kernel = testKernel([Echo], { ports: { hookRunner } })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    expectOk(await replay(kernel.log.read(), { tools: [Echo] }))
  })

  it("an app's own hook runner: each part of a step's recorded outcome is answered again", async () => {
    const outcomes: Record<string, Awaited<ReturnType<HookRunner['run']>>> = {
      a: { outcome: 'block', decision: 'deny', reason: 'writes are frozen', systemMessages: ['audited'], errors: [] },
      b: {
        outcome: 'continue',
        decision: 'allow',
        reason: 'trusted',
        updatedInput: { text: 'rewritten' },
        systemMessages: [],
        errors: ['flaky'],
      },
    }
    const hookRunner: HookRunner = {
      has: (phase) => phase === 'pre',
      run: async (request) => outcomes[request.toolUseId] ?? { outcome: 'continue', systemMessages: [], errors: [] },
    }
    const kernel = testKernel([Echo], { ports: { hookRunner } })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }], ['b', 'Echo', { text: 'y' }]))
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'tool.hooked')).toMatchObject([
      { toolUseId: 'a', outcome: 'block', decision: 'deny', reason: 'writes are frozen', systemMessages: ['audited'] },
      { toolUseId: 'b', decision: 'allow', updatedInput: { text: 'rewritten' }, systemMessages: ['hook error: flaky'] },
    ])
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({ toolUseId: 'b', output: 'rewritten' })
    expectOk(await replay(events, { tools: [Echo] }))
  })

  it('asynchronous permission checks that ask, then the user answers, at their recorded moments', async () => {
    const Asking = Object.assign(Object.create(Guarded) as Tool, {
      async checkPermissions() {
        await new Promise((resolve) => setTimeout(resolve, 5))
        return { behavior: 'ask', message: 'may I?' }
      },
    })
    // The user answers once both calls have asked: both prompts are open at once.
    const bothAsked = deferred()
    const asked: string[] = []
    const kernel = testKernel([Asking, Echo], {
      canUseTool: async (request) => {
        if (asked.push(request.toolUseId) === 2) bothAsked.resolve()
        await bothAsked.promise
        return request.toolUseId === 'a'
          ? { behavior: 'allow', grant: { scope: 'call' } }
          : { behavior: 'deny', message: 'no' }
      },
    })
    await kernel.runTurn(
      assistant(['a', 'Guarded', { text: 'x' }], ['b', 'Guarded', { text: 'z' }], ['e', 'Echo', { text: 'y' }]),
    )
    const events = kernel.log.read()
    const asks = events.filter((e) => e.type === 'permission.requested' || e.type === 'tool.permitted')
    expect(asks.map((e) => [e.type, e.toolUseId])).toStrictEqual([
      ['tool.permitted', 'e'],
      ['permission.requested', 'a'],
      ['permission.requested', 'b'],
      ['tool.permitted', 'a'],
      ['tool.permitted', 'b'],
    ])
    expect(events.find((e) => e.type === 'permission.granted')).toMatchObject({ toolUseId: 'a', scope: 'call' })
    expectOk(await replay(events, { tools: [Asking, Echo] }))
  })

  it('outputs of every shape are answered as recorded: null, nothing, objects', async () => {
    const outputs: Record<string, unknown> = {
      n: null,
      u: undefined,
      o: { files: ['a', 'b'] },
      f: { persisted: false },
    }
    const Shapes = Object.assign(Object.create(Echo) as Tool, {
      maxResultSizeChars: Infinity,
      call: async (_input: unknown, ctx: { toolUseId: string }) => outputs[ctx.toolUseId],
    })
    const kernel = testKernel([Shapes])
    await kernel.runTurn(
      assistant(...Object.keys(outputs).map((id) => [id, 'Echo', { text: id }] as [string, string, unknown])),
    )
    const completed = kernel.log.read().filter((e) => e.type === 'tool.completed')
    expect(completed.map((e) => e.output)).toStrictEqual(Object.values(outputs))
    expectOk(await replay(kernel.log.read(), { tools: [Shapes] }))
  })

  // Was a bug: the marker for output that went to the result store lived inside `output`, so a
  // tool's own small output with `persisted: true` was taken for it. Since event version 2 the
  // marker is a field of its own (tool.completed.persisted).
  it('a small output of its own with `persisted: true` is answered as recorded', async () => {
    const Stored = Object.assign(Object.create(Echo) as Tool, {
      call: async () => ({ persisted: true, id: 42 }),
    })
    const kernel = testKernel([Stored])
    await kernel.runTurn(assistant(['s', 'Echo', { text: 'x' }]))
    expect(kernel.log.read().find((e) => e.type === 'tool.completed')).toMatchObject({
      output: { persisted: true, id: 42 },
    })
    expectOk(await replay(kernel.log.read(), { tools: [Stored] }))
  })

  it('safe calls past the cap whose tools answer at once replay as recorded (dispatch at a fixed point)', async () => {
    // Found by toolkernel/testing: the scheduler heard of a finished call one microtask late, so
    // whether the next call started before or after its siblings' answers depended on promise
    // timing that replay cannot reproduce; now it hears synchronously, at the result.
    let calls = 0
    const Quick = Object.assign(Object.create(Echo) as Tool, {
      isConcurrencySafe: () => true,
      call: async () => {
        if (calls++ === 2) throw new Error('boom')
        return 'echo:'
      },
    })
    const kernel = testKernel([Quick], { maxConcurrency: 3 })
    await kernel.runTurn(
      assistant(...['a', 'b', 'c', 'd'].map((id) => [id, 'Echo', { text: '' }] as [string, string, unknown])),
    )
    const events = kernel.log.read()
    const order = events.filter((e) => e.type === 'tool.dispatched' || e.type === 'tool.result')
    // d starts as soon as a's result frees a slot, before b and c answer.
    expect(order.map((e) => `${e.type === 'tool.result' ? 'result' : 'start'} ${e.toolUseId}`).slice(3, 5)).toEqual([
      'result a',
      'start d',
    ])
    expectOk(await replay(events, { tools: [Quick] }))
  })

  it('a call that asks in an app with no way to ask (no canUseTool) replays as recorded', async () => {
    // Found by toolkernel/testing: without canUseTool the kernel denies "ask" without a
    // permission.requested event; replay used to supply a canUseTool of its own and so asked.
    const AsksPerson = Object.assign(Object.create(Echo) as Tool, {
      checkPermissions: () => ({ behavior: 'ask', message: 'needs a person' }),
    })
    const kernel = testKernel([AsksPerson])
    await kernel.runTurn(assistant(['q', 'Echo', { text: 'x' }]))
    const events = kernel.log.read()
    expect(events.some((e) => e.type === 'permission.requested')).toBe(false)
    expectOk(await replay(events, { tools: [AsksPerson] }))
  })

  it('a permission check that breaks its contract (answers nothing) replays as recorded', async () => {
    const Broken = Object.assign(Object.create(Echo) as Tool, { checkPermissions: () => undefined })
    const kernel = testKernel([Broken])
    await kernel.runTurn(assistant(['b', 'Echo', { text: 'x' }]))
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'tool.permitted')).toMatchObject({ behavior: 'deny', source: 'tool' })
    expectOk(await replay(events, { tools: [Broken] }))
  })

  it("one kernel replays every turn of one kernel's session: a grant of the first turn answers the second", async () => {
    let asked = 0
    const kernel = testKernel([Asks], {
      canUseTool: () => {
        asked++
        return { behavior: 'allow', grant: { scope: 'tool' } }
      },
    })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    await kernel.runTurn(assistant(['b', 'Echo', { text: 'y' }]))
    expect(asked).toBe(1)
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'permission.requested').map((e) => e.toolUseId)).toStrictEqual(['a'])
    expectOk(await replay(events, { tools: [Asks] }))
  })

  it('lists the checks left to the log up to a divergence, and none after it', async () => {
    const AddNote = buildTool({
      name: 'AddNote',
      description: () => 'Adds a note.',
      inputSchema: z.object({ text: z.string() }),
      call: async ({ text }) => `added ${text}`,
    })
    const kernel = testKernel([AddNote, Echo])
    // One at a time (neither is safe to run beside another): b's rejection, then e's permission, then d's rejection.
    await kernel.runTurn(
      assistant(['b', 'AddNote', { text: 7 }], ['e', 'Echo', { text: 'x' }], ['d', 'AddNote', { text: 8 }]),
    )
    const events = kernel.log.read()
    const rejected = events.filter((e) => e.type === 'tool.rejected').map((e) => [e.toolUseId, e.seq])
    const permitted = events.find((e) => e.type === 'tool.permitted' && e.toolUseId === 'e') as KernelEvent
    expect(rejected.map(([id]) => id)).toStrictEqual(['b', 'd'])
    expect(rejected[0]?.[1]).toBeLessThan(permitted.seq)
    expect(rejected[1]?.[1]).toBeGreaterThan(permitted.seq)
    const options = { tools: [AddNote, Echo], inputNotChecked: ['AddNote'] }
    const whole = await replay(events, options)
    expectOk(whole)
    expect(whole.notChecked?.map((n) => n.toolUseId)).toStrictEqual(['b', 'd'])
    // A rule that now denies Echo: the replay diverges at e, and d's check, after it, was never reached.
    const denied = await replay(events, { ...options, permissions: { deny: ['Echo'] } })
    expect(divergenceOf(denied).position).toBe(permitted.seq)
    expect(denied.notChecked?.map((n) => n.toolUseId)).toStrictEqual(['b'])
  })

  it('persisted output is read back with readResult; a file it cannot read leaves its preview to the log', async () => {
    const dir = tempDir()
    // An app's own store, whose names toolkernel's default reader does not trust.
    const results = {
      save: async ({ toolUseId }: { toolUseId: string }, content: string) => {
        const path = join(dir, `${toolUseId}.out`)
        writeFileSync(path, content)
        return path
      },
    }
    const Tiny = Object.assign(Object.create(Echo) as Tool, { maxResultSizeChars: 10 })
    const kernel = testKernel([Tiny], { results })
    const text = 'far more than ten characters'
    await kernel.runTurn(assistant(['big', 'Echo', { text }]))
    const events = kernel.log.read()
    const path = join(dir, 'big.out')
    const budgeted = events.find((e) => e.type === 'tool.budgeted') as KernelEvent
    expect(budgeted).toMatchObject({ path, chars: text.length })
    const read = await replay(events, { tools: [Tiny], readResult: (p) => readFileSync(p, 'utf8') })
    expectOk(read)
    // Nothing was left to the log, so the result says nothing of it.
    expect(read).not.toHaveProperty('notChecked')
    // The default reader refuses a name its store would not give: a stand-in of the recorded size
    // goes through the budget, which decides as it did; the preview, which quotes the text, is the log's.
    const unread = await replay(events, { tools: [Tiny] })
    expectOk(unread)
    const notChecked = {
      turnId: budgeted.turnId,
      toolUseId: 'big',
      tool: 'Echo',
      position: budgeted.seq,
      step: 'budget',
      message: `the saved output ${path} is not there to read, so its preview, which quotes it, is the log's`,
    }
    expect(unread.notChecked).toStrictEqual([notChecked])
    const replayed = unread.log.find((e) => e.type === 'tool.budgeted')
    expect(replayed).toMatchObject({ path, chars: text.length })
    const preview = (log: readonly KernelEvent[]) =>
      (log.find((e) => e.type === 'tool.result') as { block: { content: unknown } }).block.content
    expect(preview(unread.log)).not.toBe(preview(events))
    expect(preview(unread.log)).toContain('…'.repeat(4))
    // Only the preview is the log's: whether the output goes to the store is still decided, and compared.
    const Roomy = Object.assign(Object.create(Echo) as Tool, { maxResultSizeChars: 100 })
    const roomy = divergenceOf(await replay(events, { tools: [Roomy] }))
    expect(roomy).toMatchObject({
      expected: { type: 'tool.completed', persisted: true },
      actual: { type: 'tool.completed', toolUseId: 'big' },
    })
    expect(roomy.actual).not.toHaveProperty('persisted')
  })

  it('a saved output it cannot read stands in with its lines too: the budget after it decides as it did', async () => {
    const Lines = buildTool({
      name: 'Lines',
      description: () => 'Prints many lines.',
      inputSchema: z.object({}),
      maxResultSizeChars: 10,
      call: async () => 'line\n'.repeat(1_200),
    })
    const Wide = buildTool({
      name: 'Wide',
      description: () => 'Prints one wide line.',
      inputSchema: z.object({ chars: z.number() }),
      call: async ({ chars }) => 'w'.repeat(chars),
    })
    // A store that keeps nothing replay could read back.
    const results = { save: async ({ toolUseId }: { toolUseId: string }) => `/nowhere/${toolUseId}` }
    const run = async (messageBudgetChars: number) => {
      const kernel = testKernel([Lines, Wide], { results, messageBudgetChars })
      await kernel.runTurn(assistant(['l', 'Lines', {}], ['w', 'Wide', { chars: 5_000 }]))
      return kernel.log.read()
    }
    const resultOf = (events: readonly KernelEvent[], id: string) =>
      events.find((e) => e.type === 'tool.result' && e.toolUseId === id) as EventOf<'tool.result'>
    const preview = resultOf(await run(1_000_000), 'l').block.content as string
    expect(preview).toMatch(/^Output too large to show whole \(6000 characters, 1201 lines\)/)
    // One character short of the preview and the wide output: the wide one goes to the store too.
    const events = await run(preview.length + 5_000 - 1)
    expect(events.filter((e) => e.type === 'tool.budgeted').map((e) => e.toolUseId)).toStrictEqual(['l', 'w'])
    const result = await replay(events, { tools: [Lines, Wide] })
    expectOk(result)
    expect(result.notChecked?.map((item) => item.toolUseId)).toStrictEqual(['l', 'w'])
    // The stand-in's preview is as long as the one the model was sent.
    expect((resultOf(result.log, 'l').block.content as string).length).toBe(preview.length)
  })

  it("output whose save failed replays at its recorded size; its preview, which named the failure, is the log's", async () => {
    const results = {
      save: async () => {
        throw new Error('disk full')
      },
    }
    const Tiny = Object.assign(Object.create(Echo) as Tool, { maxResultSizeChars: 10 })
    const kernel = testKernel([Tiny], { results })
    await kernel.runTurn(assistant(['big', 'Echo', { text: 'far more than ten characters' }]))
    const events = kernel.log.read()
    const budgeted = events.find((e) => e.type === 'tool.budgeted') as KernelEvent
    expect(budgeted).toMatchObject({ error: 'disk full' })
    const asked: string[] = []
    const result = await replay(events, { tools: [Tiny], readResult: (p) => void asked.push(p) })
    expectOk(result)
    expect(asked).toStrictEqual([])
    expect(result.notChecked).toStrictEqual([
      expect.objectContaining({
        toolUseId: 'big',
        position: budgeted.seq,
        message: "the output was not saved (disk full), so its preview, which quotes it, is the log's",
      }),
    ])
  })

  it('an error block that went to the result store is stood in for as an error block', async () => {
    const Failing = buildTool({
      name: 'Loud',
      description: () => 'Fails loudly.',
      inputSchema: z.object({}),
      maxResultSizeChars: 10,
      call: async () => 'a long account of what went wrong',
      mapToolResultToToolResultBlockParam: (output: string, toolUseId: string) => ({
        type: 'tool_result' as const,
        tool_use_id: toolUseId,
        content: output,
        is_error: true,
      }),
    })
    const kernel = testKernel([Failing])
    await kernel.runTurn(assistant(['loud', 'Loud', {}]))
    const events = kernel.log.read()
    expect(events.find((e) => e.type === 'tool.mapped')).toMatchObject({ isError: true })
    const result = await replay(events, { tools: [Failing], readResult: () => undefined })
    expectOk(result)
    expect(result.notChecked).toHaveLength(1)
  })

  it('progress the log puts before its call started is reported as a divergence, not thrown', async () => {
    // Nothing starts before the message ends: the walk reaches the moved progress before the call runs.
    const events = await reportingLog()
    const progress = events.findIndex((e) => e.type === 'tool.progress')
    const ended = events.findIndex((e) => e.type === 'turn.ended')
    expect(progress).toBeGreaterThan(ended)
    const [moved] = events.splice(progress, 1)
    events.splice(ended, 0, moved as KernelEvent)
    const early = divergenceOf(await replay(reseq(events), { tools: [Reporting] }))
    expect(early).toMatchObject({ position: ended, expected: { type: 'tool.progress', data: 'half way' } })
  })

  it('a recorded answer missing from the log: replay stops the turn and reports it, never hangs', async () => {
    const events = await echoLog('x')
    const gone = without(events, (e) => e.type === 'tool.completed')
    const mapped = gone.find((e) => e.type === 'tool.mapped') as KernelEvent
    const stuck = divergenceOf(await replay(gone, { tools: [Echo] }))
    expect(stuck).toMatchObject({
      position: mapped.seq,
      expected: { type: 'tool.mapped' },
      actual: { type: 'turn.discarded', reason: STOPPED },
    })
  })

  it('a recovered turn is compared up to turn.recovered, and before it in full', async () => {
    const tools = [Echo, Watch]
    const log = createMemoryLog(fixedClock())
    void testKernel(tools, { log }).runTurn(assistant(['e', 'Echo', { text: 'x' }], ['w', 'Watch', {}]))
    await new Promise((resolve) => setImmediate(resolve))
    const cut = createMemoryLog(fixedClock(), log.read())
    for (const event of recover(cut.read())) cut.append(event)
    const events = cut.read()
    const recovered = events.findIndex((e) => e.type === 'turn.recovered')
    expect(recovered).toBeGreaterThan(0)
    expectOk(await replay(events, { tools }))
    // What recovery appended is not the engine's decision: changing it changes nothing.
    const after = edited(
      events,
      (e) => e.seq > recovered && e.type === 'tool.result',
      (e) => ({
        block: { ...(e as KernelEvent & { type: 'tool.result' }).block, content: 'anything' },
      }),
    )
    expectOk(await replay(after, { tools }))
    const before = edited(
      events,
      (e) => e.type === 'tool.result' && e.toolUseId === 'e',
      () => ({ outcome: 'error' }),
    )
    expect(divergenceOf(await replay(before, { tools })).expected).toMatchObject({ toolUseId: 'e', outcome: 'error' })
  })
})

describe('replay result', () => {
  it('carries the log the engine wrote as it re-executed: the same decisions as the recording', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }], ['b', 'Echo', { text: 'y' }]))
    const recorded = kernel.log.read()
    const result = await replay(recorded, { tools: [Echo] })
    const decided = (events: readonly KernelEvent[]) => events.map((e) => [e.type, 'toolUseId' in e ? e.toolUseId : ''])
    expect(decided(result.log)).toEqual(decided(recorded))
  })
})

describe('tool errors keep their class', () => {
  it('tool.errored records the class of what the tool threw, and replay throws the same class', async () => {
    const { TelemetrySafeError } = await import('../../src/events/error-class.js')
    const Failing = Object.assign(Object.create(Echo) as Tool, {
      isConcurrencySafe: () => true,
      call: async (input: { text: string }) => {
        if (input.text === 'enoent') throw Object.assign(new Error('no such file'), { code: 'ENOENT' })
        if (input.text === 'safe') throw new TelemetrySafeError('rate_limited', 'too many requests')
        throw new RangeError('out of range: secret-value')
      },
    })
    const kernel = testKernel([Failing])
    await kernel.runTurn(
      assistant(['a', 'Echo', { text: 'enoent' }], ['b', 'Echo', { text: 'safe' }], ['c', 'Echo', { text: 'x' }]),
    )
    const events = kernel.log.read()
    const classes = events.flatMap((e) => (e.type === 'tool.errored' ? [[e.toolUseId, e.errorClass]] : []))
    expect(Object.fromEntries(classes)).toEqual({ a: 'ENOENT', b: 'rate_limited', c: 'RangeError' })
    expectOk(await replay(events, { tools: [Failing] }))
  })
})
