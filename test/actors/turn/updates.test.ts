/**
 * turn.updates(): ends when the turn does, yields each call's completion once, and an error on
 * the way reaches the consumer instead of vanishing. The iterable itself (toAsyncIterable) too.
 */
import { config, merge, Observable, Subject } from 'rxjs'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/index.js'
import type { TurnUpdate } from '../../../src/projections/updates.projection.js'
import { toAsyncIterable } from '../../../src/util/async-iterable.js'
import { Ask, Echo, memoryLogWith, testKernel } from '../../helpers.js'

/** A tool that reports progress, then waits until the test lets it finish. */
function gatedTool() {
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const Gated = buildTool({
    name: 'Gated',
    description: () => 'Waits for the test.',
    inputSchema: z.object({}),
    isConcurrencySafe: () => true,
    async *call() {
      yield 'working'
      await gate
      return 'finished'
    },
  })
  return { Gated, open }
}

const label = (u: TurnUpdate) => `${u.type}:${u.toolUseId}${u.type === 'completed' ? `:${u.outcome}` : ''}`

/** Settles what is already settled: every promise callback queued so far has run afterwards. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('turn.updates()', () => {
  it("a progress update names its call's tool (decision 173), also for a subscriber that comes late", async () => {
    const { Gated, open } = gatedTool()
    const Tick = buildTool({
      name: 'Tick',
      description: () => 'Ticks.',
      inputSchema: z.object({}),
      isConcurrencySafe: () => true,
      async *call() {
        yield 1
        return 'ticked'
      },
    })
    const turn = testKernel([Gated, Tick]).startTurn()
    turn.addToolUse({ id: 'g', name: 'Gated', input: {} })
    turn.addToolUse({ id: 't', name: 'Tick', input: {} })
    turn.end()
    const progress = async () => {
      const seen: unknown[] = []
      for await (const update of turn.updates())
        if (update.type === 'progress') seen.push([update.toolUseId, update.tool, update.data])
        else if (update.type === 'completed' && update.toolUseId === 't') break
      return seen
    }
    const early = await progress()
    open()
    await turn.result()
    const expected = [
      ['g', 'Gated', 'working'],
      ['t', 'Tick', 1],
    ]
    expect(early).toEqual(expect.arrayContaining(expected))
    // After the turn: replayed from the turn's events, names and all.
    const late: unknown[] = []
    for await (const update of turn.updates())
      if (update.type === 'progress') late.push([update.toolUseId, update.tool, update.data])
    expect(late).toEqual(expect.arrayContaining(expected))
    expect(late).toHaveLength(2)
  })

  it('ends after the turn, with each call started, its progress and one completion, in order per call', async () => {
    const { Gated, open } = gatedTool()
    const turn = testKernel([Echo, Gated]).startTurn()
    const seen: string[] = []
    const consumed = (async () => {
      for await (const update of turn.updates()) seen.push(label(update))
    })()
    turn.addToolUse({ id: 'g', name: 'Gated', input: {} })
    turn.addToolUse({ id: 'e', name: 'Echo', input: { text: 'hi' } })
    turn.addToolUse({ id: 'x', name: 'Nope', input: {} })
    turn.end()
    await flush()
    expect(seen).not.toContain('completed:g:success')
    open()
    await consumed
    expect(seen.filter((s) => s.startsWith('completed:')).sort()).toEqual([
      'completed:e:success',
      'completed:g:success',
      'completed:x:error',
    ])
    const g = seen.filter((s) => s.endsWith(':g') || s.includes(':g:'))
    expect(g).toEqual(['started:g', 'progress:g', 'completed:g:success'])
    expect(seen).not.toContain('started:x')
  })

  it('a consumer that starts after the turn gets the whole history, then the end', async () => {
    const turn = testKernel([Echo]).startTurn()
    turn.addToolUse({ id: 'a', name: 'Echo', input: { text: '1' } })
    turn.end()
    await turn.result()
    const late: string[] = []
    for await (const update of turn.updates()) late.push(label(update))
    expect(late).toEqual(['started:a', 'completed:a:success'])
  })

  it('two consumers, one joining midway, each get every update once', async () => {
    const { Gated, open } = gatedTool()
    const turn = testKernel([Gated]).startTurn()
    const collect = async () => {
      const out: string[] = []
      for await (const update of turn.updates()) out.push(label(update))
      return out
    }
    const early = collect()
    turn.addToolUse({ id: 'g', name: 'Gated', input: {} })
    turn.end()
    await flush()
    const late = collect()
    open()
    const expected = ['started:g', 'progress:g', 'completed:g:success']
    expect(await early).toEqual(expected)
    expect(await late).toEqual(expected)
  })

  it('a discarded turn yields no completions', async () => {
    const { Gated } = gatedTool()
    const turn = testKernel([Gated]).startTurn()
    const seen: string[] = []
    const consumed = (async () => {
      for await (const update of turn.updates()) seen.push(label(update))
    })()
    turn.addToolUse({ id: 'g', name: 'Gated', input: {} })
    await flush()
    turn.discard()
    await consumed
    expect(seen.some((s) => s.startsWith('completed:'))).toBe(false)
  })

  it('a consumer that starts after a discard still gets what the calls did before it, and no completion', async () => {
    const { Gated } = gatedTool()
    const turn = testKernel([Gated]).startTurn()
    turn.addToolUse({ id: 'g', name: 'Gated', input: {} })
    await flush()
    turn.discard()
    await turn.result()
    const late: string[] = []
    for await (const update of turn.updates()) late.push(label(update))
    expect(late).toEqual(['started:g', 'progress:g'])
  })

  it("two turns at once: each turn's updates are its own calls only", async () => {
    const kernel = testKernel([Echo])
    const first = kernel.startTurn()
    const second = kernel.startTurn()
    const seen: string[] = []
    const consumed = (async () => {
      for await (const update of first.updates()) seen.push(label(update))
    })()
    second.addToolUse({ id: 'other', name: 'Echo', input: { text: '2' } })
    first.addToolUse({ id: 'mine', name: 'Echo', input: { text: '1' } })
    second.end()
    first.end()
    await Promise.all([consumed, second.result()])
    expect(seen).toEqual(['started:mine', 'completed:mine:success'])
  })

  it("breaking out of a turn's updates lets go of the log's feed", async () => {
    let listening = 0
    const log = memoryLogWith((inner) => ({
      events$: new Observable((subscriber) => {
        listening++
        const subscription = inner.events$.subscribe(subscriber)
        return () => (listening--, subscription.unsubscribe())
      }),
    }))
    const { Gated, open } = gatedTool()
    const turn = testKernel([Gated], { log }).startTurn()
    turn.addToolUse({ id: 'g', name: 'Gated', input: {} })
    const before = listening
    for await (const update of turn.updates()) if (update.type === 'progress') break
    expect(listening).toBe(before)
    open()
    turn.end()
    await turn.result()
  })

  it('a log whose feed replays its history on subscription still gives each update once', async () => {
    const log = memoryLogWith((inner) => ({
      // Not what the port asks for (live only), but what a ReplaySubject-backed store would do.
      events$: new Observable((subscriber) => {
        for (const event of inner.read()) subscriber.next(event)
        return inner.events$.subscribe(subscriber)
      }),
    }))
    const turn = testKernel([Echo], { log }).startTurn()
    turn.addToolUse({ id: 'a', name: 'Echo', input: { text: '1' } })
    const seen: string[] = []
    const consumed = (async () => {
      for await (const update of turn.updates()) seen.push(label(update))
    })()
    turn.end()
    await consumed
    expect(seen).toEqual(['started:a', 'completed:a:success'])
  })

  // Bug: turn.updates() subscribes to `log.events$` with a `next` handler only
  // (src/actors/turn/turn.ts, updates$), so when the log's feed fails the error goes to RxJS's
  // unhandled-error hook and the consumer's `for await` hangs for ever instead of throwing.
  // The fix: pass `error: (e) => subscriber.error(e)` to that subscribe.
  it('an error of the log feed reaches the consumer (not swallowed)', async () => {
    const unhandled: unknown[] = []
    const previous = config.onUnhandledError
    config.onUnhandledError = (error) => void unhandled.push(error)
    const { Gated, open } = gatedTool()
    try {
      const feed = new Subject<never>()
      const log = memoryLogWith((inner) => ({ events$: merge(inner.events$, feed) }))
      const turn = testKernel([Gated], { log }).startTurn()
      const iterator = turn.updates()[Symbol.asyncIterator]()
      turn.addToolUse({ id: 'g', name: 'Gated', input: {} })
      expect((await iterator.next()).value).toEqual({ type: 'started', toolUseId: 'g' })
      expect((await iterator.next()).value).toMatchObject({ type: 'progress', toolUseId: 'g' })
      let outcome: { error: unknown } | { value: unknown } | undefined
      iterator.next().then(
        (value) => (outcome = { value }),
        (error: unknown) => (outcome = { error }),
      )
      feed.error(new Error('the log feed broke'))
      // RxJS reports an unhandled error from a zero timeout; one queued after it has run once it has.
      await new Promise<void>((resolve) => setTimeout(resolve, 0))
      expect(unhandled).toEqual([])
      expect(outcome).toEqual({ error: new Error('the log feed broke') })
    } finally {
      open()
      config.onUnhandledError = previous
    }
  })
})

describe('toAsyncIterable', () => {
  it('yields every value, buffered for a slow reader, then ends', async () => {
    const subject = new Subject<number>()
    const iterator = toAsyncIterable(subject)[Symbol.asyncIterator]()
    subject.next(1)
    subject.next(2)
    subject.complete()
    expect(await iterator.next()).toEqual({ value: 1, done: false })
    expect(await iterator.next()).toEqual({ value: 2, done: false })
    expect(await iterator.next()).toEqual({ value: undefined, done: true })
    expect(await iterator.next()).toEqual({ value: undefined, done: true })
  })

  it('an error is thrown at the reader after the values before it, and again on the next read', async () => {
    const failure = new Error('source failed')
    const source = new Observable<string>((subscriber) => {
      subscriber.next('a')
      subscriber.error(failure)
    })
    const seen: string[] = []
    await expect(
      (async () => {
        for await (const value of toAsyncIterable(source)) seen.push(value)
      })(),
    ).rejects.toBe(failure)
    expect(seen).toEqual(['a'])
  })

  it('an error while the reader waits wakes it with the error', async () => {
    const subject = new Subject<number>()
    const iterator = toAsyncIterable(subject)[Symbol.asyncIterator]()
    const waiting = iterator.next()
    subject.error(new TypeError('late failure'))
    await expect(waiting).rejects.toThrow('late failure')
  })

  it('breaking out of the loop, or throwing in it, unsubscribes', async () => {
    let subscribed = 0
    const source = new Observable<number>((subscriber) => {
      subscribed++
      subscriber.next(1)
      subscriber.next(2)
      return () => subscribed--
    })
    for await (const value of toAsyncIterable(source)) if (value === 1) break
    expect(subscribed).toBe(0)
    await expect(
      (async () => {
        for await (const _ of toAsyncIterable(source)) throw new Error('consumer failed')
      })(),
    ).rejects.toThrow('consumer failed')
    expect(subscribed).toBe(0)
  })

  it('each iteration subscribes on its own', async () => {
    const source = new Observable<number>((subscriber) => {
      subscriber.next(7)
      subscriber.complete()
    })
    const iterable = toAsyncIterable(source)
    const read = async () => {
      const out: number[] = []
      for await (const v of iterable) out.push(v)
      return out
    }
    expect(await read()).toEqual([7])
    expect(await read()).toEqual([7])
  })
})

describe('the updates of a turn that parks', () => {
  it('end when it parks: the consumer is not left waiting for an answer that may come in another process', async () => {
    const turn = testKernel([Echo, Ask]).startTurn()
    const seen: string[] = []
    let ended = false
    const consumed = (async () => {
      for await (const update of turn.updates()) seen.push(label(update))
      ended = true
    })()
    turn.addToolUse({ id: 'e', name: 'Echo', input: { text: '1' } })
    turn.addToolUse({ id: 'a', name: 'Ask', input: { text: '2' } })
    turn.end()
    const result = await turn.result()
    expect(result.pending.map((p) => p.toolUseId)).toEqual(['a'])
    // The updates end with the parking, not with the answer.
    for (let i = 0; i < 10 && !ended; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(ended).toBe(true)
    await consumed
    expect(seen).toContain('completed:e:success')
  })
})
