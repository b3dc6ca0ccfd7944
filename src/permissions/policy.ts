/**
 * The permission step's policy: rules, mode, hook say, session grants, the tool's own
 * `checkPermissions`, and the app's `canUseTool` for "ask". Precedence deny > ask > allow.
 */
import type { KernelEventInput } from '../events/event.schema.js'
import { allowByDefault } from '../tools/build-tool.js'
import type { ShellAnalyzer, ToolPorts } from '../ports/index.js'
import type { Tool, ToolContext } from '../tools/tool.types.js'
import { describeError } from '../tools/result-text.js'
import { fingerprint, type Grants, type GrantScope } from './grants.js'
import { guarded } from '../util/guarded.js'
import { commandOf, matchRules, pathOf, readDenied, suggestRules, type RuleSet } from './ruleset.js'
import { insideWorkingDir, protectedReason, resolvingOnce, type PathJudge } from './paths.js'
import { analyzeCommand, redirectWrites } from './shell/index.js'
import { insideOf } from './rules.js'
import { commandReads } from './command-reads.js'
import { flagsOf, type CallFlags } from '../tools/call-flags.js'

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk'] as const
export type PermissionMode = (typeof PERMISSION_MODES)[number]

/** What the app is asked when a call needs approval. */
export interface PermissionRequest {
  tool: string
  toolUseId: string
  input: unknown
  reason: string
  /** Rules that would allow this call next time, e.g. `Bash(npm run test:*)`. */
  suggestions: string[]
  /**
   * What the call says about itself: read-only, destructive, open-world (fail-closed), the
   * tool's name for people and the activity text (`Reading src/a.ts`) to show in the prompt.
   */
  flags: CallFlags
  /** A subagent's call: the id of the parent's call it runs under (docs/subagents.md). */
  parentToolUseId?: string
}

/**
 * The app's answer: allow once (optionally with edited input, validated again), allow for the
 * session with `grant`, or deny with a message for the model.
 */
export type PermissionAnswer =
  | { behavior: 'allow'; updatedInput?: unknown; grant?: GrantScope }
  | { behavior: 'deny'; message: string }
  /** Not now: the call parks until `kernel.answer` (docs/approvals.md). */
  | { behavior: 'defer' }

export type CanUseTool = (
  request: PermissionRequest,
  options: { signal: AbortSignal },
) => PermissionAnswer | Promise<PermissionAnswer>

/** A permission decision as `tool.permitted` records it. */
export interface PermissionDecision {
  behavior: 'allow' | 'deny' | 'ask'
  source: 'tool' | 'rule' | 'mode' | 'hook' | 'user' | 'default'
  reason?: string
  /** Input replaced by the tool or the app (recorded so replay can answer the same). */
  updatedInput?: unknown
}

export interface PermissionVerdict extends PermissionDecision {
  /** Input replaced by the tool or the app; validated again before the call. */
  updatedInput?: unknown
  /** An "ask" nobody answered in the turn: the call parks until a person answers (`behavior: 'ask'`). */
  park?: { rule?: string; suggestions: string[] }
}

/** A person's answer to a parked call, as `permission.answered` recorded it. */
export interface RecordedAnswer {
  behavior: 'allow' | 'deny'
  message?: string
  updatedInput?: unknown
  grant?: { scope: 'call' | 'tool' | 'rule'; rule?: string }
}

/** What a PreToolUse hook said about permission, if anything. */
export interface HookSay {
  decision: 'allow' | 'deny' | 'ask'
  reason?: string
}

