/**
 * Re-execution replay at its edges: outside answers the log has only in part (a hook that finished
 * after its step closed, a step outcome that disagrees with its hooks, a verdict not from the user,
 * a user's answer cut off by a failing store, an error without its class, persisted output without
 * its file), and batch turns the log cut short or that replay itself stopped. Logs are
 * recorded with real kernels, then edited or cut as a crash or a failing store would leave them.
 */
import { describe, expect, it } from 'vitest'
import {
  createMemoryLog,
  recover,
  replay,
  type EventLog,
  type KernelEvent,
  type ReplayResult,
  type Tool,
} from '../../src/index.js'
import { assistant, Echo, fixedClock, memoryLogWith, testKernel } from '../helpers.js'
import { deferred, edited, expectOk, holdTool, without } from './units-helpers.js'

const STOPPED = 'replay stopped: the engine waited for something the log does not record'

const divergenceOf = (result: ReplayResult) => {
  expect(result.ok).toBe(false)
  if (result.ok) throw new Error('expected a divergence')
  return result.divergence
}

/** The events of `log` that `match` matches, without their envelope (seq and time are the replay's). */
const decided = (log: readonly KernelEvent[], match: (e: KernelEvent) => boolean) =>
  log.filter(match).map(({ v: _v, seq: _seq, at: _at, turnId: _turnId, ...rest }) => rest)

const tick = () => new Promise((resolve) => setImmediate(resolve))

/** A tool whose own check always asks: the user's answer decides. */
const Asks = Object.assign(Object.create(Echo) as Tool, {
  checkPermissions: () => ({ behavior: 'ask', message: 'needs a person' }),
})

describe('hook answers', () => {
  // A hook abandoned by an abort runs on and finishes after its step was cancelled, with no
  // tool.hooked for its phase: replay must release it where the log has it, not throw on the
  // missing step nor skip it.
  it('a pre-hook that finished after an abort cancelled its step replays as recorded', async () => {
    const hookDone = deferred()
    const release = deferred()
    const hooks = {
      PreToolUse: [
        {
          matcher: 'Echo',
          hooks: [
            {
              type: 'function' as const,
              name: 'slow',
              fn: async () => {
                await hookDone.promise
                return { additionalContext: 'late' }
              },
            },
          ],
        },
      ],
    }
    // A block tool keeps the turn open until the abandoned hook has finished.
    const tools = [Echo, holdTool(release.promise)]
    const kernel = testKernel(tools, { hooks })
    const controller = new AbortController()
    const running = kernel.runTurn(assistant(['h', 'Hold', {}], ['a', 'Echo', { text: 'x' }]), {
      signal: controller.signal,
    })
    for (let k = 0; k < 5; k++) await tick()
    controller.abort('stop')
    for (let k = 0; k < 5; k++) await tick()
    hookDone.resolve()
    for (let k = 0; k < 5; k++) await tick()
    release.resolve()
    await running
    const events = kernel.log.read()
    const types = events.map((e) => `${e.type} ${'toolUseId' in e ? e.toolUseId : ''}`)
    expect(types.slice(types.indexOf('turn.aborted '))).toStrictEqual([
      'turn.aborted ',
      'tool.cancelled a',
      'tool.mapped a',
      'tool.result a',
      'hook.finished a',
      'tool.completed h',
      'tool.mapped h',
      'tool.result h',
      'turn.completed ',
    ])
    expect(events.some((e) => e.type === 'tool.hooked')).toBe(false)
    const result = await replay(events, { tools })
    expectOk(result)
    expect(result.log.map((e) => e.type)).toStrictEqual(events.map((e) => e.type))
  })

  // The hooks' own answers (hook.finished) decide the step; the step's recorded outcome is the
  // answer only for an app's own runner, which logs no hook.finished. A step outcome edited to
  // disagree with its hooks must show as a divergence at the step, not be taken as the answer.
  it("a step outcome that disagrees with its hooks' answers is a divergence at tool.hooked", async () => {
    const hooks = {
      PreToolUse: [
        {
          hooks: [
            { type: 'function' as const, name: 'freeze', fn: () => ({ decision: 'block' as const, reason: 'frozen' }) },
          ],
        },
      ],
    }
    const kernel = testKernel([Echo], { hooks })
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    const events = edited(
      kernel.log.read(),
      (e) => e.type === 'tool.hooked',
      () => ({ reason: 'thawed' }),
    )
    const hooked = events.find((e) => e.type === 'tool.hooked') as KernelEvent
    expect(divergenceOf(await replay(events, { tools: [Echo] }))).toMatchObject({
      position: hooked.seq,
      expected: { type: 'tool.hooked', outcome: 'block', reason: 'thawed' },
      actual: { type: 'tool.hooked', outcome: 'block', decision: 'deny', reason: 'frozen' },
    })
  })

  // A call interrupted while running goes on to its PostToolUseFailure hooks after the interruption.
  // When a recovered log cuts the call off, the stopped replay drains that post-hook's gate. With
  // nothing recorded for the phase, the hooks answer "continue" and say nothing: the runner has not
  // failed.
  it('a post-hook after the call the recovery cut off, drained by the stopped replay, continues', async () => {
    const hooks = {
      PostToolUseFailure: [{ hooks: [{ type: 'function' as const, name: 'failed', fn: () => undefined }] }],
    }
    const tools = [holdTool(deferred().promise)]
    const log = createMemoryLog(fixedClock())
    void testKernel(tools, { log, hooks }).runTurn(assistant(['h', 'Hold', {}]))
    for (let k = 0; k < 5; k++) await tick()
    const cut = createMemoryLog(fixedClock(), log.read())
    for (const event of recover(cut.read())) cut.append(event)
    expect(cut.read().find((e) => e.type === 'tool.cancelled')).toMatchObject({ toolUseId: 'h', step: 'call' })
    const result = await replay(cut.read(), { tools })
    expectOk(result)
    expect(decided(result.log, (e) => e.type === 'turn.discarded' || e.type === 'tool.hooked')).toStrictEqual([
      { type: 'turn.discarded', reason: STOPPED },
      { type: 'tool.hooked', toolUseId: 'h', phase: 'post', outcome: 'continue' },
    ])
  })
})

