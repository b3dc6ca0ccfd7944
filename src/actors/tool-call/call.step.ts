/**
 * The call step: first records the start (`tool.started`, before the write-ahead fence, so
 * recovery knows the tool may have run), then runs the tool itself — one promise, no child actor —
 * and maps its output once, claiming its share of the turn's budget: whether the budget step
 * follows is the call's own event (`tool.completed` with `persisted`).
 */
import type { KernelEventInput } from '../../events/event.schema.js'
import { classifyToolError } from '../../events/error-class.js'
import type { Carry } from '../../machines/tool-call.types.js'
import { toolErrorText } from '../../tools/result-text.js'
import type { Tool } from '../../tools/tool.types.js'
import { guarded } from '../../util/guarded.js'
import { isThenable } from '../../util/is-thenable.js'
import { claimBudget, textOf } from '../turn/budget.js'
import {
  idsOf,
  toolContextOf,
  toolOf,
  type CallScope,
  type Decided,
  type StepAnswer,
  type StepFn,
} from './call-scope.js'
import { mapOutput } from './map.step.js'
import { planOf, runLadder, type LadderAnswers } from './call-ladder.js'
import { invokeTool } from './invoke-tool.js'
import { acceptedInput } from './validate.step.js'
import { splitToolReturn, type ContextChange } from '../../tools/context-change.js'

export const callStep: StepFn = (call, state, carry) => {
  const tool = toolOf(call, state)
  if (!state.started) {
    const interrupt = guarded(() => tool.interruptBehavior(), 'block') === 'cancel' ? 'cancel' : 'block'
    call.budget.groups?.started(call.toolUseId)
    return { events: [{ type: 'tool.started', ...idsOf(call), interrupt }], carry }
  }
  const input = acceptedInput(call, tool, state, carry)
  const { log } = call.services
  if (log.fence === undefined) return run(call, tool, input, state.interrupt)
  // Write-ahead: what led to this side effect is durable before the side effect starts.
  const wait = call.io.wait
  return log.fence().then(
    () => {
      // The call moved on while it waited (a 'cancel' tool was interrupted): it never starts.
      if (call.io.wait !== wait) return { events: [] }
      // Interrupted while it waited for the fence: even a 'block' tool has not started, so it never does.
      const reason = call.io.abortRequested
      return reason === undefined ? run(call, tool, input, state.interrupt) : notRun(call, reason)
    },
    (error: unknown) => notRun(call, fenceFailedText(tool.name, error)),
  )
}

/** Stopped at `call` before the tool ran: cancelled, not interrupted. */
export function notRun(call: CallScope, reason: string): Decided {
  return { events: [{ type: 'tool.cancelled', ...idsOf(call), step: 'call', reason, beforeRun: true }] }
}

function fenceFailedText(name: string, error: unknown): string {
  const why = error instanceof Error ? error.message : String(error)
  return `${name} was not run: the event log could not store the call before it ran (${why}), and a tool runs only once its call is recorded. Start a new session over a working log.`
}

function run(call: CallScope, tool: Tool, input: unknown, interrupt: 'cancel' | 'block'): Promise<Decided> {
  call.io.invoked = true
  const answers: LadderAnswers = {
    output: (value) => {
      const { output, change } = splitToolReturn(value)
      return withChange(call, completed(call, tool, output, input), change)
    },
    error: (error, attempts) => errored(call, tool, error, input, attempts),
  }
  // A deadline or retries (docs/design.md §Deadlines and retries): the ladder runs it.
  const plan = planOf(call, tool, input)
  if (plan !== undefined) return runLadder(call, tool, input, interrupt, plan, answers)
  return invokeTool(tool, input, toolContextOf(call)).then(answers.output, (error: unknown) =>
    answers.error(error, undefined),
  )
}

/** The tool threw (on its last attempt, for a tool that retries: `attempts` says how many it made). */
function errored(call: CallScope, tool: Tool, error: unknown, input: unknown, attempts: number | undefined): Decided {
  call.budget.groups?.answered(call.toolUseId)
  const event: KernelEventInput = {
    type: 'tool.errored',
    ...idsOf(call),
    message: toolErrorText(tool.name, error, attempts),
    errorClass: classifyToolError(error),
    ...(attempts === undefined ? {} : { attempts }),
  }
  return { events: [event], carry: { input } }
}

/**
 * The tool returned: its output mapped to its block once, here, and measured against the budget —
 * at once, or with the results that arrive together (budget-groups.ts). Output that goes to the
 * result store is kept there, not in the log: the budget step names the file. A mapper that
 * throws is handed on for the map step.
 */
function completed(call: CallScope, tool: Tool, output: unknown, input: unknown): StepAnswer {
  const ids = idsOf(call)
  const decided = (carry: Carry, persist: boolean): Decided => {
    const event: KernelEventInput = persist
      ? { type: 'tool.completed', ...ids, persisted: true }
      : { type: 'tool.completed', ...ids, output }
    return { events: [event], carry }
  }
  let carry: Carry
  let persist: boolean | Promise<boolean>
  try {
    const block = mapOutput(tool, output, call.toolUseId)
    carry = { input, output, block }
    const chars = textOf(block).length
    const { groups } = call.budget
    persist =
      groups === undefined
        ? claimBudget(call.budget, chars, tool.maxResultSizeChars)
        : groups.arrived({
            toolUseId: call.toolUseId,
            index: call.index,
            chars,
            maxResultSizeChars: tool.maxResultSizeChars,
          })
  } catch (error) {
    call.budget.groups?.answered(call.toolUseId)
    return decided({ input, output, mapError: error }, false)
  }
  if (typeof persist === 'boolean') return decided(carry, persist)
  const { groups } = call.budget
  const held = carry
  call.io.heldResult = () => {
    call.io.heldResult = undefined
    return decided(held, groups?.claimNow(call.toolUseId) ?? false)
  }
  return persist.then((persisted) => {
    call.io.heldResult = undefined
    return decided(held, persisted)
  })
}

/**
 * A context change the tool returned, decided right after its completion: applied only when the
 * call ran alone (queued unsafe), so the calls after it — which the scheduler starts only once
 * it is answered — see it, in tool_use order (docs/session-context.md).
 */
function withChange(call: CallScope, answer: StepAnswer, change: ContextChange | undefined): StepAnswer {
  const session = call.services.session
  if (change === undefined || session === undefined) return answer
  // A call that ran alone never waits for its budget (budget-groups.ts): its answer is at hand.
  if (isThenable<Decided>(answer)) {
    const interrupted = call.io.heldResult
    if (interrupted !== undefined) call.io.heldResult = () => changed(call, interrupted(), change)
    return Promise.resolve(answer).then((decided) => changed(call, decided, change))
  }
  return changed(call, answer, change)
}

function changed(call: CallScope, decided: Decided, change: ContextChange): Decided {
  const session = call.services.session
  if (session === undefined) return decided
  const event = session.fromTool(change, { ...idsOf(call), alone: call.safe !== true })
  return event === undefined ? decided : { ...decided, events: [...decided.events, event] }
}