export interface PermissionPolicy {
  decide(
    tool: Tool,
    input: unknown,
    context: ToolContext,
    hook?: HookSay,
  ): Promise<PermissionVerdict> | PermissionVerdict
  /**
   * What `decide` will say, when that is known without running anything: early start (while the
   * model is still streaming) is only for calls that will not stop to ask. 'unknown' waits.
   */
  preview(tool: Tool, input: unknown): 'allow' | 'deny' | 'ask' | 'unknown'
  /** Whether no deny rule keeps the model from reading this path (Read rules, where it resolves). */
  mayRead(path: string): boolean
  /** The rule that decides this input for the tool, if one matches (a tool's own step, as a redirect). */
  ruleFor?(tool: Tool, input: unknown): { behavior: 'allow' | 'ask' | 'deny'; rule: string } | undefined
  /** The verdict of a person's answer to a parked call (a grant it gives is kept and logged). */
  answered(tool: Tool, input: unknown, answer: RecordedAnswer, context: ToolContext): PermissionVerdict
}

export interface PolicyOptions {
  rules: RuleSet
  /** Read at each decision: the kernel passes a getter, so the session's current mode decides. */
  mode: PermissionMode
  cwd: string
  /** Where paths really point, and what is protected (docs/design.md §The trust model). */
  judge?: PathJudge | undefined
  grants: Grants
  canUseTool?: CanUseTool | undefined
  /** What an "ask" nobody answers in the turn does: park the call for `kernel.answer`, or deny. Default deny. */
  approvals?: 'park' | 'deny' | undefined
  record(event: KernelEventInput): void
  /** The shell analysis the kernel hands its tools: what a tool's read-only verdict may consult. */
  shell: ShellAnalyzer
  /** A child session's policy: the parent's call its calls run under, told to `canUseTool`. */
  parentToolUseId?: string | undefined
}

type Verdict = PermissionVerdict & { behavior: 'allow' | 'deny' | 'ask'; rule?: string }

export function createPermissionPolicy(options: PolicyOptions): PermissionPolicy {
  const { cwd } = options
  // one resolution of the path and the working directory per question, not one per Read rule
  const mayRead = (path: string): boolean => !readDenied(forOneDecision(options).rules, path, cwd)
  // checkPermissions in preview runs without a live call: no signal fires, no progress goes
  // anywhere, and of the ports only the shell analysis is there (a check that reaches for I/O
  // throws, and the preview says 'unknown').
  const previewContext: ToolContext = {
    signal: new AbortController().signal,
    cwd,
    turnId: '',
    toolUseId: '',
    onProgress: () => {},
    ports: { shell: options.shell } as Partial<ToolPorts> as ToolPorts,
    mayRead,
  }
  return {
    mayRead,
    ruleFor: (tool, input) => matchRules(forOneDecision(options).rules, tool, input, cwd),
    preview: (tool, input) => previewOf(options, tool, input, previewContext),
    decide(tool, input, context, hook) {
      const flags = flagsOnce(tool, input, options.shell)
      const then = (v: Verdict): PermissionVerdict | Promise<PermissionVerdict> =>
        v.behavior === 'ask' ? askTheApp(options, tool, input, context, v, flags) : v
      const verdict = unlessAPersonMust(tool, settled(options, tool, input, hook, flags))
      if (verdict !== undefined) return then(verdict)
      const answer = tool.checkPermissions(input, context)
      return answer instanceof Promise ? answer.then((a) => then(fromTool(a))) : then(fromTool(answer))
    },
    answered: (tool, input, answer, context) =>
      fromAnswer(options, tool, input, answer, { turnId: context.turnId, toolUseId: context.toolUseId }),
  }
}

/** The call's flags, worked out at most once per decision (a shell analysis for Bash). */
function flagsOnce(tool: Tool, input: unknown, shell: ShellAnalyzer): () => CallFlags {
  let flags: CallFlags | undefined
  return () => (flags ??= flagsOf(tool, input, { shell }))
}

/** What `decide` will say when that is known without running anything or asking anyone. */
function previewOf(
  options: PolicyOptions,
  tool: Tool,
  input: unknown,
  previewContext: ToolContext,
): ReturnType<PermissionPolicy['preview']> {
  const verdict = unlessAPersonMust(
    tool,
    settled(options, tool, input, undefined, flagsOnce(tool, input, options.shell)),
  )
  if (verdict !== undefined) return verdict.behavior
  if (tool.checkPermissions === allowByDefault) return 'allow'
  try {
    const answer = tool.checkPermissions(input, previewContext)
    if (!(answer instanceof Promise)) return answer.behavior
    // An asynchronous check is not waited for here; its outcome (or failure) is the step's business.
    answer.catch(() => {})
    return 'unknown'
  } catch {
    return 'unknown'
  }
}

