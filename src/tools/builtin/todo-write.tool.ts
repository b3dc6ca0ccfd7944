/**
 * TodoWrite: the model keeps its task list, as in Claude Code. The list is session state: the
 * call returns it as a context change under the reserved app-data key (src/tools/todos.ts), so the
 * kernel records it (`session.changed`), the app reads it as `kernel.session.todos`, and a resumed
 * kernel or a replay rebuilds it from the log (docs/session-context.md §The task list). Not
 * concurrency-safe: only a call that runs alone may change the session, so its change always applies.
 */
import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { changeContext } from '../context-change.js'
import { lazySchema } from '../lazy-schema.js'
import { TodoItemSchema, todoListProblem, TODOS_KEY, type TodoItem } from '../todos.js'

export interface TodoWriteInput {
  todos: TodoItem[]
}

const PROMPT = [
  'Saves your task list for this session, replacing the previous one: send the whole list every time, with each task’s current status. The user sees it as your progress.',
  'Use it for work of three steps or more, or when the user gives several tasks: write the list when you start, mark a task in_progress before you begin it, and completed as soon as it is done (not in a batch at the end); add tasks you discover, and remove ones that no longer matter. Skip it for a single simple step or a question that needs no work.',
  'Each task has content (imperative: "Run the tests"), activeForm (present continuous: "Running the tests") and status: pending, in_progress or completed. At most one task is in_progress at a time. Mark a task completed only when it is fully done — not when tests fail, the work is partial or you are blocked; then keep it in_progress and add a task for what blocks it.',
  'Returns a confirmation with the counts per status. The list is kept with the session and survives a resume.',
].join('\n\n')

/** TodoWrite: replaces the session's task list with the given one. */
export const TodoWrite = buildTool<TodoWriteInput, string, unknown, 'TodoWrite'>({
  name: 'TodoWrite',
  searchHint: 'todo task list plan progress track steps checklist',
  category: 'session',
  description: () => 'Saves the task list of the session.',
  prompt: () => PROMPT,
  activityDescription: () => 'Updating the task list',
  inputSchema: lazySchema(() =>
    z.strictObject({ todos: z.array(TodoItemSchema).describe('The whole task list, in order') }),
  ),
  // It touches no file; the list is the session's, changed through changeContext.
  isReadOnly: () => true,
  // Not concurrency-safe (so it runs alone and its change is applied): a change from a call in a
  // parallel batch is dropped (docs/session-context.md §The rules).
  isConcurrencySafe: () => false,
  validateInput: ({ todos }) => {
    const problem = todoListProblem(todos)
    return problem === undefined ? { result: true } : { result: false, message: problem }
  },
  async call({ todos }) {
    // Input a hook or the app rewrote skips validateInput (only the schema runs again): check once more.
    const problem = todoListProblem(todos)
    if (problem !== undefined) throw new Error(`the task list was not saved: ${problem}`)
    return changeContext(savedText(todos), { data: { [TODOS_KEY]: todos } })
  },
})

/** What the model reads back: the list was saved, and where it stands. */
export function savedText(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'The task list is saved: it is empty now.'
  const count = (status: TodoItem['status']) => todos.filter((t) => t.status === status).length
  const running = todos.find((t) => t.status === 'in_progress')
  const parts = [
    `${count('completed')} completed`,
    `${count('in_progress')} in progress${running === undefined ? '' : ` (${running.content})`}`,
    `${count('pending')} pending`,
  ]
  const tasks = todos.length === 1 ? '1 task' : `${todos.length} tasks`
  const next =
    count('pending') + count('in_progress') === 0
      ? 'Every task is completed.'
      : 'Keep it current as you work: mark a task in_progress before you start it and completed as soon as it is done.'
  return `The task list is saved (${tasks}: ${parts.join(', ')}). ${next}`
}
