/**
 * Plan mode as tools (docs/session-context.md §Plan mode): EnterPlanMode switches the session to
 * plan mode (only read-only tools run); ExitPlanMode, offered only in plan mode, asks the app to
 * approve the plan and, when allowed, returns the session to the mode it had before. Both change
 * the mode through `changeContext`, so the rules of any context change hold: applied only from a
 * call that ran alone (neither is concurrency-safe), recorded, honoured by resume and replay.
 */
import { z } from 'zod'
import { buildTool } from '../build-tool.js'
import { changeContext } from '../context-change.js'
import { lazySchema } from '../lazy-schema.js'

/** The modes EnterPlanMode is offered in: every one but plan itself. */
const OUTSIDE_PLAN = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk'] as const

/** EnterPlanMode: the model asks to plan first; nothing that writes runs until the plan is approved. */
export const EnterPlanMode = buildTool<Record<string, never>, string, unknown, 'EnterPlanMode'>({
  name: 'EnterPlanMode',
  searchHint: 'plan mode think before changing',
  category: 'session',
  description: () => 'Switches the session to plan mode.',
  prompt: () =>
    [
      'Switches the session to plan mode: from the next call on, only tools that change nothing run (reading, searching, read-only commands).',
      'Use it before a change that needs exploring and a plan the user should see first. When the plan is ready, call ExitPlanMode with it: the user approves it (and the session leaves plan mode) or says what to change.',
    ].join(' '),
  inputSchema: lazySchema(() => z.strictObject({})),
  modes: OUTSIDE_PLAN,
  // It writes nothing, and entering plan mode only takes permissions away.
  isReadOnly: () => true,
  async call() {
    return changeContext(
      'The session is in plan mode now: only read-only tools run. Explore, then call ExitPlanMode with your plan.',
      { mode: 'plan' },
    )
  },
})

export interface ExitPlanModeInput {
  plan: string
}

/** ExitPlanMode: asks the app to approve the plan; on allow, the session goes back to its mode before plan. */
export const ExitPlanMode = buildTool<ExitPlanModeInput, string, unknown, 'ExitPlanMode'>({
  name: 'ExitPlanMode',
  searchHint: 'plan mode approve leave finish plan',
  category: 'session',
  description: () => 'Asks the user to approve the plan and leave plan mode.',
  prompt: () =>
    [
      'Presents your plan to the user and asks them to approve it. When they do, the session leaves plan mode and you may carry out the plan; when they do not, you get their answer and stay in plan mode.',
      'Give the whole plan, in markdown, concise: the steps, the files to change, how to check the result. Only for plans of changes to make, not for research.',
    ].join(' '),
  inputSchema: lazySchema(() =>
    z.strictObject({ plan: z.string().min(1).describe('The plan to approve, in markdown') }),
  ),
  modes: ['plan'],
  // It changes no file: plan mode lets it through to its own check, which asks.
  isReadOnly: () => true,
  // Always asks: the plan is what the app shows the user (the reason of the permission request).
  checkPermissions: (input) => ({ behavior: 'ask', message: input.plan }),
  // A person approves a plan: no allow rule, grant or hook settles it (docs/approvals.md §Questions for the user).
  requiresUserInteraction: () => true,
  async call(_input, { session }) {
    const back = session?.modeBeforePlan ?? 'default'
    return changeContext(`The user approved the plan. The session is in ${back} mode again: carry out the plan.`, {
      mode: back,
    })
  },
})

/** Both plan-mode tools, to add to a kernel's tools. */
export const planModeTools = [EnterPlanMode, ExitPlanMode] as const