/**
 * Everything decided without asking anyone, in precedence order (deny > ask > allow); undefined
 * means "ask the tool".
 */
function settled(
  options: PolicyOptions,
  tool: Tool,
  input: unknown,
  hook: HookSay | undefined,
  flags: () => CallFlags,
): Verdict | undefined {
  const { mode, cwd, grants } = options
  const { rules, judge } = forOneDecision(options)
  const rule = matchRules(rules, tool, input, cwd, flags)
  if (rule?.behavior === 'deny') return { behavior: 'deny', source: 'rule', reason: `the rule ${rule.rule} denies it` }
  const command = commandOf(tool, input)
  const reads = command === undefined ? {} : commandReads(command, rules, judge, cwd)
  if (reads.deny !== undefined) return { behavior: 'deny', source: 'rule', reason: reads.deny }
  const guard = alwaysAsks(tool, input, command, rules, judge, options.shell)
  if (guard !== undefined) return { behavior: 'ask', source: 'default', reason: guard }
  if (mode === 'bypassPermissions') return { behavior: 'allow', source: 'mode', reason: 'bypassPermissions mode' }
  if (rule?.behavior === 'ask')
    return { behavior: 'ask', source: 'rule', reason: `the rule ${rule.rule} asks first`, rule: rule.rule }
  if (hook?.decision === 'ask') return { behavior: 'ask', source: 'hook', reason: hook.reason ?? 'a hook asks first' }
  if (mode === 'plan' && !readOnly(tool, input, options.shell))
    return {
      behavior: 'deny',
      source: 'mode',
      reason: 'plan mode allows nothing that writes; finish the plan and ask the user to leave plan mode',
    }
  if (hook?.decision === 'allow')
    return { behavior: 'allow', source: 'hook', ...(hook.reason !== undefined ? { reason: hook.reason } : {}) }
  const grant = grants.find(tool, input, cwd)
  if (grant !== undefined)
    return {
      behavior: 'allow',
      source: 'user',
      reason: `granted for this session (${grant.scope === 'rule' ? grant.rule : grant.scope})`,
    }
  // Before allow rules and the tool's own read-only verdict, which judge the command's letters alone.
  if (reads.ask !== undefined) return { behavior: 'ask', source: 'default', reason: reads.ask }
  if (rule?.behavior === 'allow')
    return {
      behavior: 'allow',
      source: 'rule',
      reason: `the rule ${rule.rule} allows it${rule.sandboxed === true ? ' (allowSandboxed: it runs in the OS sandbox)' : ''}`,
    }
  if (mode === 'acceptEdits' && editsInside(tool, input, cwd, judge, options.shell))
    return { behavior: 'allow', source: 'mode', reason: 'acceptEdits mode allows edits inside the working directory' }
  return undefined
}

/** The rules and judge for one decision: each path resolved once (both are the kernel's judge). */
function forOneDecision(options: PolicyOptions): { rules: RuleSet; judge: PathJudge | undefined } {
  const once = new Map<PathJudge, PathJudge>()
  const scoped = (judge: PathJudge | undefined): PathJudge | undefined => {
    if (judge === undefined) return undefined
    const found = once.get(judge) ?? resolvingOnce(judge)
    once.set(judge, found)
    return found
  }
  const judge = scoped(options.judge)
  const rulesJudge = scoped(options.rules.judge)
  return { rules: rulesJudge === undefined ? options.rules : { ...options.rules, judge: rulesJudge }, judge }
}