describe("the user's permission answers", () => {
  // Only a tool.permitted from the user carries an answer to release to the prompt; one from
  // elsewhere (here edited to `rule`) leaves the prompt waiting, and replay stops there.
  it('a prompt whose recorded verdict is not from the user is never answered: replay stops there', async () => {
    const kernel = testKernel([Asks], { canUseTool: async () => ({ behavior: 'deny', message: 'not today' }) })
    await kernel.runTurn(assistant(['q', 'Echo', { text: 'x' }]))
    const events = edited(
      kernel.log.read(),
      (e) => e.type === 'tool.permitted',
      () => ({ source: 'rule' }),
    )
    const permitted = events.find((e) => e.type === 'tool.permitted') as KernelEvent
    expect(divergenceOf(await replay(events, { tools: [Asks] }))).toMatchObject({
      position: permitted.seq,
      expected: { type: 'tool.permitted', behavior: 'deny', source: 'rule', reason: 'not today' },
      actual: { type: 'turn.discarded', reason: STOPPED },
    })
  })

  // The prompt is answered at permission.granted. A store that failed right after it (disk full),
  // resumed and recovered, leaves a faithful log without the user's tool.permitted: the grant
  // itself says the answer was allow. (Replay answered `undefined`, and the engine "now decided" a
  // deny — "the approval prompt gave no answer the kernel understands".)
  it('a log whose store failed between permission.granted and tool.permitted replays', async () => {
    let store: EventLog | undefined
    const log = memoryLogWith((inner) => {
      store = inner
      return {
        append: (event) => {
          if (event.type === 'tool.permitted') throw new Error('disk full')
          return inner.append(event)
        },
      }
    })
    const kernel = testKernel([Asks], {
      log,
      canUseTool: async () => ({ behavior: 'allow', grant: { scope: 'call' } }),
    })
    await kernel.runTurn(assistant(['q', 'Echo', { text: 'x' }]))
    const stored = store ?? createMemoryLog({ now: () => 0 })
    testKernel([Asks], { log: stored }).resume(stored)
    const types = stored.read().map((e) => e.type)
    expect(types.slice(types.indexOf('permission.granted'), types.indexOf('permission.granted') + 2)).toStrictEqual([
      'permission.granted',
      'turn.recovered',
    ])
    expectOk(await replay(stored.read(), { tools: [Asks] }))
  })
})

