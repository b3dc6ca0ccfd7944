/**
 * Child sessions (docs/subagents.md): what `context.runChild` opens under a running call. A
 * child has a scope — the tools it may call and rules that only narrow its parent's — and its
 * turns run in the kernel's own log, each event stamped with the parent call's id.
 */
import type { CallServices, ChildCall, TurnBelow } from './actors/tool-call/call-scope.js'
import type { TurnControl } from './actors/turn/turn.js'
import type { EarlyStart } from './actors/turn/turn.types.js'
import type { EventOf } from './events/event.schema.js'
import { toolUsesOf } from './intake/assistant-message.js'
import type { Grants } from './permissions/grants.js'
import type { PathJudge } from './permissions/paths.js'
import { createPermissionPolicy, PERMISSION_MODES, type CanUseTool, type PermissionMode } from './permissions/policy.js'
import { compileRules, deniedOutright, type RuleSet } from './permissions/ruleset.js'
import { projectTurnMessage } from './projections/messages.projection.js'
import type { ShellAnalyzer } from './ports/index.js'
import type { ChildOptions, ChildRules, ChildSession, ChildStreamTurn, ChildTurnResult } from './tools/child.types.js'
import { API_FORMATS, type ApiFormat, type ApiToolOf } from './tools/to-api-format.js'
import { ChildPool, type ChildPoolInput } from './tools/pool/child-pool.js'
import { ToolRegistry } from './tools/tool-registry.js'
import type { Tool } from './tools/tool.types.js'
import { checkOptionsObject, optionNames } from './util/known-options.js'
import { describeValue } from './util/describe-value.js'

/** What a child turn records of its scope (turn.started `child`), and what replay builds it again from. */
export type ChildSpec = NonNullable<EventOf<'turn.started'>['child']>

/** The tools, rules and services the calls of one turn run with: the kernel's, or a child's. */
export interface Scope {
  readonly tools: () => readonly Tool[]
  readonly rules: RuleSet
  /** The rules as written (recorded in turn.started), the mode as it is now. */
  permissions(): { mode: PermissionMode; allow: string[]; ask: string[]; deny: string[]; allowSandboxed?: string[] }
  mode(): PermissionMode
  readonly services: CallServices
}

/** A child's scope: with its pool (its deferred tools, its own ToolSearch). */
export interface ChildScope extends Scope {
  readonly pool: ChildPool
}

/** What a child's permission policy is built from: the kernel's. */
export interface PolicyInputs {
  readonly cwd: string
  readonly judge: PathJudge
  readonly grants: Grants
  readonly canUseTool: CanUseTool | undefined
  readonly approvals: 'park' | 'deny'
  readonly shell: ShellAnalyzer
  /** The kernel pool's settings a child's pool splits its tools by, and which tools are switched off. */
  readonly pool: Pick<ChildPoolInput, 'deferral' | 'format' | 'disabled'>
}

/**
 * From the strictest mode to the loosest: a child's mode is the stricter of its own and its
 * parent's. plan allows nothing that writes; dontAsk denies what would ask.
 */
const LOOSENESS: Readonly<Record<PermissionMode, number>> = {
  plan: 0,
  dontAsk: 1,
  default: 2,
  acceptEdits: 3,
  bypassPermissions: 4,
}

/**
 * The scope of a child: the named tools of its parent's scope; deny and ask rules the parent's
 * and its own; allow rules its own intersected with the parent's (or the parent's); its mode
 * never looser than the parent's, read at each decision.
 */