function fromTool(result: Awaited<ReturnType<Tool['checkPermissions']>>): Verdict {
  if (result.behavior === 'allow')
    return result.updatedInput === undefined
      ? { behavior: 'allow', source: 'tool' }
      : { behavior: 'allow', source: 'tool', updatedInput: result.updatedInput }
  return { behavior: result.behavior, source: 'tool', reason: result.message }
}

/**
 * "Ask": the mode may refuse outright; otherwise the app's canUseTool answers (and may grant), or
 * defers; with nobody to answer now the call parks for `kernel.answer` — or, where the app chose
 * `approvals: 'deny'`, is denied.
 */
async function askTheApp(
  options: PolicyOptions,
  tool: Tool,
  input: unknown,
  context: ToolContext,
  asked: Verdict,
  flags: () => CallFlags,
): Promise<PermissionVerdict> {
  const reason = asked.reason ?? 'it needs approval'
  if (options.mode === 'dontAsk')
    return { behavior: 'deny', source: 'mode', reason: `dontAsk mode turns every "ask" into a denial (${reason})` }
  const suggestions = suggestRules(tool, input, options.cwd)
  const park = (): PermissionVerdict => ({
    behavior: 'ask',
    source: asked.source,
    reason,
    park: asked.rule === undefined ? { suggestions } : { rule: asked.rule, suggestions },
  })
  if (options.canUseTool === undefined) {
    if (options.approvals === 'park') return park()
    return {
      behavior: 'deny',
      source: 'default',
      reason: `${tool.name} needs approval (${reason}) and this app has no way to ask the user`,
    }
  }
  const ids = { turnId: context.turnId, toolUseId: context.toolUseId }
  options.record({ type: 'permission.requested', ...ids, tool: tool.name, reason, suggestions })
  const request: PermissionRequest = {
    tool: tool.name,
    toolUseId: context.toolUseId,
    input,
    reason,
    suggestions,
    flags: flags(),
  }
  if (options.parentToolUseId !== undefined) request.parentToolUseId = options.parentToolUseId
  return answerOf(options, options.canUseTool, tool, input, request, context, park)
}

/** The app's answer to the request: a verdict, a parked call (it deferred), or a denial (it failed). */
async function answerOf(
  options: PolicyOptions,
  canUseTool: CanUseTool,
  tool: Tool,
  input: unknown,
  request: PermissionRequest,
  context: ToolContext,
  park: () => PermissionVerdict,
): Promise<PermissionVerdict> {
  const ids = { turnId: context.turnId, toolUseId: context.toolUseId }
  let answer: PermissionAnswer
  try {
    answer = await canUseTool(request, { signal: context.signal })
  } catch (error) {
    return { behavior: 'deny', source: 'user', reason: `the approval prompt failed (${describeError(error)})` }
  }
  if (answer?.behavior === 'defer') return park()
  // null, a primitive, or an object without a behavior the kernel knows (the app is JavaScript too).
  if (answer?.behavior !== 'allow' && answer?.behavior !== 'deny') {
    return {
      behavior: 'deny',
      source: 'user',
      reason: `the approval prompt gave no answer the kernel understands (${JSON.stringify(answer)})`,
    }
  }
  return fromAnswer(options, tool, input, answer.behavior === 'deny' ? answer : allowOf(answer), ids)
}

function allowOf(answer: Extract<PermissionAnswer, { behavior: 'allow' }>): RecordedAnswer {
  const allowed: RecordedAnswer = { behavior: 'allow' }
  if (answer.updatedInput !== undefined) allowed.updatedInput = answer.updatedInput
  if (answer.grant !== undefined) allowed.grant = answer.grant
  return allowed
}

