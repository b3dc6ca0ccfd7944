/**
 * Runs the hooks that match a call, in parallel, and reads each one's answer by the Claude Code
 * protocol: exit 0 goes on, and only then is a JSON object on stdout read (it may block, ask,
 * allow, rewrite input, add context); exit 2 blocks with stderr as the reason, whatever stdout
 * says; other codes and a timeout are non-blocking errors, noted in the call's system messages.
 * Where a hook cannot do its job at all — it cannot be started, or the call cannot be handed to it
 * as JSON — a PreToolUse hook blocks the call: a check that did not run is not a pass. Every
 * hook's result is an event, then the results are combined in configuration order. The command
 * never has model input in it: the call reaches the hook only as JSON on stdin.
 */
import type { KernelEventInput } from '../events/event.schema.js'
import type { HookOutcome, HookRequest, HookRunner } from './hook-runner.js'
import type { ChildEnvironmentOptions } from '../adapters/child-environment.js'
import type { Sandbox } from '../ports/sandbox.port.js'
import { runHookProcess, type HookProcessResult } from '../adapters/hook-process.js'
import { describeError } from '../tools/result-text.js'
import { capHookText, combineHookResults, type HookResult } from './combine.js'
import {
  compileMatcher,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HookOutputSchema,
  HooksConfigSchema,
  type HookEntry,
  type HookEventName,
  type HookInput,
  type HookOutput,
  type HooksConfig,
} from './config.js'
import { z } from 'zod'
import type { Tool } from '../tools/tool.types.js'

export interface HookRunnerOptions {
  cwd: string
  sessionId: string
  permissionMode: string
  record(event: KernelEventInput): void
  /** The command runner (tests may replace it). */
  runProcess?: typeof runHookProcess
  /** Command hooks' environment: the default allowlist, plus what the app adds. */
  environment?: ChildEnvironmentOptions
  /** The sandbox command hooks run in (docs/decisions/processes.md, 113). Absent: none. */
  sandbox?: Sandbox
}

interface CompiledHook {
  entry: HookEntry
  label: string
  order: number
  matches: (tool: string) => boolean
}

const KNOWN_FIELDS = new Set(Object.keys(HookOutputSchema.shape))

/**
 * Checks a hooks configuration and builds its runner.
 *
 * @throws Error naming what is wrong: an unknown event, a hook without a command, a bad matcher.
 */
export function createHookRunner(config: HooksConfig | undefined, options: HookRunnerOptions): HookRunner {
  const parsed = HooksConfigSchema.safeParse(config ?? {})
  if (!parsed.success) throw new Error(`hooks configuration: ${z.prettifyError(parsed.error)}`)
  const compiled = new Map<HookEventName, CompiledHook[]>()
  for (const [event, groups] of Object.entries(parsed.data) as Array<
    [HookEventName, NonNullable<(typeof parsed.data)[HookEventName]>]
  >) {
    let order = 0
    compiled.set(
      event,
      groups.flatMap((group, g) => {
        const matches = compileMatcher(group.matcher)
        return group.hooks.map((entry, h) => ({
          entry,
          matches,
          order: order++,
          label: `${event}[${g}].hooks[${h}] (${entry.type === 'command' ? entry.command : (entry.name ?? 'function')})`,
        }))
      }),
    )
  }
  const none: CompiledHook[] = []
  // A matcher sees every name the tool is known by: an MCP tool's hashed name and its full name
  // as listed (Tool.ruleNames), so a guard on the one is never missed by a call of the other.
  const matching = (event: HookEventName, tool: Tool) => {
    const hooks = compiled.get(event)
    if (hooks === undefined || hooks.length === 0) return none
    const names = [tool.name, ...(tool.ruleNames ?? [])]
    return hooks.filter((hook) => names.some((name) => hook.matches(name)))
  }
  const runProcess = options.runProcess ?? runHookProcess

  return {
    has: (phase, tool) =>
      phase === 'pre'
        ? matching('PreToolUse', tool).length > 0
        : matching('PostToolUse', tool).length > 0 || matching('PostToolUseFailure', tool).length > 0,
    async run(request, signal): Promise<HookOutcome> {
      const event: HookEventName =
        request.phase === 'pre' ? 'PreToolUse' : request.error === undefined ? 'PostToolUse' : 'PostToolUseFailure'
      const input = hookInput(event, request, options)
      const hooks = matching(event, request.tool)
      const results = await Promise.all(hooks.map((hook) => runOne(hook, { input, signal, options, runProcess })))
      for (const result of results) options.record(finishedEvent(request, result))
      return combineHookResults(results, request.phase)
    },
  }
}