export function childScope(parent: Scope, spec: ChildSpec, inputs: PolicyInputs, parentToolUseId: string): ChildScope {
  const offered = new Map(parent.tools().map((tool) => [tool.name, tool]))
  const written = parent.permissions()
  const own = spec.rules
  const allow = own.allow ?? written.allow
  const ask = [...written.ask, ...(own.ask ?? [])]
  const deny = [...written.deny, ...(own.deny ?? [])]
  // A child that takes its parent's allow rules takes its allowSandboxed ones too, and the same sandbox.
  const allowSandboxed = own.allow === undefined ? (written.allowSandboxed ?? []) : []
  const compiled = {
    ...compileRules({ allow, ask, deny, allowSandboxed }, parent.tools(), inputs.judge),
    sandboxed: parent.rules.sandboxed,
  }
  const rules: RuleSet =
    own.allow === undefined ? { ...compiled, within: parent.rules.within } : { ...compiled, within: parent.rules }
  const mode = (): PermissionMode => {
    const theirs = parent.mode()
    const asked = own.mode as PermissionMode | undefined
    return asked !== undefined && LOOSENESS[asked] < LOOSENESS[theirs] ? asked : theirs
  }
  const pool = new ChildPool({
    ...inputs.pool,
    tools: spec.tools.map((name) => offered.get(name) as Tool),
    denied: (tool) => deniedOutright(rules, tool),
    mode,
    parentToolUseId,
    log: parent.services.log,
  })
  const tools = pool.tools
  const registry = new ToolRegistry(tools)
  registry.loader = pool.loader()
  const record = (event: Parameters<CallServices['log']['append']>[0]): void => void parent.services.log.append(event)
  const services: CallServices = {
    ...parent.services,
    registry,
    offeredTools: tools.filter((tool) => !deniedOutright(rules, tool)).map((tool) => tool.name),
    permissions: createPermissionPolicy({
      rules,
      get mode() {
        return mode()
      },
      cwd: inputs.cwd,
      judge: inputs.judge,
      grants: inputs.grants,
      canUseTool: inputs.canUseTool,
      approvals: inputs.approvals,
      record,
      shell: inputs.shell,
      parentToolUseId,
    }),
  }
  return { tools: () => tools, rules, permissions: () => ({ mode: mode(), allow, ask, deny }), mode, services, pool }
}

const CHILD_OPTIONS = optionNames<ChildOptions>()('tools', 'prompt', 'rules', 'budget', 'signal')
const RULE_KEYS = optionNames<ChildRules>()('mode', 'allow', 'ask', 'deny')
const BUDGET_KEYS = optionNames<NonNullable<ChildOptions['budget']>>()('messageBudgetChars', 'maxTurns')

/**
 * Checks `runChild`'s options against the parent's scope and writes them as the child turns
 * record them. @throws TypeError naming what is wrong; Error for a rule that cannot match.
 */
