/**
 * Telemetry as a projection: a pure reducer from the event log to span and metric records, named
 * after the OpenTelemetry GenAI conventions (`execute_tool {gen_ai.tool.name}`, kind INTERNAL).
 * It knows nothing of OpenTelemetry itself: `toolkernel/otel` turns the records into real spans
 * and histogram points, and the Chrome trace writer reads the same records. The same events give
 * the same records, live or from a stored log, so a re-export is the same trace.
 */
import type { EventOf, FailureCode, KernelEvent } from '../events/event.schema.js'
import { classOfToolErrorText, isErrorClass } from '../events/error-class.js'
import { isPersisted } from '../events/tool-call.steps.js'
import { MCP_RESOURCE_TOOLS, READ_MCP_RESOURCE } from '../events/mcp-resource-names.js'
export { ERRNO_CODES, isErrorClass, isErrorName } from '../events/error-class.js'

export type AttributeValue = string | number | boolean
export type Attributes = Record<string, AttributeValue>

/** A step of a call, as a span event: closed-set attributes only, never the model's or a tool's text. */
export interface SpanEventRecord {
  name: string
  atMs: number
  attributes: Attributes
}

/** One span to export. `key` names it (ids derive from it); `parentKey` is its parent (none: the turn's parent). */
export interface SpanRecord {
  key: string
  parentKey?: string
  kind: 'turn' | 'call' | 'hook' | 'permission'
  name: string
  turnId: string
  /** The key of the call's turn span (the root of a turn with no parent from the app). */
  turnKey: string
  /** When the call's turn started: the exporter opens the turn span at this time. */
  turnStartMs: number
  startMs: number
  endMs: number
  attributes: Attributes
  events: SpanEventRecord[]
  /** `error` spans carry `error.type` among their attributes. */
  status: 'ok' | 'error'
  /** Keys of the spans this one links to (a replayed span: its original). */
  links: string[]
  /**
   * A child turn's span (docs/subagents.md): its turn hangs from the parent call's span
   * (`parentKey`), in the trace of the outermost turn (`traceKey`).
   */
  under?: { parentKey: string; traceKey: string }
}

/** The histograms: the convention's duration, and the three waits no peer reports apart. */
export const METRICS = {
  duration: 'gen_ai.execute_tool.duration',
  queueWait: 'toolkernel.tool.queue.wait_time',
  permissionWait: 'toolkernel.tool.permission.wait_time',
  runTime: 'toolkernel.tool.run.duration',
} as const
export type MetricName = (typeof METRICS)[keyof typeof METRICS]

/** One histogram point, in seconds. */
export interface MetricRecord {
  name: MetricName
  value: number
  attributes: Attributes
}

export interface TelemetryRecords {
  spans: SpanRecord[]
  metrics: MetricRecord[]
}

export interface TelemetryOptions {
  /** Opt in to `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result` (the conventions' opt-in content). */
  captureContent?: boolean
  /** Characters of arguments and result kept (default 1024); longer values are cut and end with `…`. */
  maxContentChars?: number
  /** `gen_ai.tool.description` per tool name (the log does not record descriptions). */
  descriptions?: ReadonlyMap<string, string>
  /** `gen_ai.tool.type` per tool name. Default: `extension` for `mcp__…` tools, else `function`. */
  toolType?: (name: string) => string
  /** The events come from a re-execution replay: spans are marked, linked to the originals, and record no metrics. */
  replayed?: boolean
}

/** A reducer fed one event at a time; what it returns is finished (a call answered, a turn completed). */
export interface TelemetryReducer {
  apply(event: KernelEvent): TelemetryRecords
}

/**
 * `error.type` for each kernel failure code: the code itself, except `tool_error`, which
 * {@link toolErrorType} refines from what the tool threw.
 */
export const FAILURE_ERROR_TYPES: { readonly [C in FailureCode]: C } = {
  unknown_tool: 'unknown_tool',
  tool_disabled: 'tool_disabled',
  invalid_json: 'invalid_json',
  not_an_object: 'not_an_object',
  invalid_input: 'invalid_input',
  validate_input: 'validate_input',
  hook_blocked: 'hook_blocked',
  permission_denied: 'permission_denied',
  tool_error: 'tool_error',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  internal: 'internal',
  timed_out: 'timed_out',
}

