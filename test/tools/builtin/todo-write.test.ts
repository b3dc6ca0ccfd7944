/**
 * TodoWrite (issue 31): the model's task list is session state in the log — the app reads it as
 * `kernel.session.todos`, a second kernel over the same JSONL log sees it, replay decides the same;
 * lists that break the rules are refused with what is wrong.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  buildTool,
  changeContext,
  createJsonlLog,
  createKernel,
  replay,
  TODOS_KEY,
  todosOf,
  TodoWrite,
  type KernelEvent,
  type SessionView,
  type TodoItem,
} from '../../../src/index.js'
import { assistant, fixedClock, testKernel } from '../../helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'tk-todos-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const list: TodoItem[] = [
  { content: 'Read the parser', status: 'completed', activeForm: 'Reading the parser' },
  { content: 'Fix the off-by-one', status: 'in_progress', activeForm: 'Fixing the off-by-one' },
  { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
]

const text = (result: { message: { content: ReadonlyArray<{ content?: unknown }> } }, i = 0) =>
  String(result.message.content[i]?.content)
const isError = (result: { message: { content: ReadonlyArray<{ is_error?: boolean }> } }, i = 0) =>
  result.message.content[i]?.is_error === true
const changes = (events: readonly KernelEvent[]) =>
  events.filter((e): e is Extract<KernelEvent, { type: 'session.changed' }> => e.type === 'session.changed')

describe('TodoWrite keeps the task list in the session', () => {
  it('saves the list: the model is told, the app reads it, the log records it', async () => {
    const kernel = testKernel([TodoWrite])
    expect(kernel.session.todos).toEqual([])
    const result = await kernel.runTurn(assistant(['a', 'TodoWrite', { todos: list }]))
    expect(isError(result)).toBe(false)
    expect(text(result)).toBe(
      'The task list is saved (3 tasks: 1 completed, 1 in progress (Fix the off-by-one), 1 pending). Keep it current as you work: mark a task in_progress before you start it and completed as soon as it is done.',
    )
    expect(kernel.session.todos).toEqual(list)
    expect(Object.isFrozen(kernel.session.todos)).toBe(true)
    expect(changes(result.events)).toMatchObject([{ source: 'tool', changedBy: 'a', data: { [TODOS_KEY]: list } }])
  })

  it('each call replaces the whole list, in tool_use order; an empty list clears it', async () => {
    const kernel = testKernel([TodoWrite])
    const done = list.map((t) => ({ ...t, status: 'completed' as const }))
    const result = await kernel.runTurn(
      assistant(['a', 'TodoWrite', { todos: list }], ['b', 'TodoWrite', { todos: done }]),
    )
    expect(text(result, 1)).toMatch(/3 tasks: 3 completed, 0 in progress, 0 pending\)\. Every task is completed\./)
    expect(kernel.session.todos).toEqual(done)
    // Both changes applied: TodoWrite is not concurrency-safe, so each call ran alone.
    expect(changes(result.events).map((e) => e.changedBy)).toEqual(['a', 'b'])
    const cleared = await kernel.runTurn(assistant(['c', 'TodoWrite', { todos: [] }]))
    expect(text(cleared)).toBe('The task list is saved: it is empty now.')
    expect(kernel.session.todos).toEqual([])
  })

  it('a later call in the turn sees the list in context.session.todos', async () => {
    const seen: Array<SessionView | undefined> = []
    const Peek = buildTool({
      name: 'Peek',
      description: () => 'Looks at the session.',
      inputSchema: z.object({}),
      call: async (_input, context) => {
        seen.push(context.session)
        return 'ok'
      },
    })
    const kernel = testKernel([TodoWrite, Peek])
    await kernel.runTurn(assistant(['a', 'Peek', {}], ['b', 'TodoWrite', { todos: list }], ['c', 'Peek', {}]))
    expect(seen.map((s) => s?.todos.length)).toEqual([0, 3])
  })

  it('a second kernel over the same JSONL log sees the list; replay decides the same', async () => {
    const path = join(dir, 'todos.jsonl')
    const first = createKernel({ tools: [TodoWrite], cwd: dir, log: createJsonlLog(path, fixedClock()) })
    await first.runTurn(assistant(['a', 'TodoWrite', { todos: list }]))
    first.log.close()

    const second = createKernel({ tools: [TodoWrite], cwd: dir, log: createJsonlLog(path, fixedClock()) })
    expect(second.session.todos).toEqual(list)
    const next = list.map((t, i) => ({ ...t, status: i < 2 ? ('completed' as const) : ('in_progress' as const) }))
    await second.runTurn(assistant(['b', 'TodoWrite', { todos: next }]))
    expect(second.session.todos).toEqual(next)
    const events = second.log.read()
    second.log.close()

    const third = createKernel({ tools: [TodoWrite], cwd: dir, log: createJsonlLog(path, fixedClock()) })
    expect(third.session.todos).toEqual(next)
    third.log.close()
    const replayed = await replay(events, { tools: [TodoWrite] })
    expect(replayed.ok ? 'ok' : replayed.divergence.message).toBe('ok')
  })

  it('reads only a task list from the reserved key: anything else there is no list', () => {
    expect(todosOf({})).toEqual([])
    expect(todosOf({ [TODOS_KEY]: 'buy milk' })).toEqual([])
    expect(todosOf({ [TODOS_KEY]: [{ content: 'x', status: 'done', activeForm: 'x' }] })).toEqual([])
    expect(todosOf({ [TODOS_KEY]: list })).toEqual(list)
  })

  it('another tool that writes the key with something else leaves an empty list, not a broken one', async () => {
    const Clobber = buildTool({
      name: 'Clobber',
      description: () => 'Writes the reserved key.',
      inputSchema: z.object({}),
      call: async () => changeContext('done', { data: { [TODOS_KEY]: 42 } }),
    })
    const kernel = testKernel([TodoWrite, Clobber])
    await kernel.runTurn(assistant(['a', 'TodoWrite', { todos: list }], ['b', 'Clobber', {}]))
    expect(kernel.session.data[TODOS_KEY]).toBe(42)
    expect(kernel.session.todos).toEqual([])
  })
})

describe('TodoWrite refuses lists that break the rules, saying what is wrong', () => {
  const refused = async (todos: unknown) => {
    const kernel = testKernel([TodoWrite])
    await kernel.runTurn(assistant(['a', 'TodoWrite', { todos: list }]))
    const result = await kernel.runTurn(assistant(['b', 'TodoWrite', { todos }]))
    expect(isError(result)).toBe(true)
    // The list saved before stays.
    expect(kernel.session.todos).toEqual(list)
    expect(changes(result.events)).toEqual([])
    return text(result)
  }

  it('two tasks in progress', async () => {
    const two = list.map((t) => ({ ...t, status: 'in_progress' as const }))
    expect(await refused(two)).toBe(
      '<tool_use_error>TodoWrite rejected its input: 3 tasks are in_progress (tasks 1 ("Read the parser"), 2 ("Fix the off-by-one"), 3 ("Run the tests")); at most one task may be in_progress at a time — mark the others pending or completed</tool_use_error>',
    )
  })

  it('a status that is not one of the three', async () => {
    expect(await refused([{ content: 'x', status: 'done', activeForm: 'Doing x' }])).toMatch(
      /`todos.0.status` must be one of "pending", "in_progress", "completed", got "done"/,
    )
  })

  it('empty content, a missing activeForm, a field of its own', async () => {
    expect(await refused([{ content: '  ', status: 'pending', activeForm: 'Doing x' }])).toMatch(/`todos.0.content`/)
    expect(await refused([{ content: 'x', status: 'pending' }])).toMatch(/missing required field `todos.0.activeForm`/)
    expect(await refused([{ content: 'x', status: 'pending', activeForm: 'Doing x', id: '1' }])).toMatch(
      /unexpected field `todos.0.id`/,
    )
    expect(await refused('x')).toMatch(/`todos` must be an array/)
  })

  it('input rewritten by a hook skips validateInput; the call checks the rule again', async () => {
    const two = list.map((t) => ({ ...t, status: 'in_progress' as const }))
    const kernel = testKernel([TodoWrite], {
      hooks: {
        PreToolUse: [
          {
            hooks: [
              {
                type: 'function',
                fn: () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { todos: two } } }),
              },
            ],
          },
        ],
      },
    })
    const result = await kernel.runTurn(assistant(['a', 'TodoWrite', { todos: list }]))
    expect(isError(result)).toBe(true)
    expect(text(result)).toMatch(/the task list was not saved: 3 tasks are in_progress/)
    expect(kernel.session.todos).toEqual([])
  })
})
