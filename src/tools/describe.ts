/**
 * A tool's `description` and `prompt` as a kernel sends them (docs/pool.md §Descriptions): each
 * may read the pool's context and may be async, so the kernel's pool resolves them when it is
 * assembled, and everything that reads a text between then and the next assembly (the `tools`
 * parameter, the deferral threshold, ToolSearch, session.configured) reads the resolved one
 * through a view of the tool (decision 153).
 */
import { isThenable } from '../util/is-thenable.js'
import type { DescribeContext, Tool } from './tool.types.js'

/** The two texts of a tool, resolved. */
export interface ToolTexts {
  /** `description()`: the one-line summary for people. */
  description: string
  /** `prompt()`: what the model is sent. */
  prompt: string
}

/** A description or prompt that threw, rejected or answered something other than a string. */
export class DescriptionError extends Error {
  constructor(
    readonly tool: string,
    which: 'description' | 'prompt',
    why: string,
    options?: { cause: unknown },
  ) {
    super(`tool "${tool}": ${which}() ${why}`, options)
    this.name = 'DescriptionError'
  }
}

const views = new WeakMap<Tool, () => ToolTexts>()

/**
 * A view of `tool` whose `description()` and `prompt()` answer the texts the pool resolved (the
 * rest is the tool itself, through the prototype). The pool hands views out only for tools whose
 * texts read the context (`readsContext`) or came as a promise: every other tool is sent as it is.
 */
export function describedView(tool: Tool, texts: () => ToolTexts): Tool {
  const view = Object.create(tool, {
    description: { value: () => texts().description, enumerable: true },
    prompt: { value: () => texts().prompt, enumerable: true },
  }) as Tool
  views.set(view, texts)
  return view
}

/**
 * The resolved texts of a view (undefined for a tool that is not one).
 * @throws what the pool throws for texts not resolved.
 */
export function viewTexts(tool: Tool): ToolTexts | undefined {
  return views.get(tool)?.()
}

/** Whether a tool's texts must be resolved by the pool: declared with a parameter (they read the context). */
export function readsContext(tool: Tool): boolean {
  return tool.description.length > 0 || tool.prompt.length > 0
}

/** Texts still being resolved: the tools that answered with a promise, and all the texts once they settle. */
export interface Describing {
  waiting: string[]
  done: Promise<Map<Tool, ToolTexts>>
}

/**
 * Calls each tool's `description()` and `prompt()` (once when `prompt` is `description`, as
 * `buildTool` makes it by default) with its context: the texts at once when every answer is a
 * string, else a promise of them.
 *
 * @throws DescriptionError naming the tool for one that throws or answers something not a string.
 */
export function describeTools(
  tools: readonly Tool[],
  contextOf: (tool: Tool) => DescribeContext,
): Map<Tool, ToolTexts> | Describing {
  const now = new Map<Tool, ToolTexts>()
  const later: Array<Promise<[Tool, ToolTexts]>> = []
  const waiting: string[] = []
  try {
    for (const tool of tools) {
      const context = contextOf(tool)
      const description = answerOf(tool, 'description', context)
      const prompt = tool.prompt === tool.description ? description : answerOf(tool, 'prompt', context)
      if (typeof description === 'string' && typeof prompt === 'string') now.set(tool, { description, prompt })
      else {
        waiting.push(tool.name)
        later.push(Promise.all([description, prompt]).then(([d, p]) => [tool, { description: d, prompt: p }]))
      }
    }
  } catch (error) {
    // The answers already asked for are dropped: their failures must not go unhandled.
    for (const promise of later) promise.catch(() => undefined)
    throw error
  }
  if (later.length === 0) return now
  return {
    waiting,
    done: Promise.all(later).then((settled) => {
      const texts = new Map(now)
      for (const [tool, text] of settled) texts.set(tool, text)
      // Registry order, whichever answered first.
      return new Map(tools.flatMap((tool) => (texts.has(tool) ? [[tool, texts.get(tool) as ToolTexts] as const] : [])))
    }),
  }
}

function answerOf(tool: Tool, which: 'description' | 'prompt', context: DescribeContext): string | Promise<string> {
  let answer: unknown
  try {
    answer = tool[which](context)
  } catch (error) {
    throw new DescriptionError(tool.name, which, `failed: ${messageOf(error)}`, { cause: error })
  }
  if (isThenable(answer))
    return withinBound(Promise.resolve(answer), tool, which).then(
      (text) => checked(tool, which, text),
      (error: unknown) => {
        if (error instanceof DescriptionError) throw error
        throw new DescriptionError(tool.name, which, `failed: ${messageOf(error)}`, { cause: error })
      },
    )
  return checked(tool, which, answer)
}

/**
 * How long an asynchronous `description()` or `prompt()` may take. One that never settles would
 * otherwise hold `kernel.ready()` and every turn forever; past this it fails closed like one that
 * rejects (docs/pool.md §Descriptions).
 */
export const DESCRIBE_TIMEOUT_MS = 30_000

/** `answer`, or a DescriptionError once DESCRIBE_TIMEOUT_MS pass first (the timer keeps no process alive). */
function withinBound(answer: Promise<unknown>, tool: Tool, which: 'description' | 'prompt'): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    const why = `did not answer within ${DESCRIBE_TIMEOUT_MS / 1000} s (an asynchronous description() or prompt() must settle)`
    timer = setTimeout(() => reject(new DescriptionError(tool.name, which, why)), DESCRIBE_TIMEOUT_MS)
    timer.unref?.()
  })
  return Promise.race([answer, late]).finally(() => clearTimeout(timer))
}

function checked(tool: Tool, which: 'description' | 'prompt', text: unknown): string {
  if (typeof text === 'string') return text
  throw new DescriptionError(tool.name, which, `answered ${text === null ? 'null' : typeof text}, not a string`)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