/**
 * `error.type` of a tool's thrown error: the class `tool.errored` records (classifyToolError at
 * the call step: a TelemetrySafeError's class, an errno code, the error's name, `Error`); logs
 * older than that field are read from the model-facing text, taking only an errno code or an
 * error name, so no free text reaches a label.
 */
export function toolErrorType(event: EventOf<'tool.errored'>): string {
  if (event.errorClass !== undefined && isErrorClass(event.errorClass)) return event.errorClass
  return classOfToolErrorText(event.message)
}

/**
 * The telemetry of a whole log.
 *
 * @example
 * const { spans, metrics } = projectTelemetry(parseJsonl(text).events)
 */
export function projectTelemetry(events: readonly KernelEvent[], options: TelemetryOptions = {}): TelemetryRecords {
  const reducer = createTelemetryReducer(options)
  const out: TelemetryRecords = { spans: [], metrics: [] }
  for (const event of events) {
    const { spans, metrics } = reducer.apply(event)
    for (const span of spans) out.spans.push(span)
    for (const metric of metrics) out.metrics.push(metric)
  }
  return out
}

interface HookRun {
  phase: 'pre' | 'post'
  hook: string
  outcome: string
  decision?: string
  exitCode?: number | null
  startMs: number
  endMs: number
}

interface CallState {
  turnId: string
  toolUseId: string
  index: number
  requestedName: string
  tool?: string
  input: unknown
  requestedAt: number
  queuedAt?: number
  dispatchedAt?: number
  startedAt?: number
  runEndAt?: number
  /** The last step boundary: where the next hook phase starts. */
  stepAt: number
  permission?: { requestedAt: number; endAt?: number; behavior?: string; source?: string; scope?: string }
  decision?: { behavior: string; source: string }
  /** What the call says about itself, from its permission decision (absent in older logs). */
  flags?: EventOf<'tool.permitted'>['flags']
  hooks: HookRun[]
  events: SpanEventRecord[]
  progress: number
  errorType?: string
  failedStep?: string
  persisted: boolean
}

interface TurnState {
  startMs: number
  mode: string
  calls: number
  failed: number
}

/** Creates a reducer. Pure: its records depend only on the events it was given, in order. */
export function createTelemetryReducer(options: TelemetryOptions = {}): TelemetryReducer {
  const turns = new Map<string, TurnState>()
  // By turn, then id: the same tool_use id may come back in a later turn.
  const calls = new Map<string, Map<string, CallState>>()
  // The MCP tools the pool took in (pool.changed `names`): their calls carry the MCP attributes.
  const mcp = new Map<string, { server: string; tool: string }>()
  const resources = new Set<string>()
  // Child turns: the parent call each hangs from, and the outermost turn (whose trace they join).
  const nesting = new Map<string, { parentKey: string; traceKey: string; root: string }>()
  const nest = (records: TelemetryRecords, turnId: string): TelemetryRecords => {
    const under = nesting.get(turnId)
    if (under !== undefined)
      for (const span of records.spans) span.under = { parentKey: under.parentKey, traceKey: under.traceKey }
    if (records.spans.some((span) => span.kind === 'turn')) nesting.delete(turnId)
    return records
  }
  return {
    apply(event) {
      if (event.type === 'turn.started' && event.child !== undefined && event.parentToolUseId !== undefined) {
        const root = nesting.get(event.child.parentTurnId)?.root ?? event.child.parentTurnId
        nesting.set(event.turnId, {
          parentKey: keyOf(options, `call|${event.child.parentTurnId}|${event.parentToolUseId}`),
          traceKey: keyOf(options, `turn|${root}`),
          root,
        })
      }
      if (event.type === 'pool.changed') {
        for (const name of event.removed) mcp.delete(name)
        for (const { name, server, tool } of event.names ?? []) mcp.set(name, { server, tool })
        // The resource tools a tool source (the MCP source, never the app) added: MCP requests too.
        for (const name of event.removed) resources.delete(name)
        if (event.source !== 'app')
          for (const name of event.added) if (MCP_RESOURCE_TOOLS.includes(name)) resources.add(name)
      }
      if (!('toolUseId' in event)) return nest(applyTurnEvent(event, turns, calls, options), event.turnId)
      let open = calls.get(event.turnId)
      if (event.type === 'tool.requested') {
        if (open === undefined) calls.set(event.turnId, (open = new Map()))
        open.set(event.toolUseId, requested(event))
        return NOTHING
      }
      const call = open?.get(event.toolUseId)
      if (call === undefined) return NOTHING
      applyCallEvent(call, event)
      if (event.type !== 'tool.result') return NOTHING
      open?.delete(event.toolUseId)
      const turn = turns.get(event.turnId)
      if (turn !== undefined) {
        turn.calls += 1
        if (event.outcome !== 'success') turn.failed += 1
      }
      const out: TelemetryRecords = { spans: [], metrics: [] }
      const name = call.tool ?? call.requestedName
      const request = resources.has(name) ? resourceRequest(name, call.input) : mcp.get(name)
      finishCall(call, event, turn?.startMs ?? call.requestedAt, options, out, request)
      return nest(out, event.turnId)
    },
  }
}

