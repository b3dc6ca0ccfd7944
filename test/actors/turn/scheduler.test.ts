/**
 * scheduleCalls alone: fake calls whose `start()` hands back a handle the test finishes by hand,
 * so every decision the operator makes (start, void, abort, cascade, complete) is visible.
 */
import { Subject } from 'rxjs'
import { describe, expect, it } from 'vitest'
import type { CallHandle, CallOutcome } from '../../../src/actors/tool-call/tool-call.actor.js'
import {
  scheduleCalls,
  type ScheduledCall,
  type SchedulerInput,
  type SchedulerOptions,
} from '../../../src/actors/turn/scheduler.js'

interface Flags {
  safe?: boolean
  early?: boolean
  cascades?: boolean
}

/** Everything the scheduler did, in order, as short lines (`listen: false`: no onCascade listener). */
function harness(options: Partial<SchedulerOptions> = {}, { listen = true } = {}) {
  const log: string[] = []
  const finished: string[] = []
  const cascades: Array<[string, string[]]> = []
  const handles = new Map<string, { resolve: (o: CallOutcome) => void }>()
  const slots = new Map<string, { batch: number; running: number }>()
  let completed = false
  let failed: unknown
  const input = new Subject<SchedulerInput>()
  input
    .pipe(
      scheduleCalls({
        maxConcurrency: 10,
        ...(listen && { onCascade: (call, siblings) => cascades.push([call.toolUseId, [...siblings]]) }),
        ...options,
      }),
    )
    .subscribe({
      next: (call) => finished.push(call.toolUseId),
      complete: () => (completed = true),
      error: (error: unknown) => (failed = error),
    })

  const handleFor = (id: string): CallHandle => {
    let listener: ((o: CallOutcome) => void) | undefined
    let outcome: CallOutcome | undefined
    handles.set(id, {
      resolve: (o) => {
        outcome = o
        listener?.(o)
      },
    })
    return {
      onDone: (l) => {
        listener = l
        if (outcome !== undefined) l(outcome)
      },
      abort: (reason, force) => log.push(`abort ${id} ${reason}${force === true ? ' (force)' : ''}`),
      onParked: () => {},
      answer: () => false,
    }
  }

  const call = (id: string, flags: Flags = {}): ScheduledCall => ({
    toolUseId: id,
    name: `Tool_${id}`,
    safe: flags.safe ?? true,
    early: flags.early ?? true,
    cascades: flags.cascades ?? false,
    start: (slot) => {
      log.push(`start ${id}`)
      slots.set(id, { ...slot })
      return handleFor(id)
    },
    void: (reason) => {
      log.push(`void ${id}: ${reason}`)
      return { onDone: (l) => l({ toolFailed: false }), abort: () => {}, onParked: () => {}, answer: () => false }
    },
  })

  return {
    log,
    finished,
    cascades,
    slots,
    get completed() {
      return completed
    },
    get error() {
      return failed
    },
    input,
    push: (id: string, flags?: Flags) => input.next({ type: 'call', call: call(id, flags) }),
    end: (voidReason?: string) => input.next(voidReason === undefined ? { type: 'end' } : { type: 'end', voidReason }),
    abort: (reason: string, force?: boolean) =>
      input.next(force === undefined ? { type: 'abort', reason } : { type: 'abort', reason, force }),
    /** Finishes a started call and waits until the scheduler has reacted to it. */
    finish: async (id: string, toolFailed = false) => {
      const handle = handles.get(id)
      if (handle === undefined) throw new Error(`${id} never started`)
      // The scheduler hears of it synchronously (CallHandle.onDone), so it has reacted on return.
      handle.resolve({ toolFailed })
      await Promise.resolve()
    },
    /** Lets already-settled promises (voided calls) run their callbacks. */
    flush: () => new Promise<void>((resolve) => setImmediate(resolve)),
    started: () => log.filter((line) => line.startsWith('start ')).map((line) => line.slice(6)),
  }
}

