/**
 * The session that changes as it goes (issue 29 item 5): context changes from calls that ran
 * alone, Bash keeping its directory (real processes), kernel.setMode and the plan-mode tools,
 * resume from a JSONL log and replay.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  Bash,
  buildTool,
  changeContext,
  createJsonlEventStore,
  createJsonlLog,
  createKernel,
  EnterPlanMode,
  ExitPlanMode,
  replay,
  Write,
  type KernelEvent,
  type PermissionRequest,
  type SessionView,
} from '../../src/index.js'
import { assistant, fixedClock, gate, testKernel } from '../helpers.js'

const workspace = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'tk-session-')))
  mkdirSync(join(dir, 'sub', 'deeper'), { recursive: true })
  return dir
}

const allow = { canUseTool: () => ({ behavior: 'allow' as const }) }

const changes = (events: readonly KernelEvent[]) =>
  events.filter((e): e is Extract<KernelEvent, { type: 'session.changed' }> => e.type === 'session.changed')

const text = (result: { message: { content: ReadonlyArray<{ content?: unknown }> } }, i = 0) =>
  String(result.message.content[i]?.content)

/** A tool that changes the session as told and reports what it saw of it. */
const setter = (name: string, safe: boolean, seen: Array<SessionView | undefined> = []) =>
  buildTool({
    name,
    description: () => 'Changes the session.',
    inputSchema: z.object({ change: z.record(z.string(), z.unknown()) }),
    isConcurrencySafe: () => safe,
    call: async (input, context) => {
      seen.push(context.session)
      return changeContext(`set by ${context.toolUseId}`, input.change)
    },
  })

describe('Bash keeps its working directory (real processes)', () => {
  it('cd sub in one call, pwd in the next prints …/sub; output and exit code are the command’s own', async () => {
    const dir = workspace()
    const kernel = testKernel([Bash], { cwd: dir, ...allow })
    const first = await kernel.runTurn(assistant(['a', 'Bash', { command: 'cd sub && echo moved; exit 3' }]))
    expect(text(first)).toBe('moved\n\nexit code 3')
    expect(changes(first.events)).toMatchObject([{ source: 'tool', changedBy: 'a', cwd: join(dir, 'sub') }])
    const second = await kernel.runTurn(assistant(['b', 'Bash', { command: 'pwd' }]))
    expect(text(second)).toBe(join(dir, 'sub'))
    expect(kernel.session.cwd).toBe(join(dir, 'sub'))
    // A plain command changes nothing and records nothing.
    const third = await kernel.runTurn(assistant(['c', 'Bash', { command: 'echo same' }]))
    expect(text(third)).toBe('same')
    expect(changes(third.events)).toEqual([])
  })

  it('cd out of the workspace is refused with a note; the directory stays', async () => {
    const dir = workspace()
    const kernel = testKernel([Bash], { cwd: join(dir, 'sub'), ...allow })
    const out = await kernel.runTurn(assistant(['a', 'Bash', { command: 'cd .. && pwd' }]))
    expect(text(out)).toBe(dir)
    expect(changes(out.events)).toMatchObject([
      { changedBy: 'a', dropped: [{ field: 'cwd', reason: expect.stringMatching(/outside the workspace/) }] },
    ])
    expect(changes(out.events)[0]?.cwd).toBeUndefined()
    const pwd = await kernel.runTurn(assistant(['b', 'Bash', { command: 'pwd' }]))
    expect(text(pwd)).toBe(join(dir, 'sub'))
  })

  it('a symlink out of the workspace is refused like any other way out', async () => {
    const dir = workspace()
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'tk-outside-')))
    symlinkSync(outside, join(dir, 'link'))
    const kernel = testKernel([Bash], { cwd: dir, ...allow })
    const out = await kernel.runTurn(assistant(['a', 'Bash', { command: 'cd link' }]))
    expect(changes(out.events)[0]?.dropped?.[0]?.reason).toMatch(/outside the workspace/)
    expect(text(await kernel.runTurn(assistant(['b', 'Bash', { command: 'pwd' }])))).toBe(dir)
  })

  it('a command that is killed (timeout) moves nothing: the capture fails safe', async () => {
    const dir = workspace()
    const kernel = testKernel([Bash], { cwd: dir, ...allow })
    const killed = await kernel.runTurn(assistant(['a', 'Bash', { command: 'cd sub && sleep 5', timeout: 200 }]))
    expect(text(killed)).toMatch(/timed out/)
    expect(changes(killed.events)).toEqual([])
    expect(text(await kernel.runTurn(assistant(['b', 'Bash', { command: 'pwd' }])))).toBe(dir)
  })

  it('a cd is never concurrency-safe; env entries reach the next commands', async () => {
    const dir = workspace()
    const kernel = testKernel([Bash, setter('Env', false)], { cwd: dir })
    const { events } = await kernel.runTurn(
      assistant(['a', 'Bash', { command: 'cd sub' }], ['b', 'Env', { change: { env: { GREETING: 'hello' } } }]),
    )
    expect(events.find((e) => e.type === 'tool.queued' && e.toolUseId === 'a')).toMatchObject({ safe: false })
    const run = await kernel.runTurn(assistant(['c', 'Bash', { command: 'echo "$GREETING from $(basename "$PWD")"' }]))
    expect(text(run)).toBe('hello from sub')
  })
})