/** What most events finish: nothing (shared, so the reducer allocates nothing for them). */
const NOTHING: TelemetryRecords = Object.freeze({ spans: Object.freeze([]), metrics: Object.freeze([]) }) as never

function applyTurnEvent(
  event: KernelEvent,
  turns: Map<string, TurnState>,
  calls: Map<string, Map<string, CallState>>,
  o: TelemetryOptions,
): TelemetryRecords {
  if (event.type === 'turn.started') {
    turns.set(event.turnId, { startMs: event.at, mode: event.mode, calls: 0, failed: 0 })
    return NOTHING
  }
  const turn = turns.get(event.turnId)
  if (event.type !== 'turn.completed' || turn === undefined) return NOTHING
  turns.delete(event.turnId)
  calls.delete(event.turnId)
  const attributes: Attributes = {
    'toolkernel.turn.id': event.turnId,
    'toolkernel.turn.mode': turn.mode,
    'toolkernel.turn.calls': turn.calls,
    'toolkernel.turn.failed_calls': turn.failed,
  }
  if (o.replayed === true) attributes['toolkernel.replayed'] = true
  const span: SpanRecord = {
    key: keyOf(o, `turn|${event.turnId}`),
    turnKey: keyOf(o, `turn|${event.turnId}`),
    kind: 'turn',
    name: 'toolkernel.turn',
    turnId: event.turnId,
    turnStartMs: turn.startMs,
    startMs: turn.startMs,
    endMs: event.at,
    attributes,
    events: [],
    status: 'ok',
    links: o.replayed === true ? [`turn|${event.turnId}`] : [],
  }
  return { spans: [span], metrics: [] }
}

function requested(event: EventOf<'tool.requested'>): CallState {
  return {
    turnId: event.turnId,
    toolUseId: event.toolUseId,
    index: event.index,
    requestedName: event.name,
    input: event.inputError === undefined ? event.input : String(event.input),
    requestedAt: event.at,
    stepAt: event.at,
    hooks: [],
    events: [{ name: event.type, atMs: event.at, attributes: { 'toolkernel.call.index': event.index } }],
    progress: 0,
    persisted: false,
  }
}

/** Folds one of the call's own events into its state. */
function applyCallEvent(call: CallState, event: KernelEvent): void {
  if (event.type === 'tool.progress') {
    // Progress can come thousands of times: counted, not one span event each.
    call.progress += 1
    return
  }
  call.events.push({ name: event.type, atMs: event.at, attributes: stepAttributes(event) })
  switch (event.type) {
    case 'tool.queued':
      call.queuedAt = event.at
      return
    case 'tool.dispatched':
      call.dispatchedAt = event.at
      return
    case 'tool.parsed':
      call.tool = event.tool
      call.stepAt = event.at
      return
    case 'tool.validated':
    case 'tool.hooked':
      call.stepAt = event.at
      return
    case 'hook.finished':
      call.hooks.push(hookRun(call, event))
      return
    case 'permission.requested':
      call.permission = { requestedAt: event.at }
      return
    case 'permission.granted':
      if (call.permission !== undefined) call.permission.scope = event.scope
      return
    default:
      applyOutcomeEvent(call, event)
  }
}