export function childSpecOf(
  parent: Scope,
  call: { turnId: string; toolName: string | undefined },
  options: ChildOptions | undefined,
): ChildSpec {
  const where = 'context.runChild'
  checkOptionsObject(where, options, CHILD_OPTIONS)
  const names = parent.tools().map((tool) => tool.name)
  const tools = options?.tools ?? names.filter((name) => name !== call.toolName)
  if (!Array.isArray(tools) || tools.some((name) => typeof name !== 'string'))
    throw new TypeError(`${where}: tools must be an array of tool names`)
  const unknown = tools.filter((name) => !names.includes(name))
  if (unknown.length > 0)
    throw new TypeError(
      `${where}: ${unknown.map((name) => JSON.stringify(name)).join(', ')} ${unknown.length > 1 ? 'are not tools' : 'is not a tool'} of the parent (it has: ${names.join(', ')}); a child calls only tools its parent has`,
    )
  if (options?.prompt !== undefined && typeof options.prompt !== 'string')
    throw new TypeError(
      `${where}: prompt must be a string (the child model's system prompt), got ${describeValue(options.prompt)}`,
    )
  const rules = options?.rules ?? {}
  checkOptionsObject(`${where} rules`, rules, RULE_KEYS)
  if (rules.mode !== undefined && !PERMISSION_MODES.includes(rules.mode as PermissionMode))
    throw new TypeError(
      `${where}: rules.mode must be one of ${PERMISSION_MODES.join(', ')}, got ${JSON.stringify(rules.mode)}`,
    )
  const list = (key: 'allow' | 'ask' | 'deny'): { [K in typeof key]?: string[] } => {
    const value = rules[key]
    if (value === undefined) return {}
    if (!Array.isArray(value) || value.some((rule) => typeof rule !== 'string'))
      throw new TypeError(`${where}: rules.${key} must be an array of rule strings`)
    return { [key]: [...value] }
  }
  const budget = options?.budget ?? {}
  checkOptionsObject(`${where} budget`, budget, BUDGET_KEYS)
  for (const key of ['messageBudgetChars', 'maxTurns'] as const) {
    const value = budget[key]
    if (value !== undefined && (!Number.isInteger(value) || value < 1))
      throw new RangeError(`${where}: budget.${key} must be a positive integer, got ${String(value)}`)
  }
  if (options?.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new TypeError(`${where}: signal must be an AbortSignal`)
  const spec: ChildSpec = {
    parentTurnId: call.turnId,
    tools: [...tools],
    rules: {
      ...(rules.mode === undefined ? {} : { mode: rules.mode }),
      ...list('allow'),
      ...list('ask'),
      ...list('deny'),
    },
  }
  if (budget.messageBudgetChars !== undefined) spec.messageBudgetChars = budget.messageBudgetChars
  if (options?.prompt !== undefined) spec.prompt = options.prompt
  // Every rule must parse and name a tool: refused here, not at the child's first call.
  const { allow = [], ask = [], deny = [] } = spec.rules
  compileRules({ allow, ask, deny }, parent.tools())
  return spec
}

/**
 * How a child's turns are opened in the kernel: with its scope, under its parent call. A whole
 * message is a batch turn (`all` or `none` start early); a streamed one takes the kernel's
 * `earlyStart` unless given one (`none` once the call is aborted; replay gives the recorded one).
 */
export type OpenChildTurn = (
  scope: Scope,
  spec: ChildSpec,
  under: { toolUseId: string; opened: () => TurnBelow },
  turn: { mode: 'batch'; earlyStart: 'all' | 'none' } | { mode: 'stream'; earlyStart?: EarlyStart },
) => TurnControl

/** The session `context.runChild` returns. */
export function childSession(
  call: ChildCall,
  spec: ChildSpec,
  scope: ChildScope,
  options: { maxTurns?: number | undefined; signal?: AbortSignal | undefined },
  open: OpenChildTurn,
): ChildSession {
  const where = 'context.runChild'
  let turns = 0
  const signals = options.signal === undefined ? [call.signal] : [call.signal, options.signal]
  const signal = signals.length === 1 ? call.signal : AbortSignal.any(signals)
  /** Counts a turn the child takes, refusing one past its budget or after its call has ended. */
  const taking = (): void => {
    if (call.ended())
      throw new Error(`${where}: call ${call.toolUseId} has its result; its child session takes no more turns`)
    if (options.maxTurns !== undefined && turns >= options.maxTurns)
      throw new RangeError(
        `${where}: the child session of call ${call.toolUseId} has used all ${options.maxTurns} of its turns (budget.maxTurns)`,
      )
    turns++
  }
  return {
    parentToolUseId: call.toolUseId,
    tools: spec.tools,
    prompt: spec.prompt,
    apiTools: <F extends ApiFormat = 'anthropic'>(apiOptions?: { format: F }): Array<ApiToolOf[F]> => {
      checkOptionsObject(`${where} apiTools`, apiOptions, ['format'])
      const format = apiOptions?.format ?? 'anthropic'
      if (!API_FORMATS.includes(format))
        throw new TypeError(`apiTools: format must be one of ${API_FORMATS.join(', ')}, got ${JSON.stringify(format)}`)
      return scope.pool.apiTools(format as F)
    },
    runTurn: async (message: unknown): Promise<ChildTurnResult> => {
      taking()
      const { uses, stopReason } = toolUsesOf(message)
      const voids = stopReason !== null && stopReason !== 'tool_use'
      const turn = open(scope, spec, call, { mode: 'batch', earlyStart: voids || signal.aborted ? 'none' : 'all' })
      for (const use of uses) turn.addIncoming(use)
      turn.attach(signal)
      turn.end(voids ? stopReason : 'tool_use')
      return resultOf(turn)
    },
    startTurn: (): ChildStreamTurn => {
      taking()
      const turn = open(scope, spec, call, signal.aborted ? { mode: 'stream', earlyStart: 'none' } : { mode: 'stream' })
      turn.attach(signal)
      return {
        turnId: turn.turnId,
        push: (event) => turn.push(event),
        pushOpenAI: (chunk) => turn.pushOpenAI(chunk),
        pushOpenAIResponses: (event) => turn.pushOpenAIResponses(event),
        end: (stopReason) => turn.end(stopReason),
        fail: (error) => turn.fail(error),
        result: () => resultOf(turn),
      }
    },
  }
}

/** A child turn's result once it is over (after every answer it waits for). */
async function resultOf(turn: TurnControl): Promise<ChildTurnResult> {
  const result = await turn.final()
  return {
    turnId: turn.turnId,
    message: projectTurnMessage(result.events, turn.turnId),
    events: result.events,
    aborted: result.events.some((event) => event.type === 'turn.aborted'),
  }
}
