/**
 * Hook configuration, as Claude Code users write it in settings.json, plus in-process hooks, and
 * the JSON a hook may answer with. Configuration is checked at createKernel; hook output is a
 * trust boundary checked on every run.
 */
import type { RE2JS } from 're2js'
import { builtin } from '../util/builtin.js'
import { z } from 'zod'

export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'] as const
export type HookEventName = (typeof HOOK_EVENTS)[number]

/** The JSON a hook receives on stdin (or as its argument, in process). */
export interface HookInput {
  session_id: string
  cwd: string
  permission_mode: string
  hook_event_name: HookEventName
  tool_name: string
  tool_input: unknown
  tool_use_id: string
  /** PostToolUse: the tool's output. */
  tool_response?: unknown
  /** PostToolUseFailure: what went wrong, and whether it was an interrupt. */
  error?: string
  is_interrupt?: boolean
}

export const HookOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  additionalContext: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(['allow', 'deny', 'ask']).optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
    })
    .optional(),
})
/** What a hook may answer: the JSON object on a command hook's stdout, or an in-process hook's return value. */
export type HookOutput = z.input<typeof HookOutputSchema>

export type HookFunction = (
  input: HookInput,
  options: { signal: AbortSignal },
) => HookOutput | void | Promise<HookOutput | void>

const CommandHook = z.strictObject({
  type: z.literal('command'),
  command: z.string().min(1, 'a command hook needs a command'),
  /** Seconds before the hook and its process tree are killed (default 60). */
  timeout: z.number().positive().optional(),
})
const FunctionHook = z.strictObject({
  type: z.literal('function'),
  fn: z.custom<HookFunction>((f) => typeof f === 'function', 'fn must be a function'),
  name: z.string().optional(),
  timeout: z.number().positive().optional(),
})
const MatcherGroup = z.strictObject({
  matcher: z.string().optional(),
  hooks: z.array(z.discriminatedUnion('type', [CommandHook, FunctionHook])),
})
export const HooksConfigSchema = z.strictObject({
  PreToolUse: z.array(MatcherGroup).optional(),
  PostToolUse: z.array(MatcherGroup).optional(),
  PostToolUseFailure: z.array(MatcherGroup).optional(),
})
export type HooksConfig = z.input<typeof HooksConfigSchema>
export type HookEntry = z.infer<typeof CommandHook> | z.infer<typeof FunctionHook>

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60

/**
 * A matcher as a predicate on tool names: empty or `*` matches every tool, `A|B` (plain names)
 * matches exactly those, anything else is a regular expression over the whole name, compiled with
 * RE2 (re2js), whose matching time is linear in the name: a pattern such as `(a|aa)+b` cannot
 * stall the event loop on every call (docs/decisions/hooks.md, "Hostile hooks").
 *
 * @throws Error for a regular expression that does not compile, or that uses what a linear-time
 *   engine cannot run (lookaround, backreferences).
 */
export function compileMatcher(matcher: string | undefined): (toolName: string) => boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true
  if (/^[A-Za-z0-9_-]+(\|[A-Za-z0-9_-]+)*$/.test(matcher)) {
    const names = new Set(matcher.split('|'))
    return (name) => names.has(name)
  }
  try {
    // Checked by JavaScript's own parser first, so a plain syntax error reads as one.
    new RegExp(matcher)
  } catch (error) {
    throw new Error(
      `hook matcher ${JSON.stringify(matcher)} is not a valid regular expression: ${(error as Error).message}`,
    )
  }
  let regex: RE2JS
  try {
    regex = re2().compile(`^(?:${matcher})$`)
  } catch (error) {
    throw new Error(
      `hook matcher ${JSON.stringify(matcher)} uses a feature toolkernel does not run (matchers are compiled with RE2, which runs in time linear in the tool name and has no lookaround or backreferences): ${(error as Error).message}; write it without them`,
    )
  }
  return (name) => regex.matches(name)
}

let engine: typeof RE2JS | undefined
/**
 * re2js, loaded on the first regular-expression matcher: importing it costs tens of milliseconds
 * at start-up, and most kernels have none (docs/decisions/build-and-layout.md, 124).
 */
function re2(): typeof RE2JS {
  engine ??= (builtin('node:module').createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS
  return engine
}