function applyOutcomeEvent(call: CallState, event: KernelEvent): void {
  switch (event.type) {
    case 'permission.pending':
      if (event.flags !== undefined) call.flags = event.flags
      return
    case 'tool.permitted':
      call.decision = { behavior: event.behavior, source: event.source }
      if (event.flags !== undefined) call.flags = event.flags
      closePermission(call, event.at, event.behavior, event.source)
      call.stepAt = event.at
      return
    case 'tool.started':
      call.startedAt = event.at
      return
    case 'tool.completed':
      call.runEndAt = event.at
      call.persisted = isPersisted(event)
      return
    case 'tool.errored':
      call.runEndAt = event.at
      call.errorType = toolErrorType(event)
      call.failedStep = 'call'
      return
    case 'tool.timed_out':
      call.runEndAt = event.at
      call.errorType = FAILURE_ERROR_TYPES.timed_out
      call.failedStep = 'call'
      return
    case 'tool.rejected':
      call.errorType = FAILURE_ERROR_TYPES[event.code]
      call.failedStep = event.step
      if (event.step === 'permission') closePermission(call, event.at, 'deny', undefined)
      return
    case 'tool.cancelled': {
      const running = call.startedAt !== undefined && call.runEndAt === undefined
      if (running) call.runEndAt = event.at
      call.errorType = running ? 'interrupted' : 'cancelled'
      call.failedStep = event.step
      closePermission(call, event.at, undefined, undefined)
      return
    }
    case 'tool.mapped':
      call.stepAt = event.at
      // An error block with no failure before it: the tool's mapper answered with an error (or failed).
      if (event.isError && call.errorType === undefined) call.errorType = 'tool_error'
      return
    default:
      return
  }
}

function closePermission(call: CallState, at: number, behavior: string | undefined, source: string | undefined): void {
  const wait = call.permission
  if (wait === undefined || wait.endAt !== undefined) return
  wait.endAt = at
  if (behavior !== undefined) wait.behavior = behavior
  if (source !== undefined) wait.source = source
}

function hookRun(call: CallState, event: EventOf<'hook.finished'>): HookRun {
  // Matched hooks start together when their step starts: at the step boundary before them.
  const run: HookRun = {
    phase: event.phase,
    hook: event.hook,
    outcome: event.outcome,
    startMs: call.stepAt,
    endMs: event.at,
  }
  if (event.decision !== undefined) run.decision = event.decision
  if (event.exitCode !== undefined) run.exitCode = event.exitCode
  return run
}

/**
 * The attributes of a step's span event: the closed-set fields of its event (never a reason, a
 * message or input). One case per type: this runs for every event of every call.
 */
function stepAttributes(event: KernelEvent): Attributes {
  switch (event.type) {
    case 'tool.queued':
      return { 'toolkernel.safe': event.safe }
    case 'tool.dispatched':
      return { 'toolkernel.batch': event.batch, 'toolkernel.running': event.running }
    case 'tool.hooked':
      return { 'toolkernel.hook.phase': event.phase, 'toolkernel.outcome': event.outcome }
    case 'hook.finished': {
      const attributes: Attributes = { 'toolkernel.hook.phase': event.phase, 'toolkernel.outcome': event.outcome }
      if (typeof event.exitCode === 'number') attributes['toolkernel.hook.exit_code'] = event.exitCode
      return attributes
    }
    case 'permission.granted':
      return { 'toolkernel.permission.scope': event.scope }
    case 'tool.permitted':
      return { 'toolkernel.permission.behavior': event.behavior, 'toolkernel.permission.source': event.source }
    case 'tool.rejected':
      return { 'toolkernel.step': event.step, 'toolkernel.failure.code': event.code }
    case 'tool.cancelled':
      return { 'toolkernel.step': event.step }
    case 'tool.timed_out':
      return { 'toolkernel.timeout_ms': event.timeoutMs }
    case 'tool.retrying':
      return { 'toolkernel.attempt': event.attempt, 'toolkernel.delay_ms': event.delayMs }
    case 'tool.restarted':
      return { 'toolkernel.attempt': event.attempt }
    case 'tool.mapped':
      return { 'toolkernel.is_error': event.isError }
    case 'tool.result':
      return { 'toolkernel.outcome': event.outcome }
    default:
      return NO_ATTRIBUTES
  }
}

const NO_ATTRIBUTES: Attributes = Object.freeze({}) as Attributes

/** A replayed span gets its own key, so its id never collides with the original's. */
function keyOf(options: TelemetryOptions, key: string): string {
  return options.replayed === true ? `replay|${key}` : key
}

