/**
 * Ids and names from outside are data, never keys of plain objects: prototype keys, unicode and
 * very long ids each get exactly one result, in both modes, and duplicates are the app's bug.
 */
import { describe, expect, it } from 'vitest'
import { projectMessages, recover } from '../../src/index.js'
import { assistant, Echo, testKernel } from '../helpers.js'

const HOSTILE = [
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  'prototype',
  'toolu_é漢字🙂',
  'x'.repeat(5000),
  ' ',
  '\u0000nul',
]

describe('hostile tool_use ids', () => {
  it('batch: every id gets exactly one result, in tool_use order', async () => {
    const kernel = testKernel([Echo])
    const { message } = await kernel.runTurn(
      assistant(...HOSTILE.map((id, i) => [id, 'Echo', { text: `t${i}` }] as [string, string, unknown])),
    )
    expect(message.content.map((b) => b.tool_use_id)).toEqual(HOSTILE)
    expect(message.content.map((b) => b.content)).toEqual(HOSTILE.map((_, i) => `t${i}`))
    expect(projectMessages(kernel.log.read())).toEqual([message])
    expect(recover(kernel.log.read())).toEqual([])
  })

  it('streaming: the same ids get the same results', async () => {
    const kernel = testKernel([Echo])
    const turn = kernel.startTurn()
    HOSTILE.forEach((id, i) => turn.addToolUse({ id, name: 'Echo', input: { text: `t${i}` } }))
    turn.end('tool_use')
    const { message } = await turn.result()
    expect(message.content.map((b) => b.tool_use_id)).toEqual(HOSTILE)
  })

  it('a tool named like a prototype key is an unknown tool, answered', async () => {
    const kernel = testKernel([Echo])
    const { message } = await kernel.runTurn(
      assistant(['a', '__proto__', {}], ['b', 'constructor', {}], ['c', 'toString', {}]),
    )
    expect(message.content).toHaveLength(3)
    for (const block of message.content) expect(String(block.content)).toMatch(/No such tool/)
  })

  it('recovery answers calls with hostile ids cut off mid-turn', async () => {
    const kernel = testKernel([Echo])
    await kernel.runTurn(assistant(...HOSTILE.map((id) => [id, 'Echo', { text: 'x' }] as [string, string, unknown])))
    const events = kernel.log.read()
    const cut = events.filter((e) => e.type !== 'tool.result' && e.type !== 'turn.completed')
    const appended = recover(cut)
    const answered = appended.filter((e) => e.type === 'tool.result').map((e) => ('toolUseId' in e ? e.toolUseId : ''))
    expect(answered.sort()).toEqual([...HOSTILE].sort())
  })

  it('duplicate ids in one message: runTurn rejects naming the id before anything runs or is logged', async () => {
    const kernel = testKernel([Echo])
    await expect(
      kernel.runTurn(assistant(['same', 'Echo', { text: 'a' }], ['same', 'Echo', { text: 'b' }])),
    ).rejects.toThrow(/tool call id "same" appears twice/)
    expect(kernel.log.read()).toEqual([])
  })

  it('duplicate ids in a stream: the second addToolUse throws naming the id; the first is still answered', async () => {
    const kernel = testKernel([Echo])
    const turn = kernel.startTurn()
    turn.addToolUse({ id: '__proto__', name: 'Echo', input: { text: 'a' } })
    expect(() => turn.addToolUse({ id: '__proto__', name: 'Echo', input: { text: 'b' } })).toThrow(
      /tool call id "__proto__" appears twice/,
    )
    turn.end('tool_use')
    const { message } = await turn.result()
    expect(message.content.map((b) => [b.tool_use_id, b.content])).toEqual([['__proto__', 'a']])
  })
})

describe('hostile names from the wire', () => {
  it('an OpenAI finish_reason named like a prototype key is a stop reason of its own', async () => {
    const { stopReasonOf } = await import('../../src/intake/openai.js')
    expect(stopReasonOf('constructor')).toBe('constructor')
    expect(stopReasonOf('__proto__')).toBe('__proto__')
    expect(stopReasonOf('length')).toBe('max_tokens')
  })
})