describe('scheduleCalls: batches', () => {
  it('consecutive safe calls share a batch, each unsafe call is alone, batches run in order', async () => {
    const h = harness()
    h.push('a')
    h.push('b')
    h.push('c', { safe: false })
    h.push('d', { safe: false })
    h.push('e')
    h.push('f')
    h.end()
    expect(h.started()).toEqual(['a', 'b'])
    await h.finish('b')
    expect(h.started()).toEqual(['a', 'b'])
    await h.finish('a')
    expect(h.started()).toEqual(['a', 'b', 'c'])
    await h.finish('c')
    expect(h.started()).toEqual(['a', 'b', 'c', 'd'])
    await h.finish('d')
    expect(h.started()).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
    expect([...h.slots].map(([id, s]) => `${id}:${s.batch}/${s.running}`)).toEqual([
      'a:0/1',
      'b:0/2',
      'c:1/1',
      'd:2/1',
      'e:3/1',
      'f:3/2',
    ])
    expect(h.completed).toBe(false)
    await h.finish('f')
    await h.finish('e')
    expect(h.finished).toEqual(['b', 'a', 'c', 'd', 'f', 'e'])
    expect(h.completed).toBe(true)
  })

  it('a safe call after an unsafe one opens a new batch', async () => {
    const h = harness()
    h.push('u', { safe: false })
    h.push('s')
    h.end()
    expect(h.started()).toEqual(['u'])
    await h.finish('u')
    expect(h.started()).toEqual(['u', 's'])
    expect(h.slots.get('s')).toEqual({ batch: 1, running: 1 })
  })

  it('completes at once when the message ends with no calls, and when the source completes', () => {
    const h = harness()
    h.end()
    expect(h.completed).toBe(true)
    const g = harness()
    g.input.complete()
    expect(g.completed).toBe(true)
  })

  it('unsubscribing lets go of the source', () => {
    const input = new Subject<SchedulerInput>()
    const subscription = input.pipe(scheduleCalls({ maxConcurrency: 1 })).subscribe()
    expect(input.observed).toBe(true)
    subscription.unsubscribe()
    expect(input.observed).toBe(false)
  })

  it('passes a source error on', () => {
    const h = harness()
    h.input.error(new Error('intake broke'))
    expect(h.error).toBeInstanceOf(Error)
  })
})

describe('scheduleCalls: the concurrency cap', () => {
  it('never runs more than maxConcurrency at once; a finished call frees its slot for the next', async () => {
    const h = harness({ maxConcurrency: 2 })
    for (const id of ['a', 'b', 'c', 'd']) h.push(id)
    h.end()
    expect(h.started()).toEqual(['a', 'b'])
    await h.finish('b')
    expect(h.started()).toEqual(['a', 'b', 'c'])
    expect(h.slots.get('c')).toEqual({ batch: 0, running: 2 })
    await h.finish('a')
    expect(h.started()).toEqual(['a', 'b', 'c', 'd'])
    await h.finish('c')
    await h.finish('d')
    expect(h.completed).toBe(true)
  })

  it('a cap of 1 runs even safe calls one at a time', async () => {
    const h = harness({ maxConcurrency: 1 })
    h.push('a')
    h.push('b')
    h.end()
    expect(h.started()).toEqual(['a'])
    await h.finish('a')
    expect(h.started()).toEqual(['a', 'b'])
  })

  it('a queue of 3,000 calls loses none when the queue compacts past 1,024 started calls', async () => {
    const h = harness({ maxConcurrency: 10 })
    const ids = Array.from({ length: 3000 }, (_, i) => `c${i}`)
    for (const id of ids) h.push(id)
    h.end()
    let running = 0
    let peak = 0
    for (const id of ids) {
      running = h.started().length - h.finished.length
      peak = Math.max(peak, running)
      await h.finish(id)
    }
    expect(peak).toBe(10)
    expect(h.started()).toEqual(ids)
    expect(h.finished).toEqual(ids)
    expect(h.completed).toBe(true)
  })

  it('calls arriving while the queue compacts keep their order (streaming, more than 1,024 calls)', async () => {
    const h = harness({ maxConcurrency: 3 })
    const ids = Array.from({ length: 1500 }, (_, i) => `s${i}`)
    // Keep a few queued behind the running ones while the rest trickle in.
    for (const [i, id] of ids.entries()) {
      h.push(id)
      if (i >= 5) await h.finish(ids[i - 5] as string)
    }
    h.end()
    for (const id of ids.slice(-5)) await h.finish(id)
    expect(h.started()).toEqual(ids)
    expect(h.finished).toEqual(ids)
    expect(h.completed).toBe(true)
  })
})