/** An MCP request a call stands for: a server's tool (tools/call), or a resource tool's request. */
interface McpRequest {
  readonly method?: 'resources/list' | 'resources/read'
  readonly server?: string | undefined
  readonly tool?: string
  readonly uri?: string | undefined
}

/** ListMcpResources and ReadMcpResource as MCP requests: the server and uri from the call's input. */
function resourceRequest(name: string, input: unknown): McpRequest {
  const field = (key: string) => {
    const value = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined
    return typeof value === 'string' ? value : undefined
  }
  return name === READ_MCP_RESOURCE
    ? { method: 'resources/read', server: field('server'), uri: field('uri') }
    : { method: 'resources/list', server: field('server') }
}

/** The call's spans (itself, its hooks, its permission wait) and its metric points. */
function finishCall(
  call: CallState,
  result: EventOf<'tool.result'>,
  turnStartMs: number,
  o: TelemetryOptions,
  out: TelemetryRecords,
  mcp?: McpRequest,
): void {
  const name = (call.tool ?? call.requestedName).slice(0, 64)
  // An error block is an error for telemetry even when no step failed (a mapper may answer with one).
  const failed = result.outcome !== 'success' || result.block.is_error === true
  const errorType = failed
    ? (call.errorType ?? (result.outcome === 'success' ? 'tool_error' : result.outcome))
    : undefined
  const base = `call|${call.turnId}|${call.toolUseId}`
  const key = keyOf(o, base)
  const attributes = callAttributes(call, result, name, errorType, o)
  if (mcp !== undefined) {
    // The MCP conventions' request, as far as the log knows it: the method, and which server and
    // tool (or resource) the name stands for (session id and transport are the connection's, not
    // in the log).
    attributes['mcp.method.name'] = mcp.method ?? 'tools/call'
    if (mcp.server !== undefined) attributes['toolkernel.mcp.server'] = mcp.server
    if (mcp.tool !== undefined) attributes['toolkernel.mcp.tool'] = mcp.tool
    if (mcp.uri !== undefined) attributes['mcp.resource.uri'] = mcp.uri
  }
  const span: SpanRecord = {
    key,
    turnKey: keyOf(o, `turn|${call.turnId}`),
    kind: 'call',
    name: `execute_tool ${name}`,
    turnId: call.turnId,
    turnStartMs,
    startMs: call.requestedAt,
    endMs: result.at,
    attributes,
    events: call.events,
    status: errorType === undefined ? 'ok' : 'error',
    links: o.replayed === true ? [base] : [],
  }
  out.spans.push(span)
  for (const child of childSpans(call, span, o)) out.spans.push(child)
  if (o.replayed !== true) pushMetrics(call, result.at, name, attributes, out)
}

function callAttributes(
  call: CallState,
  result: EventOf<'tool.result'>,
  name: string,
  errorType: string | undefined,
  o: TelemetryOptions,
): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.id': call.toolUseId,
    'gen_ai.tool.type': (o.toolType ?? defaultToolType)(name),
  }
  const description = o.descriptions?.get(name)
  if (description !== undefined) attributes['gen_ai.tool.description'] = description
  if (o.captureContent === true) {
    const max = o.maxContentChars ?? 1024
    attributes['gen_ai.tool.call.arguments'] = cut(typeof call.input === 'string' ? call.input : json(call.input), max)
    attributes['gen_ai.tool.call.result'] = cut(resultText(result.block.content), max)
  }
  if (errorType !== undefined) attributes['error.type'] = errorType
  attributes['toolkernel.turn.id'] = call.turnId
  attributes['toolkernel.call.index'] = call.index
  attributes['toolkernel.call.outcome'] = result.outcome
  if (call.failedStep !== undefined) attributes['toolkernel.call.failed_step'] = call.failedStep
  if (call.decision !== undefined) {
    attributes['toolkernel.permission.behavior'] = call.decision.behavior
    attributes['toolkernel.permission.source'] = call.decision.source
  }
  if (call.flags !== undefined) flagAttributes(call.flags, attributes, o.captureContent === true)
  if (call.progress > 0) attributes['toolkernel.call.progress_events'] = call.progress
  if (call.persisted) attributes['toolkernel.result.persisted'] = true
  if (o.replayed === true) attributes['toolkernel.replayed'] = true
  return attributes
}