describe('context changes from tools', () => {
  it('apply in tool_use order from calls that ran alone; a later call sees the earlier change', async () => {
    const seen: Array<SessionView | undefined> = []
    const kernel = testKernel([setter('Set', false, seen)])
    const { events } = await kernel.runTurn(
      assistant(
        ['a', 'Set', { change: { data: { step: 1, keep: 'x' } } }],
        ['b', 'Set', { change: { data: { step: 2, keep: null } } }],
      ),
    )
    expect(changes(events).map((e) => [e.changedBy, e.data])).toEqual([
      ['a', { step: 1, keep: 'x' }],
      ['b', { step: 2, keep: null }],
    ])
    expect(seen.map((s) => s?.data)).toEqual([{}, { step: 1, keep: 'x' }])
    expect(kernel.session.data).toEqual({ step: 2 })
  })

  it('a change from a concurrency-safe batch is dropped with a note, never applied', async () => {
    const kernel = testKernel([setter('SafeSet', true)])
    const { events } = await kernel.runTurn(
      assistant(['a', 'SafeSet', { change: { data: { k: 1 } } }], ['b', 'SafeSet', { change: { mode: 'plan' } }]),
    )
    expect(changes(events)).toMatchObject([
      { changedBy: 'a', dropped: [{ field: 'data', reason: expect.stringMatching(/concurrency-safe batch/) }] },
      { changedBy: 'b', dropped: [{ field: 'mode' }] },
    ])
    expect(kernel.session).toMatchObject({ data: {}, mode: 'default' })
  })

  // A safe call's output waits for its running siblings' (the budget's groups, decision 154): the
  // note that its change was dropped comes with its tool.completed, when the group is decided or
  // when an interruption claims the held result at once.
  describe('from a safe call whose result waits for a sibling', () => {
    const big = 'x'.repeat(5_000)
    const tools = (release: Promise<void>) => [
      buildTool({
        name: 'BigSet',
        description: () => 'Changes the session and says a lot.',
        inputSchema: z.object({}),
        isConcurrencySafe: () => true,
        // Interrupted while held, its result is claimed at once (a 'block' one would wait on).
        interruptBehavior: () => 'cancel',
        call: async () => changeContext(big, { data: { k: 1 } }),
      }),
      buildTool({
        name: 'Slow',
        description: () => 'Answers when released.',
        inputSchema: z.object({}),
        isConcurrencySafe: () => true,
        interruptBehavior: () => 'cancel',
        call: async (_input, { signal }) => {
          await Promise.race([release, new Promise((resolve) => signal.addEventListener('abort', resolve))])
          return 'slow'
        },
      }),
    ]
    /** Call a's events that say where its result and its change went, in log order. */
    const order = (events: readonly KernelEvent[]) =>
      events.flatMap((e) => {
        const of = e.type === 'session.changed' ? e.changedBy : 'toolUseId' in e ? e.toolUseId : undefined
        return of === 'a' && ['budget.held', 'tool.completed', 'session.changed'].includes(e.type) ? [e.type] : []
      })

    it('is decided with the group: held, then completed with the note', async () => {
      const release = gate()
      const kernel = testKernel(tools(release.opened))
      const turn = kernel.runTurn(assistant(['a', 'BigSet', {}], ['b', 'Slow', {}]))
      await new Promise((resolve) => setImmediate(resolve))
      release.open()
      const { events, message } = await turn
      expect(order(events)).toEqual(['budget.held', 'tool.completed', 'session.changed'])
      expect(changes(events)).toMatchObject([{ changedBy: 'a', dropped: [{ field: 'data' }] }])
      expect(kernel.session.data).toEqual({})
      expect(String(message.content[0]?.content)).toContain('x'.repeat(100))
      expect(await replay(events, { tools: tools(Promise.resolve()) })).toMatchObject({ ok: true })
    })

    it('an interruption claims the held result at once, with the note', async () => {
      const controller = new AbortController()
      const kernel = testKernel(tools(new Promise(() => undefined)))
      const turn = kernel.runTurn(assistant(['a', 'BigSet', {}], ['b', 'Slow', {}]), { signal: controller.signal })
      await new Promise((resolve) => setImmediate(resolve))
      controller.abort('user pressed Esc')
      const { events } = await turn
      expect(order(events)).toEqual(['budget.held', 'tool.completed', 'session.changed'])
      expect(changes(events)).toMatchObject([{ changedBy: 'a', dropped: [{ field: 'data' }] }])
      expect(events.find((e) => e.type === 'tool.result' && e.toolUseId === 'a')).toMatchObject({ outcome: 'success' })
    })
  })

  it('bad fields are dropped one by one, with a reason each', async () => {
    const kernel = testKernel([setter('Set', false)])
    const { events } = await kernel.runTurn(
      assistant(['a', 'Set', { change: { mode: 'yolo', env: { 'BAD NAME': 'x', OK: 'y' }, cwd: '/no/such/dir' } }]),
    )
    const [changed] = changes(events)
    expect(changed?.env).toEqual({ OK: 'y' })
    expect(changed?.dropped?.map((d) => d.field).sort()).toEqual(['cwd', 'env.BAD NAME', 'mode'])
    expect(kernel.session.mode).toBe('default')
  })
})