/** A person's answer as a verdict: a denial with their message, or an allow (its grant kept). */
function fromAnswer(
  options: PolicyOptions,
  tool: Tool,
  input: unknown,
  answer: RecordedAnswer,
  ids: { turnId: string; toolUseId: string },
): PermissionVerdict {
  if (answer.behavior === 'deny') return { behavior: 'deny', source: 'user', reason: answer.message ?? 'denied' }
  if (answer.grant !== undefined) {
    const failed = recordGrant(options, tool, input, answer.grant as GrantScope, ids)
    if (failed !== undefined) return failed
  }
  return answer.updatedInput === undefined
    ? { behavior: 'allow', source: 'user' }
    : { behavior: 'allow', source: 'user', updatedInput: answer.updatedInput }
}

/** Keeps the app's grant for the session and logs it; a grant that cannot be kept denies the call. */
function recordGrant(
  options: PolicyOptions,
  tool: Tool,
  input: unknown,
  scope: GrantScope,
  ids: { turnId: string; toolUseId: string },
): PermissionVerdict | undefined {
  const grant = {
    tool: tool.name,
    scope: scope.scope,
    ...(scope.scope === 'call' ? { fingerprint: fingerprint(tool.name, input) } : {}),
    ...(scope.scope === 'rule' ? { rule: scope.rule } : {}),
  }
  try {
    options.grants.add(grant)
    options.record({ type: 'permission.granted', ...ids, ...grant })
    return undefined
  } catch (error) {
    return { behavior: 'deny', source: 'user', reason: `the grant could not be recorded (${describeError(error)})` }
  }
}

function readOnly(tool: Tool, input: unknown, shell: ShellAnalyzer): boolean {
  return guarded(() => tool.isReadOnly(input, { shell }) === true, false)
}

/** A change acceptEdits may allow: it writes a path that is inside the working directory, really. */
function editsInside(
  tool: Tool,
  input: unknown,
  cwd: string,
  judge: PathJudge | undefined,
  shell: ShellAnalyzer,
): boolean {
  if (readOnly(tool, input, shell)) return false
  const path = pathOf(tool, input)
  if (path === undefined) return false
  if (judge !== undefined) return insideWorkingDir(judge, path)
  const rel = insideOf(cwd, path)
  return rel !== undefined && rel !== ''
}

/**
 * What asks in every mode, bypassPermissions included: a change to a protected path (`.git`,
 * `.claude` …, also through a symlink or a shell redirection), and a shell command the analysis
 * cannot follow fully while deny or ask rules for that tool exist — a command that hides its
 * parts could hide exactly what they name.
 */
function alwaysAsks(
  tool: Tool,
  input: unknown,
  command: string | undefined,
  rules: RuleSet,
  judge: PathJudge | undefined,
  shell: ShellAnalyzer,
): string | undefined {
  if (command !== undefined) {
    const analysis = analyzeCommand(command)
    if (analysis.kind === 'unknown' && guardedByRules(rules, tool))
      return `the command cannot be analysed fully (${analysis.reason}), and rules restrict what ${tool.name} may run`
    if (judge === undefined || analysis.kind === 'unknown') return undefined
    for (const target of analysis.commands.flatMap((c) => c.redirects.filter(redirectWrites).map((r) => r.target))) {
      const reason = protectedReason(judge, target)
      if (reason !== undefined) return reason
    }
    return undefined
  }
  const path = pathOf(tool, input)
  if (judge === undefined || path === undefined || readOnly(tool, input, shell)) return undefined
  return protectedReason(judge, path)
}

function guardedByRules(rules: RuleSet, tool: Tool): boolean {
  return [...rules.deny, ...rules.ask].some((rule) => rule.specifier !== undefined && rule.tool === tool.name)
}

/**
 * A tool that needs a person's answer (`requiresUserInteraction`, AskUserQuestion) is not settled
 * by an allow — from a rule, bypassPermissions or acceptEdits, a hook or a session grant: its own
 * check asks, so a person answers (docs/approvals.md §Questions for the user). Deny and ask stand.
 */
function unlessAPersonMust(tool: Tool, verdict: Verdict | undefined): Verdict | undefined {
  if (verdict?.behavior !== 'allow') return verdict
  return guarded(() => tool.requiresUserInteraction?.() === true, true) ? undefined : verdict
}