/**
 * The call's flags as attributes; its names for people (the activity carries a path or a
 * command) only where content is captured.
 */
function flagAttributes(flags: NonNullable<CallState['flags']>, attributes: Attributes, content: boolean): void {
  attributes['toolkernel.tool.read_only'] = flags.readOnly
  attributes['toolkernel.tool.destructive'] = flags.destructive
  attributes['toolkernel.tool.open_world'] = flags.openWorld
  if (!content) return
  attributes['toolkernel.tool.user_facing_name'] = flags.userFacingName
  attributes['toolkernel.tool.activity'] = flags.activity
}

function childSpans(call: CallState, parent: SpanRecord, o: TelemetryOptions): SpanRecord[] {
  const child = (suffix: string, kind: SpanRecord['kind'], name: string, startMs: number, endMs: number) => ({
    key: `${parent.key}|${suffix}`,
    parentKey: parent.key,
    turnKey: parent.turnKey,
    kind,
    name,
    turnId: call.turnId,
    turnStartMs: parent.turnStartMs,
    startMs,
    endMs,
    events: [],
    links: o.replayed === true ? [`${parent.links[0] ?? ''}|${suffix}`] : [],
  })
  const spans: SpanRecord[] = call.hooks.map((run, i) => {
    const attributes: Attributes = {
      'toolkernel.hook.phase': run.phase,
      'toolkernel.hook.name': run.hook.slice(0, 200),
    }
    attributes['toolkernel.hook.outcome'] = run.outcome
    if (run.decision !== undefined) attributes['toolkernel.hook.decision'] = run.decision
    if (typeof run.exitCode === 'number') attributes['toolkernel.hook.exit_code'] = run.exitCode
    if (run.outcome !== 'continue') attributes['error.type'] = run.outcome === 'block' ? 'hook_blocked' : 'hook_error'
    const name = run.phase === 'pre' ? 'toolkernel.hook PreToolUse' : 'toolkernel.hook PostToolUse'
    const span = child(`hook|${i}`, 'hook', name, run.startMs, run.endMs)
    return { ...span, attributes, status: run.outcome === 'continue' ? 'ok' : 'error' }
  })
  const wait = call.permission
  if (wait !== undefined) {
    const attributes: Attributes = {}
    if (wait.behavior !== undefined) attributes['toolkernel.permission.behavior'] = wait.behavior
    if (wait.source !== undefined) attributes['toolkernel.permission.source'] = wait.source
    if (wait.scope !== undefined) attributes['toolkernel.permission.scope'] = wait.scope
    const end = wait.endAt ?? parent.endMs
    spans.push({
      ...child('permission', 'permission', 'toolkernel.permission_wait', wait.requestedAt, end),
      attributes,
      status: 'ok',
    })
  }
  return spans
}

function pushMetrics(call: CallState, endMs: number, name: string, span: Attributes, out: TelemetryRecords): void {
  const common: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.type': span['gen_ai.tool.type'] ?? 'function',
  }
  const withError: Attributes =
    span['error.type'] === undefined ? common : { ...common, 'error.type': span['error.type'] }
  const seconds = (from: number, to: number) => Math.max(0, to - from) / 1000
  out.metrics.push({ name: METRICS.duration, value: seconds(call.requestedAt, endMs), attributes: withError })
  if (call.dispatchedAt !== undefined)
    out.metrics.push({
      name: METRICS.queueWait,
      value: seconds(call.queuedAt ?? call.requestedAt, call.dispatchedAt),
      attributes: common,
    })
  const wait = call.permission
  if (wait?.endAt !== undefined) {
    const attributes =
      wait.behavior === undefined ? common : { ...common, 'toolkernel.permission.behavior': wait.behavior }
    out.metrics.push({ name: METRICS.permissionWait, value: seconds(wait.requestedAt, wait.endAt), attributes })
  }
  if (call.startedAt !== undefined && call.runEndAt !== undefined)
    out.metrics.push({ name: METRICS.runTime, value: seconds(call.startedAt, call.runEndAt), attributes: withError })
}

function defaultToolType(name: string): string {
  return name.startsWith('mcp__') ? 'extension' : 'function'
}

function resultText(content: EventOf<'tool.result'>['block']['content']): string {
  if (typeof content === 'string') return content
  return content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n')
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null'
  } catch {
    return String(value)
  }
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`
}
