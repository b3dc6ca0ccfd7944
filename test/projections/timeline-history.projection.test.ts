/** The timeline page's event history and each turn's messages, as pure projections of a log. */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseJsonl } from '../../src/events/jsonl.js'
import type { KernelEventInput } from '../../src/events/event.schema.js'
import { projectMessages, projectTurnMessage } from '../../src/projections/messages.projection.js'
import { projectEventHistory, turnMessages } from '../../src/projections/timeline-history.projection.js'
import { MAX_EMBEDDED_CHARS, projectTimelineModel } from '../../src/projections/timeline-model.projection.js'
import { describeEvent } from '../../src/projections/timeline.projection.js'
import { requested, result, stamp } from './events.js'

const FIXTURES = new URL('../fixtures/logs/', import.meta.url)
const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith('.jsonl'))
const fixture = (name: string) => parseJsonl(readFileSync(new URL(name, FIXTURES), 'utf8')).events
const started = (turnId: string, extra: Record<string, unknown> = {}) =>
  ({ type: 'turn.started', turnId, mode: 'batch', maxConcurrency: 2, ...extra }) as KernelEventInput

describe('projectEventHistory', () => {
  it('one row per event in log order: its one-line summary and the event itself', () => {
    for (const name of fixtures) {
      const events = fixture(name)
      const rows = projectEventHistory(events)
      expect(
        rows.map(([summary]) => summary),
        name,
      ).toEqual(events.map(describeEvent))
      expect(
        rows.map(([, event]) => event),
        name,
      ).toEqual(events)
    }
  })

  it('cuts a value too long for the page field by field, and keeps the envelope whole', () => {
    const long = 'x'.repeat(MAX_EMBEDDED_CHARS + 5)
    const [row] = projectEventHistory(stamp(requested('T', 'c', 0, 'Echo', { text: long })))
    const event = row?.[1] ?? {}
    expect([event.seq, event.turnId, event.toolUseId, event.type, event.name]).toEqual([
      0,
      'T',
      'c',
      'tool.requested',
      'Echo',
    ])
    expect(event.input).toMatch(/^\{"text":"x+… \(\d+ more characters; the log has them all\)$/)
  })
})

describe('turnMessages', () => {
  it('the tool_use blocks in the order the model wrote them (the first request of an id), and the tool_result message', () => {
    const events = stamp(
      started('T'),
      requested('T', 'b', 1, 'Read', { path: 'b' }),
      requested('T', 'a', 0, 'Write', { note: 'a' }),
      requested('T', 'a', 5, 'Again', {}),
      requested('U', 'other', 0, 'Read'),
      result('T', 'b', 'read b'),
      result('T', 'a', 'no', 'error'),
    )
    const messages = turnMessages(events, 'T')
    expect(messages.assistant).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'a', name: 'Write', input: { note: 'a' } },
        { type: 'tool_use', id: 'b', name: 'Read', input: { path: 'b' } },
      ],
    })
    expect(messages.toolResults).toEqual(projectTurnMessage(events, 'T'))
    expect(messages.toolResults.content.map((b) => typeof b !== 'string' && b.tool_use_id)).toEqual(['a', 'b'])
    expect([messages.discarded, messages.unreadable]).toEqual([null, []])
  })

  it('a discarded turn sent nothing and says why; input that was not JSON is named; a long result is cut', () => {
    const long = 'y'.repeat(MAX_EMBEDDED_CHARS + 1)
    const unreadable = { ...requested('T', 'bad', 0, 'Read', '{"path": '), inputError: 'truncated JSON' }
    const events = stamp(
      started('T'),
      unreadable as KernelEventInput,
      requested('T', 'big', 1, 'Cat'),
      result('T', 'bad', 'unreadable input', 'error'),
      result('T', 'big', long),
      { type: 'turn.discarded', turnId: 'T', reason: 'the user interrupted' } as KernelEventInput,
    )
    const messages = turnMessages(events, 'T')
    expect(messages.discarded).toBe('the user interrupted')
    expect(messages.toolResults.content).toEqual([])
    expect(messages.unreadable).toEqual(['bad'])
    expect(messages.assistant.content[0]?.input).toBe('{"path": ')

    const kept = turnMessages(events.slice(0, -1), 'T').toolResults.content
    expect(kept[0]).toMatchObject({ tool_use_id: 'bad', is_error: true })
    expect(kept[1]).toMatch(/^\{"type":"tool_result","tool_use_id":"big",.*the log has them all\)$/)
  })
})

describe('the timeline model keeps each turn’s messages', () => {
  it('the session’s turns carry exactly the messages projection’s tool_result messages, on every fixture', () => {
    for (const name of fixtures) {
      const events = fixture(name)
      const turns = projectTimelineModel(events).turns.filter((t) => t.parent === null && t.messages.discarded === null)
      expect(
        turns.map((t) => t.messages.toolResults),
        name,
      ).toEqual(projectMessages(events))
      for (const turn of turns) {
        const ids = events.flatMap((e) => (e.type === 'tool.requested' && e.turnId === turn.id ? [e.toolUseId] : []))
        expect(turn.messages.assistant.content.map((b) => b.id).sort(), name).toEqual([...new Set(ids)].sort())
      }
    }
  })

  it('a child turn has its own messages, and its calls are not in its parent’s', () => {
    const child = { parentToolUseId: 'agent' }
    const events = stamp(
      started('P'),
      requested('P', 'agent', 0, 'Agent', { prompt: 'look' }),
      { ...started('C', { child: { parentTurnId: 'P', tools: ['Read'], rules: {} } }), ...child } as KernelEventInput,
      { ...requested('C', 'inner', 0, 'Read', { path: 'x' }), ...child } as KernelEventInput,
      { ...result('C', 'inner', 'x says hi'), ...child } as KernelEventInput,
      result('P', 'agent', 'the child said hi'),
    )
    const [parent, inner] = projectTimelineModel(events).turns
    expect([parent?.id, inner?.id, inner?.parent, inner?.depth]).toEqual(['P', 'C', 'agent', 1])
    expect(parent?.messages.assistant.content.map((b) => b.id)).toEqual(['agent'])
    expect(parent?.messages.toolResults.content).toEqual([
      { type: 'tool_result', tool_use_id: 'agent', content: 'the child said hi' },
    ])
    expect(inner?.messages.assistant.content).toEqual([
      { type: 'tool_use', id: 'inner', name: 'Read', input: { path: 'x' } },
    ])
    expect(inner?.messages.toolResults.content).toEqual([
      { type: 'tool_result', tool_use_id: 'inner', content: 'x says hi' },
    ])
  })
})
