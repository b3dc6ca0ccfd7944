/**
 * The turn's public handle alone (turn.ts): what addToolUse refuses and how it says so, what a
 * turn that has ended or finished takes (nothing, except an OpenAI stream's trailer), how `fail`
 * names the app's error, and what `updates()` gives a subscriber that comes late.
 */
import { describe, expect, it } from 'vitest'
import { assistant, Echo, fixedClock, gate, pushCutToolUse, testKernel } from '../../helpers.js'
import { ReplaySubject } from 'rxjs'
import { buildTool, createMemoryLog, type EventLog, type KernelEvent } from '../../../src/index.js'
import { z } from 'zod'

/** A tool that answers once `until` settles. */
function holding(until: Promise<void>) {
  return buildTool({
    name: 'Hold',
    description: () => 'h',
    inputSchema: z.object({}),
    isConcurrencySafe: () => true,
    call: async () => (await until, 'held'),
  })
}

const SHAPE = 'addToolUse expects { id: non-empty string, name: string, input }'

describe('addToolUse refuses what is not a tool_use block', () => {
  // [what the app passed, the error]
  const rows: Array<[string, unknown, string]> = [
    ['null', null, SHAPE],
    ['a string', 'Echo', SHAPE],
    ['no id', { name: 'Echo', input: {} }, SHAPE],
    ['an empty id', { id: '', name: 'Echo', input: {} }, SHAPE],
    ['a numeric id', { id: 7, name: 'Echo', input: {} }, SHAPE],
    ['no name', { id: 'a', input: {} }, SHAPE],
    [
      'a text block',
      { type: 'text', text: 'hi' },
      'turn.addToolUse got an Anthropic content block ("text"), but it takes a tool_use block { id, name, input }: ' +
        'stream events go to turn.push, a whole message to kernel.runTurn(message), a tool_use block to ' +
        'turn.addToolUse(block)',
    ],
    [
      'a block of a type no API has',
      { type: 'banana', id: 'a', name: 'Echo', input: {} },
      'addToolUse expects a tool_use block, got a block of type "banana"',
    ],
  ]
  it.each(rows)('%s', (_what, block, message) => {
    const turn = testKernel([Echo]).startTurn()
    expect(() => turn.addToolUse(block as never)).toThrow(new TypeError(message))
    turn.end()
  })

  it('a block with type tool_use, or none, is taken', async () => {
    const turn = testKernel([Echo]).startTurn()
    turn.addToolUse({ type: 'tool_use', id: 'a', name: 'Echo', input: { text: 'one' } } as never)
    turn.addToolUse({ id: 'b', name: 'Echo', input: { text: 'two' } })
    turn.end()
    const { message } = await turn.result()
    expect(message.content.map((block) => block.content)).toEqual(['one', 'two'])
  })
})

describe('a turn that has ended takes nothing more', () => {
  const toolUse = { id: 'late', name: 'Echo', input: { text: 'x' } }

  it('ended (a call still runs): every intake refuses, and says the turn has ended', async () => {
    const release = gate()
    const turn = testKernel([holding(release.opened)]).startTurn()
    turn.addToolUse({ id: 'h', name: 'Hold', input: {} })
    turn.end()
    const ended = `turn ${turn.turnId} has ended; it takes no more stream events or tool calls`
    expect(() => turn.addToolUse(toolUse)).toThrow(new TypeError(ended))
    expect(() => turn.push({ type: 'message_stop' } as never)).toThrow(new TypeError(ended))
    expect(() => turn.pushOpenAIResponses({ type: 'response.completed' } as never)).toThrow(new TypeError(ended))
    expect(() => turn.pushOpenAI({ choices: [{ index: 0, delta: {} }] } as never)).toThrow(new TypeError(ended))
    release.open()
    await turn.result()
  })

  it("finished: the same, saying it has finished; an OpenAI stream's trailer is still taken", async () => {
    const turn = testKernel([Echo]).startTurn()
    turn.pushOpenAI({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] } as never)
    await turn.result()
    expect(() => turn.addToolUse(toolUse)).toThrow(
      new TypeError(`turn ${turn.turnId} has finished; it takes no more stream events or tool calls`),
    )
    // `[DONE]`, and the usage chunk with no choices that include_usage adds: not late calls.
    expect(() => turn.pushOpenAI('[DONE]' as never)).not.toThrow()
    expect(() => turn.pushOpenAI({ choices: [], usage: { total_tokens: 3 } } as never)).not.toThrow()
    expect(() => turn.pushOpenAI(null as never)).toThrow(/has finished/)
    expect(() => turn.pushOpenAI({ choices: 'none' } as never)).toThrow(/has finished/)
  })
})

describe('fail names the error the app caught', () => {
  // [what the app's stream threw, how the cut-off call's result names it]
  const rows: Array<[string, unknown, string]> = [
    ['an Error', new Error('socket hang up'), 'the stream failed: Error: socket hang up'],
    ['an Error without a message', new TypeError(''), 'the stream failed: TypeError'],
    ['a string', 'socket hang up', 'the stream failed: socket hang up'],
    ['something else', 42, 'the stream failed: an error the app did not describe'],
  ]
  it.each(rows)('%s', async (_what, error, text) => {
    const turn = testKernel([Echo]).startTurn()
    pushCutToolUse(turn, 'cut', 'Echo', '{"te')
    turn.fail(error)
    const { message } = await turn.result()
    expect(String(message.content[0]?.content)).toContain(
      `before the JSON was complete — ${text}), so the call did not run`,
    )
  })
})

describe('updates() to a subscriber that comes late', () => {
  /** A memory log whose live feed replays every event it has to each new subscriber. */
  function replayingLog() {
    const inner = createMemoryLog(fixedClock())
    const replayed = new ReplaySubject<KernelEvent>()
    inner.events$.subscribe(replayed)
    const log: EventLog = { ...inner, append: (e) => inner.append(e), read: () => inner.read(), events$: replayed }
    return log
  }

  it.each([
    ['a memory log', () => createMemoryLog(fixedClock())],
    ['a log whose feed replays its history', replayingLog],
  ])('over %s: the events so far, then the live ones, each once, none of another turn', async (_what, log) => {
    const release = gate()
    const kernel = testKernel([Echo, holding(release.opened)], { log: log() })
    const turn = kernel.startTurn()
    turn.addToolUse({ id: 'e', name: 'Echo', input: { text: 'x' } })
    turn.addToolUse({ id: 'h', name: 'Hold', input: {} })
    turn.end()
    const seen: string[] = []
    const done = (async () => {
      for await (const update of turn.updates()) seen.push(`${update.type} ${update.toolUseId}`)
    })()
    // Another turn runs while this one waits: its events are in the log, not in this turn's updates.
    await kernel.runTurn(assistant(['other', 'Echo', { text: 'y' }]))
    release.open()
    await done
    expect(seen).toEqual(['started e', 'started h', 'completed e', 'completed h'])
  })
})

describe('discard', () => {
  it('without a reason says why a turn is discarded: the stream fell back', async () => {
    const turn = testKernel([Echo]).startTurn()
    turn.addToolUse({ id: 'a', name: 'Echo', input: { text: 'x' } })
    turn.discard()
    const { events } = await turn.result()
    expect(events.find((e) => e.type === 'turn.discarded')).toMatchObject({
      reason: 'the stream fell back; the model will issue its calls again',
    })
  })
})