describe('scheduleCalls: streaming early start', () => {
  it('early calls start before the message ends; a call that may not start early waits for the end', async () => {
    const h = harness()
    h.push('a')
    expect(h.started()).toEqual(['a'])
    h.push('late', { early: false })
    h.push('b')
    // Calls start in order: `b` does not overtake the call waiting for the end.
    expect(h.started()).toEqual(['a'])
    h.end()
    expect(h.started()).toEqual(['a', 'late', 'b'])
  })

  it('an early unsafe call starts when nothing runs, without waiting for the end', () => {
    const h = harness()
    h.push('u', { safe: false })
    expect(h.started()).toEqual(['u'])
  })

  it('an unsafe queued call is a barrier: a safe call behind it does not overtake it', async () => {
    const h = harness()
    h.push('a')
    h.push('u', { safe: false })
    h.push('b')
    expect(h.started()).toEqual(['a'])
    await h.finish('a')
    expect(h.started()).toEqual(['a', 'u'])
    await h.finish('u')
    expect(h.started()).toEqual(['a', 'u', 'b'])
  })

  it('nothing starts beside a running unsafe call, not even a safe one', async () => {
    const h = harness()
    h.push('u', { safe: false })
    h.push('a')
    expect(h.started()).toEqual(['u'])
    await h.finish('u')
    expect(h.started()).toEqual(['u', 'a'])
  })

  it('does not complete while calls run, even after the end', async () => {
    const h = harness()
    h.push('a')
    h.end()
    expect(h.completed).toBe(false)
    await h.finish('a')
    expect(h.completed).toBe(true)
  })
})

describe('scheduleCalls: end with a void reason', () => {
  it('voids every call not yet started with the reason; running calls go on', async () => {
    const h = harness()
    h.push('a')
    h.push('w1', { early: false })
    h.push('w2')
    h.end('the message stopped at max_tokens')
    expect(h.log).toEqual([
      'start a',
      'void w1: the message stopped at max_tokens',
      'void w2: the message stopped at max_tokens',
    ])
    await h.flush()
    expect(h.finished).toEqual(['w1', 'w2'])
    expect(h.completed).toBe(false)
    await h.finish('a')
    expect(h.finished).toEqual(['w1', 'w2', 'a'])
    expect(h.completed).toBe(true)
  })

  it('a plain end voids nothing', () => {
    const h = harness()
    h.push('w', { early: false })
    h.end()
    expect(h.log).toEqual(['start w'])
  })

  it('a call pushed after the end is voided, not started', async () => {
    const h = harness()
    h.push('a')
    h.end()
    h.push('x')
    expect(h.log).toEqual(['start a', 'void x: the message had already ended'])
    await h.finish('a')
    await h.flush()
    expect(h.finished).toEqual(['x', 'a'])
    expect(h.completed).toBe(true)
  })
})

describe('scheduleCalls: abort', () => {
  it('voids queued calls and tells running ones (not forced); later calls are voided with the reason', async () => {
    const h = harness()
    h.push('a')
    h.push('u', { safe: false })
    h.abort('the user interrupted')
    expect(h.log).toEqual(['start a', 'void u: the user interrupted', 'abort a the user interrupted'])
    h.push('late')
    expect(h.log.at(-1)).toBe('void late: the user interrupted')
    await h.flush()
    expect(h.completed).toBe(false)
    await h.finish('a')
    expect(h.finished).toEqual(['u', 'late', 'a'])
    expect(h.completed).toBe(true)
  })

  it('a forced abort is passed on as forced', () => {
    const h = harness()
    h.push('a')
    h.abort('discarded', true)
    expect(h.log).toEqual(['start a', 'abort a discarded (force)'])
  })

  it('a second abort does nothing unless forced; forced, it stops what is still running', async () => {
    const h = harness()
    h.push('a')
    h.push('b')
    h.abort('first')
    h.abort('second')
    expect(h.log).toEqual(['start a', 'start b', 'abort a first', 'abort b first'])
    await h.finish('a')
    h.abort('discarded', true)
    expect(h.log.slice(4)).toEqual(['abort b discarded (force)'])
    await h.finish('b')
    expect(h.completed).toBe(true)
  })

  it('nothing starts after an abort, even when a slot frees up', async () => {
    const h = harness({ maxConcurrency: 1 })
    h.push('a')
    h.push('b')
    h.end()
    h.abort('stop')
    await h.finish('a')
    expect(h.started()).toEqual(['a'])
    expect(h.log).toContain('void b: stop')
  })
})