describe('recorded completions', () => {
  // A tool.errored without a class (written by hand, or read without parseJsonl, which gives old
  // logs theirs): replay throws a plain 'Error', so the divergence names that class.
  it("a tool error recorded without its class is thrown again as class 'Error'", async () => {
    const Failing = Object.assign(Object.create(Echo) as Tool, {
      call: async () => {
        throw new RangeError('out')
      },
    })
    const kernel = testKernel([Failing])
    await kernel.runTurn(assistant(['f', 'Echo', { text: 'x' }]))
    const events = edited(
      kernel.log.read(),
      (e) => e.type === 'tool.errored',
      () => ({ errorClass: undefined }),
    )
    const errored = events.find((e) => e.type === 'tool.errored') as KernelEvent
    const divergence = divergenceOf(await replay(events, { tools: [Failing] }))
    expect(divergence).toMatchObject({ position: errored.seq, expected: { type: 'tool.errored' } })
    expect(decided([divergence.actual as KernelEvent], () => true)).toStrictEqual([
      { type: 'tool.errored', toolUseId: 'f', message: 'Echo failed: RangeError: out', errorClass: 'Error' },
    ])
  })

  // A retry policy reads the error it is given: replay throws each recorded attempt's error again
  // with its errno class as `code`, and its name taken off the text's head, as the tool threw it.
  it("a retried attempt's error is thrown again as the policy saw it: its code, its name and its message", async () => {
    class RateLimitError extends Error {
      override name = 'RateLimitError'
    }
    const failures: Record<string, () => Error> = {
      errno: () => Object.assign(new Error('try again'), { code: 'EAGAIN' }),
      named: () => new RateLimitError('slow down'),
      plain: () => new Error('EAGAIN: not a code'),
    }
    const seen: string[] = []
    const runs = new Map<string, number>()
    const Flaky = Object.assign(Object.create(Echo) as Tool, {
      idempotent: true,
      retry: {
        attempts: 2,
        backoff: () => 0,
        retryOn: (error: unknown) => {
          const { code, name, message } = error as { code?: string; name: string; message: string }
          seen.push(`${code ?? '-'} ${name} ${message}`)
          return code === 'EAGAIN' || (name === 'RateLimitError' && message === 'slow down')
        },
      },
      call: async ({ text }: { text: string }, { toolUseId }: { toolUseId: string }) => {
        const run = (runs.get(toolUseId) ?? 0) + 1
        runs.set(toolUseId, run)
        if (run === 1) throw (failures[text] as () => Error)()
        return `done on ${run}`
      },
    })
    const kernel = testKernel([Flaky])
    await kernel.runTurn(
      assistant(['e', 'Echo', { text: 'errno' }], ['n', 'Echo', { text: 'named' }], ['p', 'Echo', { text: 'plain' }]),
    )
    const events = kernel.log.read()
    expect(events.filter((e) => e.type === 'tool.retrying').map((e) => e.toolUseId)).toStrictEqual(['e', 'n'])
    const live = seen.splice(0)
    expectOk(await replay(events, { tools: [Flaky] }))
    expect(seen.sort()).toStrictEqual(live.sort())
  })

  // Output the recording persisted but whose tool.budgeted is gone names no file: replay reads
  // nothing (never asks readResult about `undefined`) and the output is empty.
  it('persisted output whose tool.budgeted is missing is read from nowhere and maps as empty', async () => {
    const results = { save: async ({ toolUseId }: { toolUseId: string }) => `/nowhere/${toolUseId}.out` }
    const Tiny = Object.assign(Object.create(Echo) as Tool, { maxResultSizeChars: 10 })
    const kernel = testKernel([Tiny], { results })
    await kernel.runTurn(assistant(['big', 'Echo', { text: 'far more than ten characters' }]))
    const events = without(kernel.log.read(), (e) => e.type === 'tool.budgeted')
    const asked: unknown[] = []
    const result = await replay(events, {
      tools: [Tiny],
      readResult: (path) => {
        asked.push(path)
        return 'read back'
      },
    })
    expect(divergenceOf(result)).toMatchObject({ expected: { type: 'tool.completed', persisted: true } })
    expect(asked).toStrictEqual([])
    expect(decided(result.log, (e) => e.type === 'tool.result')).toStrictEqual([
      {
        type: 'tool.result',
        toolUseId: 'big',
        outcome: 'success',
        block: { type: 'tool_result', tool_use_id: 'big', content: '(Echo completed with no output)' },
      },
    ])
  })
})

describe('batch turns the log cut short or replay stopped', () => {
  // A batch log cut before its turn.ended (a crash, not recovered) is ended as a tool_use message,
  // as runTurn ended it: its calls still run (and then wait for answers the log does not have).
  it('a batch log cut before turn.ended is ended as a tool_use message', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    const events = kernel.log.read()
    const cut = events.slice(0, events.findIndex((e) => e.type === 'tool.parsed') + 1)
    const result = await replay(cut, { tools: [Echo] })
    expectOk(result)
    expect(decided(result.log, (e) => e.type === 'turn.ended' || e.type === 'tool.started')).toStrictEqual([
      { type: 'tool.started', toolUseId: 'a', interrupt: 'block' },
      { type: 'turn.ended', stopReason: 'tool_use' },
    ])
  })

  // The log a stopped replay wrote has turn.discarded in a batch turn: replayed again it is a
  // discard (the turn interrupted), not an abort of the turn's signal.
  it("a stopped replay's own log, with turn.discarded in a batch turn, replays as recorded", async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(['a', 'Echo', { text: 'x' }]))
    const stopped = await replay(
      without(kernel.log.read(), (e) => e.type === 'tool.completed'),
      { tools: [Echo] },
    )
    expect(stopped.log.find((e) => e.type === 'turn.discarded')).toMatchObject({ reason: STOPPED })
    expect(stopped.log[0]).toMatchObject({ type: 'turn.started', mode: 'batch' })
    expectOk(await replay(stopped.log, { tools: [Echo] }))
  })
})
