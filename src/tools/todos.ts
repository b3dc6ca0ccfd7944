/**
 * The model's task list (TodoWrite) as session state: kept as the session's app data under one
 * reserved key, so it travels in `session.changed` like any context change and a resumed kernel
 * or a replay rebuilds it from the log (docs/session-context.md §The task list).
 */
import { z } from 'zod'

/** The app-data key the task list lives under. Reserved: an app's own tools should not write it. */
export const TODOS_KEY = 'toolkernel.todos'

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const
export type TodoStatus = (typeof TODO_STATUSES)[number]

/** One task, in Claude Code's shape. */
export interface TodoItem {
  /** What to do, in the imperative: "Run the tests". */
  readonly content: string
  readonly status: TodoStatus
  /** The same task as it is being done: "Running the tests" (what a UI shows while it runs). */
  readonly activeForm: string
}

export const TodoItemSchema = z.strictObject({
  content: z.string().trim().min(1).describe('The task, in the imperative form ("Run the tests")'),
  status: z.enum(TODO_STATUSES).describe('pending, in_progress (at most one task at a time) or completed'),
  activeForm: z
    .string()
    .trim()
    .min(1)
    .describe('The task in the present continuous form, shown while it runs ("Running the tests")'),
})

/** Why a list cannot be the task list, or undefined when it can: at most one task is in progress. */
export function todoListProblem(todos: readonly TodoItem[]): string | undefined {
  const running = todos.flatMap((t, i) =>
    t.status === 'in_progress' ? [`${i + 1} (${JSON.stringify(t.content)})`] : [],
  )
  if (running.length <= 1) return undefined
  return `${running.length} tasks are in_progress (tasks ${running.join(', ')}); at most one task may be in_progress at a time — mark the others pending or completed`
}

const TodoListSchema = z.array(TodoItemSchema)

/**
 * The task list in a session's app data: the list TodoWrite last saved, or an empty list when there
 * is none (or what is under the key is not a task list — another writer's value is not trusted).
 */
export function todosOf(data: Readonly<Record<string, unknown>>): readonly TodoItem[] {
  if (!(TODOS_KEY in data)) return EMPTY
  const parsed = TodoListSchema.safeParse(data[TODOS_KEY])
  if (!parsed.success) return EMPTY
  return Object.freeze(parsed.data.map((todo) => Object.freeze(todo)))
}

const EMPTY: readonly TodoItem[] = Object.freeze([])