describe('scheduleCalls: sibling cascade', () => {
  it('a failed cascading call aborts its running siblings (forced) and voids its queued ones; the next batch runs', async () => {
    const h = harness({ maxConcurrency: 3, cascadeReason: (failed) => `sibling ${failed.name} failed` })
    h.push('bash', { cascades: true })
    h.push('b')
    h.push('c')
    h.push('q')
    h.push('u', { safe: false })
    h.push('after')
    h.end()
    expect(h.started()).toEqual(['bash', 'b', 'c'])
    await h.finish('bash', true)
    expect(h.log.slice(3)).toEqual([
      'abort b sibling Tool_bash failed (force)',
      'abort c sibling Tool_bash failed (force)',
      'void q: sibling Tool_bash failed',
    ])
    expect(h.cascades).toEqual([['bash', ['b', 'c', 'q']]])
    await h.finish('b')
    expect(h.started()).toEqual(['bash', 'b', 'c'])
    await h.finish('c')
    expect(h.started()).toEqual(['bash', 'b', 'c', 'u'])
    await h.finish('u')
    expect(h.started()).toEqual(['bash', 'b', 'c', 'u', 'after'])
    await h.finish('after')
    expect(h.finished).toEqual(['bash', 'q', 'b', 'c', 'u', 'after'])
    expect(h.completed).toBe(true)
  })

  it('a call streamed in after a cascade voided the rest of the queue still runs', async () => {
    const h = harness({ maxConcurrency: 2 })
    h.push('x', { cascades: true })
    h.push('y')
    h.push('z')
    await h.finish('x', true)
    expect(h.log.slice(2)).toEqual(['abort y a parallel call (x) failed (force)', 'void z: a parallel call (x) failed'])
    await h.finish('y')
    // The message goes on: the queue's head is past every voided entry, and no further.
    h.push('w', { safe: false })
    expect(h.started()).toEqual(['x', 'y', 'w'])
    h.end()
    await h.finish('w')
    expect(h.completed).toBe(true)
  })

  it('without an onCascade listener a cascade still stops the siblings', async () => {
    const h = harness({}, { listen: false })
    h.push('x', { cascades: true })
    h.push('y')
    h.end()
    await h.finish('x', true)
    await h.finish('y')
    expect(h.log).toContain('abort y a parallel call (x) failed (force)')
    expect([h.completed, h.error]).toEqual([true, undefined])
  })

  it('without a cascadeReason the siblings are told which call failed', async () => {
    const h = harness()
    h.push('x', { cascades: true })
    h.push('y')
    h.end()
    await h.finish('x', true)
    expect(h.log).toContain('abort y a parallel call (x) failed (force)')
  })

  it('no cascade when the call succeeds, when it does not cascade, or for calls of another batch', async () => {
    const h = harness()
    h.push('ok', { cascades: true })
    h.push('quiet')
    h.push('sib')
    h.end()
    await h.finish('ok')
    await h.finish('quiet', true)
    expect(h.log).toEqual(['start ok', 'start quiet', 'start sib'])
    expect(h.cascades).toEqual([])

    const g = harness()
    g.push('u', { safe: false, cascades: true })
    g.push('next')
    g.end()
    await g.finish('u', true)
    expect(g.log).toEqual(['start u', 'start next'])
    expect(g.cascades).toEqual([])
  })
})