describe('kernel.setMode and plan mode', () => {
  it('rejects a bad mode and a change while a turn runs, with a clear error', async () => {
    const kernel = testKernel([Write])
    expect(() => kernel.setMode('yolo' as never)).toThrow(/must be one of default, acceptEdits, plan/)
    let release: () => void = () => {}
    const hold = buildTool({
      name: 'Hold',
      description: () => 'Waits.',
      inputSchema: z.object({}),
      call: () => new Promise<string>((resolve) => (release = () => resolve('done'))),
    })
    const busy = testKernel([hold])
    const running = busy.runTurn(assistant(['a', 'Hold', {}]))
    await new Promise((resolve) => setImmediate(resolve))
    expect(() => busy.setMode('plan')).toThrow(/a turn is running/)
    release()
    await running
    busy.setMode('plan')
    expect(busy.session.mode).toBe('plan')
  })

  it('the pool, the policy and the log follow the mode; a JSONL-resumed kernel keeps it', async () => {
    const dir = workspace()
    const logPath = join(dir, 'session.jsonl')
    const tools = [Write, EnterPlanMode, ExitPlanMode, Bash]
    const first = createKernel({ tools, cwd: dir, log: createJsonlLog(logPath, fixedClock()) })
    expect(first.apiTools().map((t) => t.name)).toEqual(['Write', 'EnterPlanMode', 'Bash'])
    first.setMode('plan')
    expect(first.apiTools().map((t) => t.name)).toEqual(['Write', 'ExitPlanMode', 'Bash'])
    const write = { file_path: join(dir, 'a.txt'), content: 'x' }
    const denied = await first.runTurn(assistant(['a', 'Write', write], ['b', 'Bash', { command: 'cd sub' }]))
    expect(changes(denied.events)).toMatchObject([
      { source: 'app', mode: 'plan', previousMode: 'default' },
      { source: 'tool', changedBy: 'b', cwd: join(dir, 'sub') },
    ])
    expect(denied.events.find((e) => e.type === 'tool.permitted')).toMatchObject({ behavior: 'deny', source: 'mode' })
    first.log.close()

    const resumed = createKernel({ tools, cwd: dir, log: createJsonlLog(logPath, fixedClock()) })
    expect(resumed.session).toMatchObject({ mode: 'plan', cwd: join(dir, 'sub'), modeBeforePlan: 'default' })
    expect(resumed.apiTools().map((t) => t.name)).toEqual(['Write', 'ExitPlanMode', 'Bash'])
    const pwd = await resumed.runTurn(assistant(['c', 'Bash', { command: 'pwd' }]))
    expect(text(pwd)).toBe(join(dir, 'sub'))
    const again = await resumed.runTurn(assistant(['d', 'Write', write]))
    expect(text(again)).toMatch(/plan mode allows nothing that writes/)
  })

  it('EnterPlanMode switches to plan; ExitPlanMode asks with the plan and goes back to the mode before', async () => {
    const dir = workspace()
    const asked: PermissionRequest[] = []
    let answer: 'allow' | 'deny' = 'deny'
    const kernel = testKernel([EnterPlanMode, ExitPlanMode, Write], {
      cwd: dir,
      permissions: { mode: 'acceptEdits' },
      canUseTool: (request) => {
        asked.push(request)
        return answer === 'allow' ? { behavior: 'allow' } : { behavior: 'deny', message: 'not yet: add tests' }
      },
    })
    const entered = await kernel.runTurn(assistant(['a', 'EnterPlanMode', {}]))
    expect(changes(entered.events)).toMatchObject([{ source: 'tool', mode: 'plan', previousMode: 'acceptEdits' }])
    expect(kernel.apiTools().map((t) => t.name)).toEqual(['ExitPlanMode', 'Write'])
    const plan = '1. Write a.txt\n2. Check it'
    const refused = await kernel.runTurn(assistant(['b', 'ExitPlanMode', { plan }]))
    expect(asked).toMatchObject([{ tool: 'ExitPlanMode', reason: plan }])
    expect(text(refused)).toMatch(/not yet: add tests/)
    expect(kernel.session.mode).toBe('plan')
    answer = 'allow'
    const left = await kernel.runTurn(assistant(['c', 'ExitPlanMode', { plan }]))
    expect(text(left)).toMatch(/acceptEdits mode again/)
    expect(changes(left.events)).toMatchObject([{ mode: 'acceptEdits', previousMode: 'plan' }])
    expect(kernel.session).toMatchObject({ mode: 'acceptEdits', modeBeforePlan: undefined })
    const wrote = await kernel.runTurn(assistant(['d', 'Write', { file_path: join(dir, 'a.txt'), content: 'x' }]))
    expect(wrote.events.find((e) => e.type === 'tool.permitted')).toMatchObject({ behavior: 'allow', source: 'mode' })
    expect(asked).toHaveLength(2)
  })

  it('a person approves the plan: an allow rule does not settle ExitPlanMode (requiresUserInteraction)', async () => {
    const asked: string[] = []
    const kernel = testKernel([EnterPlanMode, ExitPlanMode], {
      permissions: { allow: ['ExitPlanMode'] },
      canUseTool: (request) => {
        asked.push(request.toolUseId)
        return { behavior: 'deny', message: 'not yet' }
      },
    })
    await kernel.runTurn(assistant(['a', 'EnterPlanMode', {}]))
    const refused = await kernel.runTurn(assistant(['b', 'ExitPlanMode', { plan: '1. Write a.txt' }]))
    expect(asked).toEqual(['b'])
    expect(text(refused)).toMatch(/not yet/)
    expect(kernel.session.mode).toBe('plan')
  })

  it('kernel.resume(log) keeps a mode the app set that no turn has recorded yet', async () => {
    const kernel = testKernel([Write])
    await kernel.runTurn(assistant())
    kernel.setMode('acceptEdits')
    const resumed = kernel.resume(kernel.log)
    expect(resumed.session.mode).toBe('acceptEdits')
    const { events } = await resumed.runTurn(assistant())
    expect(changes(events)).toMatchObject([{ source: 'app', mode: 'acceptEdits' }])
  })
})