function hookInput(event: HookEventName, request: HookRequest, options: HookRunnerOptions): HookInput {
  const input: HookInput = {
    session_id: options.sessionId,
    cwd: options.cwd,
    permission_mode: options.permissionMode,
    hook_event_name: event,
    tool_name: request.tool.name,
    tool_input: request.input,
    tool_use_id: request.toolUseId,
  }
  if (event === 'PostToolUse') input.tool_response = request.response
  if (event === 'PostToolUseFailure') {
    input.error = request.error as string
    input.is_interrupt = request.isInterrupt === true
  }
  return input
}

interface RunContext {
  input: HookInput
  signal: AbortSignal
  options: HookRunnerOptions
  runProcess: typeof runHookProcess
}

async function runOne(hook: CompiledHook, { input, signal, options, runProcess }: RunContext): Promise<HookResult> {
  const base = { label: hook.label, order: hook.order }
  const timeoutMs = (hook.entry.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS) * 1000
  if (hook.entry.type === 'function')
    return { ...base, ...(await runFunction(hook.entry.fn, input, signal, timeoutMs)) }
  let stdin: string
  try {
    stdin = JSON.stringify(input)
  } catch (error) {
    // The hook cannot check a call it is not shown: that blocks, as a hook that cannot start does.
    return {
      ...base,
      outcome: 'block',
      reason: `${cannot(hook)} be given the call as JSON (${describeError(error)}), so it could not check the call`,
    }
  }
  const result = await runProcess(hook.entry.command, {
    cwd: options.cwd,
    stdin,
    timeoutMs,
    signal,
    ...(options.environment === undefined ? {} : { env: options.environment }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
  })
  if (result.startError !== undefined)
    return {
      ...base,
      outcome: 'block',
      exitCode: null,
      reason: `${cannot(hook)} be started (${result.startError}), so it could not check the call`,
    }
  return { ...base, ...readProcess(result, timeoutMs, input.hook_event_name) }
}

/** The start of the reason a hook that could not do its job blocks with. */
function cannot(hook: CompiledHook): string {
  return `the hook ${hook.label} could not`
}

type Reading = Omit<HookResult, 'label' | 'order'>

async function runFunction(
  fn: (input: HookInput, options: { signal: AbortSignal }) => unknown,
  input: HookInput,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Reading> {
  let timer: NodeJS.Timeout | undefined
  // The hook's own signal fires when the call's does or when the hook overruns its timeout, so a
  // hook that listens stops instead of running on unseen after the kernel has moved on.
  const own = new AbortController()
  const forward = (): void => own.abort(signal.reason)
  if (signal.aborted) forward()
  else signal.addEventListener('abort', forward, { once: true })
  const error = `timed out after ${timeoutMs / 1000} s`
  try {
    const timeout = new Promise<'timeout'>(
      (resolve) =>
        (timer = setTimeout(() => {
          own.abort(new Error(`the hook ${error}`))
          resolve('timeout')
        }, timeoutMs)),
    )
    const answer = await Promise.race([Promise.resolve().then(() => fn(input, { signal: own.signal })), timeout])
    if (answer === 'timeout') return { outcome: 'error', error }
    if (answer === undefined || answer === null) return { outcome: 'continue' }
    return readJson(answer, input.hook_event_name)
  } catch (error) {
    return { outcome: 'error', error: `threw: ${describeError(error)}` }
  } finally {
    clearTimeout(timer)
    signal.removeEventListener('abort', forward)
  }
}

/** What a command hook's exit says: exit 0 reads its JSON, exit 2 blocks, anything else is a noted error. */
function readProcess(result: HookProcessResult, timeoutMs: number, event: HookEventName): Reading {
  const wentOn = event === 'PreToolUse' ? 'the call went on' : 'the result stands'
  const exitCode = result.exitCode
  if (result.timedOut) {
    const killed = result.cleanup ?? 'its process group was killed'
    return { outcome: 'error', exitCode, error: `timed out after ${timeoutMs / 1000} s; ${killed}; ${wentOn}` }
  }
  if (result.problem !== undefined)
    return {
      outcome: 'error',
      exitCode,
      error: result.interrupted === true ? result.problem : `${result.problem}; ${wentOn}`,
    }
  const stderr = result.stderr.trim()
  // Exit 2 blocks whatever stdout says: a hook's JSON is read on exit 0 only (the Claude Code protocol).
  if (exitCode === 2)
    return {
      outcome: 'block',
      exitCode,
      reason: stderr || 'a hook blocked this call (exit code 2) without saying why',
    }
  if (exitCode !== 0) {
    const how = exitCode === null ? `was killed by ${result.exitSignal ?? 'a signal'}` : `exited with code ${exitCode}`
    return {
      outcome: 'error',
      exitCode,
      error: `${how}${stderr === '' ? '' : `: ${stderr.slice(0, 2000)}`}; ${wentOn}`,
    }
  }
  return readStdout(result.stdout.trim(), event)
}

/** Exit 0: a JSON object on stdout is the hook's answer; anything else on it is ignored. */
function readStdout(stdout: string, event: HookEventName): Reading {
  if (!stdout.startsWith('{')) return { outcome: 'continue', exitCode: 0 }
  let json: unknown
  try {
    json = JSON.parse(stdout)
  } catch (error) {
    return {
      outcome: 'continue',
      exitCode: 0,
      error: `its stdout is not valid JSON (${(error as Error).message}), so its exit code decides`,
    }
  }
  return { ...readJson(json, event), exitCode: 0 }
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const

/**
 * A hook's JSON answer (command stdout, or an in-process hook's return value). A
 * `hookSpecificOutput` labelled for another event is ignored, with a note; within one answer the
 * strictest decision wins (`decision: "block"` beside `permissionDecision: "allow"` blocks), as
 * it does across answers.
 */
function readJson(json: unknown, event: HookEventName): Reading {
  const parsed = HookOutputSchema.safeParse(json)
  if (!parsed.success)
    return {
      outcome: 'error',
      error: `its JSON answer has wrongly typed fields: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`,
    }
  const data: HookOutput = parsed.data
  const notes: string[] = []
  let specific = data.hookSpecificOutput
  if (specific?.hookEventName !== undefined && specific.hookEventName !== event) {
    notes.push(
      `its hookSpecificOutput is labelled for ${JSON.stringify(specific.hookEventName)}, not ${event}, so it was ignored`,
    )
    specific = undefined
  }
  const legacy = data.decision === 'block' ? 'deny' : data.decision === 'approve' ? 'allow' : undefined
  const own = specific?.permissionDecision
  const decision = own === undefined || (legacy !== undefined && RANK[legacy] > RANK[own]) ? legacy : own
  const reason =
    decision !== undefined && decision === legacy && decision !== own
      ? (data.reason ?? specific?.permissionDecisionReason)
      : (specific?.permissionDecisionReason ?? data.reason)
  const updatedInput = specific?.updatedInput ?? data.updatedInput
  const additionalContext = specific?.additionalContext ?? data.additionalContext
  const unknown = Object.keys(data).filter((k) => !KNOWN_FIELDS.has(k))
  const reading: Reading = { outcome: decision === 'deny' ? 'block' : 'continue' }
  if (decision !== undefined) reading.decision = decision
  if (reason !== undefined) reading.reason = capHookText(reason, 'reason')
  if (updatedInput !== undefined) reading.updatedInput = updatedInput
  if (additionalContext !== undefined) reading.additionalContext = capHookText(additionalContext, 'hook context')
  if (data.systemMessage !== undefined) reading.systemMessage = capHookText(data.systemMessage, 'system message')
  if (data.continue === false)
    reading.stopReason = capHookText(data.stopReason ?? 'a hook asked to stop', 'stop reason')
  if (unknown.length > 0) notes.push(`unknown fields ignored: ${unknown.join(', ')}`)
  if (notes.length > 0) reading.error = notes.join('; ')
  return reading
}

function finishedEvent(request: HookRequest, result: HookResult): KernelEventInput {
  const event: KernelEventInput & { type: 'hook.finished' } = {
    type: 'hook.finished',
    turnId: request.turnId,
    toolUseId: request.toolUseId,
    phase: request.phase,
    hook: result.label,
    outcome: result.outcome,
  }
  if (result.exitCode !== undefined) event.exitCode = result.exitCode
  for (const key of [
    'decision',
    'reason',
    'updatedInput',
    'additionalContext',
    'systemMessage',
    'stopReason',
    'error',
  ] as const) {
    if (result[key] !== undefined) (event as Record<string, unknown>)[key] = result[key]
  }
  return event
}
