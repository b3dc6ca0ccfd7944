/**
 * Test doubles for an app's tests: tools that answer from a recorded log (no world touched), and
 * a fake clock for hooks and timeouts.
 */
import type { Clock } from '../ports/clock.port.js'
import type { KernelEvent } from '../events/event.schema.js'
import { callKey } from '../events/call-key.js'
import { canonicalJson } from '../util/canonical-json.js'
import type { Tool } from '../tools/tool.types.js'

/**
 * Tools like `tools` whose calls answer what the recording answered for the same tool and the
 * same input (the first unused answer, in log order), and fail clearly for an input never
 * recorded. Everything else — schemas, safety, permissions, mapping — is the real tool's.
 *
 * @example
 * const kernel = createKernel({ tools: recordedTools(parseJsonl(text).events, [Bash, Read]) })
 */
export function recordedTools(events: readonly KernelEvent[], tools: readonly Tool[]): Tool[] {
  const answers = recordedAnswers(events)
  return tools.map((tool) => {
    const recorded = Object.create(tool) as Tool
    const call = async (input: unknown): Promise<unknown> => {
      const queue = answers.get(answerKey(tool.name, input))
      const answer = queue?.shift()
      if (answer === undefined)
        throw new Error(
          `recordedTools: the log has no (more) answers of ${tool.name} for ${canonicalJson(input).slice(0, 200)}`,
        )
      if ('error' in answer) throw new Error(answer.error)
      return answer.output
    }
    Object.defineProperty(recorded, 'call', { value: call, enumerable: true })
    return recorded
  })
}

type Answer = { output: unknown } | { error: string }

function answerKey(name: string, input: unknown): string {
  return `${name}\u0000${canonicalJson(input)}`
}

function recordedAnswers(events: readonly KernelEvent[]): Map<string, Answer[]> {
  const inputs = new Map<string, string>()
  const answers = new Map<string, Answer[]>()
  const push = (key: string | undefined, answer: Answer): void => {
    if (key === undefined) return
    const queue = answers.get(key) ?? []
    queue.push(answer)
    answers.set(key, queue)
  }
  for (const event of events) {
    if (!('toolUseId' in event)) continue
    const call = callKey(event.turnId, event.toolUseId)
    if (event.type === 'tool.requested') inputs.set(call, answerKey(event.name, event.input))
    if (event.type === 'tool.completed') push(inputs.get(call), { output: event.output })
    if (event.type === 'tool.errored') push(inputs.get(call), { error: event.message })
  }
  return answers
}

/** A clock that moves only when told: `advance(ms)` runs the timers that fall due, in order. */
export interface FakeClock extends Clock {
  advance(ms: number): void
  /** Runs `fn` after `ms` of fake time. Returns a function that cancels it. */
  setTimeout(fn: () => void, ms: number): () => void
}

/** A fake clock for hooks and timeouts, starting at `start` (ms). */
export function fakeClock(start = 0): FakeClock {
  let now = start
  let nextId = 0
  const timers = new Map<number, { at: number; fn: () => void }>()
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++
      timers.set(id, { at: now + Math.max(0, ms), fn })
      return () => void timers.delete(id)
    },
    advance(ms) {
      const until = now + ms
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= until).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0]
        if (due === undefined) break
        timers.delete(due[0])
        now = due[1].at
        due[1].fn()
      }
      now = until
    },
  }
}