describe('the session elsewhere', () => {
  it('hooks get the current mode as permission_mode; the policy decides by it', async () => {
    const modes: string[] = []
    const kernel = testKernel([setter('Set', false)], {
      hooks: {
        PreToolUse: [{ hooks: [{ type: 'function', fn: (input) => void modes.push(input.permission_mode) }] }],
      },
    })
    await kernel.runTurn(assistant(['a', 'Set', { change: { mode: 'acceptEdits' } }]))
    await kernel.runTurn(assistant(['b', 'Set', { change: {} }]))
    kernel.setMode('dontAsk')
    await kernel.runTurn(assistant(['c', 'Set', { change: {} }]))
    expect(modes).toEqual(['default', 'acceptEdits', 'dontAsk'])
  })

  it('a store-backed kernel rebuilds the session from its stream', async () => {
    const dir = workspace()
    const store = createJsonlEventStore(join(dir, 'sessions'))
    const options = { tools: [Bash, EnterPlanMode, ExitPlanMode], cwd: dir, store, session: 's1', ...allow }
    const first = createKernel(options)
    await first.ready()
    await first.runTurn(assistant(['a', 'Bash', { command: 'cd sub' }]))
    await first.runTurn(assistant(['b', 'EnterPlanMode', {}]))
    await first.close()
    const second = createKernel(options)
    await second.ready()
    expect(second.session).toMatchObject({ cwd: join(dir, 'sub'), mode: 'plan', modeBeforePlan: 'default' })
    expect(text(await second.runTurn(assistant(['c', 'Bash', { command: 'pwd' }])))).toBe(join(dir, 'sub'))
    await second.close()
  })
})

describe('replay', () => {
  it('a log with mode and cwd changes (app and tools) replays without divergence', async () => {
    const dir = workspace()
    const tools = [Bash, EnterPlanMode, ExitPlanMode, Write, setter('Set', false), setter('SafeSet', true)]
    const kernel = createKernel({
      tools,
      cwd: dir,
      log: createJsonlLog(join(dir, 'log.jsonl'), fixedClock()),
      canUseTool: () => ({ behavior: 'allow' }),
    })
    await kernel.runTurn(assistant(['a', 'Bash', { command: 'cd sub/deeper' }], ['b', 'Bash', { command: 'cd ..' }]))
    await kernel.runTurn(assistant(['c', 'SafeSet', { change: { data: { k: 1 } } }], ['d', 'Bash', { command: 'pwd' }]))
    kernel.setMode('acceptEdits')
    await kernel.runTurn(assistant(['e', 'EnterPlanMode', {}]))
    await kernel.runTurn(assistant(['f', 'Write', { file_path: join(dir, 'w.txt'), content: 'x' }]))
    await kernel.runTurn(assistant(['g', 'ExitPlanMode', { plan: 'write w.txt' }], ['h', 'Bash', { command: 'cd ..' }]))
    await kernel.runTurn(assistant(['i', 'Set', { change: { env: { A: '1' }, data: { k: 2 } } }]))
    const log = kernel.log.read()
    expect(changes(log).map((e) => e.source)).toEqual(['tool', 'tool', 'tool', 'app', 'tool', 'tool', 'tool', 'tool'])
    const result = await replay(log, { tools })
    expect(result.ok ? 'ok' : result.divergence.message).toBe('ok')
    // The engine decides again: with the plan-mode exit gone, replay sees the divergence.
    const changed = log.filter((e) => !(e.type === 'session.changed' && e.changedBy === 'g'))
    const diverged = await replay(changed, { tools })
    expect(diverged.ok).toBe(false)
  })
})
