/**
 * `checkToolLayer`: the app's own kernel configuration — its tools, hooks, rules, mode — run over
 * random turns with faults injected around each tool, checked against the promises toolkernel
 * makes (and the app's own intent). On a failure it gives the shrunk counterexample as a runnable
 * assistant message, with the seed and path that reproduce it.
 */
import fc from 'fast-check'
import { createMemoryLog } from '../adapters/memory-log.store.js'
import { callKey } from '../events/call-key.js'
import { STEP_TABLE } from '../events/tool-call.steps.js'
import type { KernelEvent } from '../events/event.schema.js'
import { createKernel, DEFAULT_MAX_CONCURRENCY, type KernelOptions } from '../kernel.js'
import type { TurnResult } from '../actors/turn/turn.types.js'
import { openTurns, recover } from '../events/recovery.js'
import { replay } from '../replay/replay.js'
import type { Tool } from '../tools/tool.types.js'
import { guarded } from '../util/guarded.js'
import {
  instrumentHooks,
  instrumentTools,
  type Fault,
  type Probe,
  type ProbedCall,
  type ProbedHook,
} from './instrumented-tools.js'
import { canonicalJson } from '../util/canonical-json.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'
import {
  anthropicStreams,
  assistantMessagesWith,
  MESSAGE_OPTIONS,
  openAIChatStreams,
  toolUsesOf,
  type ArbitraryAssistantMessage,
  type MessageOptions,
} from './message.arbitrary.js'

/** A kernel configuration as the app writes it (the log is the harness's own). */
export type ToolLayerConfig = Omit<KernelOptions, 'log' | 'tools'> & { tools: readonly Tool[] }

/** How a turn reaches the kernel: a whole message, or a stream in one of the wire formats. */
export type TurnMode = 'batch' | 'anthropic-stream' | 'openai-stream'

export interface CheckToolLayerOptions extends MessageOptions {
  /** Random turns to run. Default 25. */
  numRuns?: number
  /** Reproduce a failure: the seed (and path) a failure printed. */
  seed?: number
  path?: string
  /** Inject faults around the tools (throws, hangs that only an abort ends, huge output). Default true. */
  faults?: boolean
  /** Abort some turns as a call starts. Default true. */
  aborts?: boolean
  /** The ways turns reach the kernel. Default all three. */
  modes?: readonly TurnMode[]
  /** A turn must finish within this. Default 10,000 ms. */
  turnTimeoutMs?: number
  /** After an abort, the turn must answer within this. Default 2,000 ms. */
  abortBoundMs?: number
  /** After a turn's result, every call it started must have stopped within this. Default 500 ms. */
  settleMs?: number
  /**
   * The app's intent, checked against what really ran: a reason when this call must never reach
   * its tool's `call` (e.g. "git writes need a person"), else undefined.
   */
  mustNotRun?: (call: { name: string; input: unknown }) => string | undefined
  /**
   * Run each fault-free turn a second time with one call at a time and compare: a tool that
   * claims to be concurrency-safe must answer the same. Needs `config` as a function (a fresh
   * world each run) and tools whose answers do not depend on the clock. Default: true when
   * `config` is a function.
   */
  differential?: boolean
  /** What to do on a failure: throw an Error with the report (default), or return it. */
  onFailure?: 'throw' | 'return'
}

export type ToolLayerReport =
  | { ok: true; runs: number }
  | { ok: false; violation: string; seed: number; path: string; counterexample: string; report: string }

interface Run {
  message: ArbitraryAssistantMessage
  mode: TurnMode
  stream: unknown[]
  /** Fault per tool_use, in order (drawn and shrunk with its call). */
  faults: Fault[]
  /** Abort the turn when the call at this start index begins. */
  abortAt: number | null
  /** Where to cut the log for the recovery check, as a share of its events. */
  cut: number
}

const CHECK_OPTIONS = [
  ...optionNames<Omit<CheckToolLayerOptions, keyof MessageOptions>>()(
    'numRuns',
    'seed',
    'path',
    'faults',
    'aborts',
    'modes',
    'turnTimeoutMs',
    'abortBoundMs',
    'settleMs',
    'mustNotRun',
    'differential',
    'onFailure',
  ),
  ...MESSAGE_OPTIONS,
]

const DEFAULTS = { numRuns: 25, turnTimeoutMs: 10_000, abortBoundMs: 2_000, settleMs: 500 }

/**
 * Property-tests a tool layer: every `tool_use` answered exactly once and in order, no unsafe
 * call beside another, the concurrency cap, an abort answered within a bound, calls that stop
 * when told, a log that recovers from a cut anywhere and replays without divergence, nothing the
 * app's intent forbids reaching a tool, and concurrency-safe claims that hold.
 *
 * @example
 * await checkToolLayer(() => ({ tools: [MyTool, Read], permissions: { allow: ['Read'] } }), {
 *   mustNotRun: ({ name }) => (name === 'Deploy' ? 'deploys need a person' : undefined),
 * })
 */
export async function checkToolLayer(
  config: ToolLayerConfig | (() => ToolLayerConfig),
  options: CheckToolLayerOptions = {},
): Promise<ToolLayerReport> {
  checkOptionsObject('checkToolLayer', options, CHECK_OPTIONS)
  const fresh = typeof config === 'function' ? config : () => config
  const tools = fresh().tools
  const runs = runArbitrary(tools, options)
  const property = fc.asyncProperty(runs, async (run) => {
    const violation = await checkRun(fresh, run, options, typeof config === 'function')
    if (violation instanceof ChangedAnswer) throw violation
    if (violation !== undefined) throw new Error(violation)
  })
  const details = await fc.check(property, {
    numRuns: options.numRuns ?? DEFAULTS.numRuns,
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.path !== undefined ? { path: options.path } : {}),
  })
  if (!details.failed) return { ok: true, runs: details.numRuns }
  // Blame once, on the shrunk run: which call's effect changed the answer (re-runs, so not per shrink step).
  const run = details.counterexample?.[0]
  const error = details.errorInstance
  const violation =
    error instanceof ChangedAnswer && run !== undefined ? await blame(fresh, run, error) : errorText(error)
  const failure = failureReport(details, violation)
  if ((options.onFailure ?? 'throw') === 'throw') throw new Error(failure.report)
  return failure
}

function runArbitrary(tools: readonly Tool[], options: CheckToolLayerOptions): fc.Arbitrary<Run> {
  const maxCalls = options.maxCalls ?? 6
  const fault: fc.Arbitrary<Fault> =
    options.faults === false
      ? fc.constant('none')
      : fc.oneof(
          // Cross-shrinking lets a fault the failure does not need shrink to 'none'.
          { withCrossShrink: true },
          { weight: 14, arbitrary: fc.constant<Fault>('none') },
          { weight: 2, arbitrary: fc.constant<Fault>('throw') },
          { weight: 2, arbitrary: fc.constant<Fault>('hang') },
          { weight: 2, arbitrary: fc.constant<Fault>('huge') },
        )
  const modes = options.modes ?? ['batch', 'anthropic-stream', 'openai-stream']
  if (modes.length === 0) throw new Error('checkToolLayer: options.modes is empty; leave it out to use all three')
  return fc
    .record({
      drawn: assistantMessagesWith(tools, options, fault),
      mode: fc.constantFrom(...modes),
      abortAt: options.aborts === false ? fc.constant(null) : fc.option(fc.nat({ max: maxCalls }), { freq: 2 }),
      cut: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map(({ drawn, ...rest }) => ({ ...rest, message: drawn.message, faults: drawn.extras }))
    .chain((run) => {
      const stream =
        run.mode === 'anthropic-stream'
          ? anthropicStreams(run.message)
          : run.mode === 'openai-stream'
            ? openAIChatStreams(run.message)
            : fc.constant<unknown[]>([])
      return stream.map((events): Run => ({ ...run, stream: events }))
    })
}

/** One random turn, and every check on it; the first violation found, if any. */
async function checkRun(
  fresh: () => ToolLayerConfig,
  run: Run,
  options: CheckToolLayerOptions,
  isFactory: boolean,
): Promise<string | ChangedAnswer | undefined> {
  const config = fresh()
  const executed = await execute(config, run, options)
  if (typeof executed === 'string') return executed
  const { result, events, probe } = executed
  const checks = [
    () => probe.violations[0],
    () => pairing(run.message, result),
    () => cutOffRan(run, probe),
    () => intent(probe, options),
    () => recoveryLeavesNothingOpen(events, run.cut),
  ]
  for (const check of checks) {
    const violation = check()
    if (violation !== undefined) return violation
  }
  const replayed = await replay(events, {
    tools: config.tools,
    ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
  })
  if (!replayed.ok) return `replaying the log diverged: ${replayed.divergence.message}`
  const differential = options.differential ?? isFactory
  if (differential && isFactory && cleanRun(run, probe)) return await concurrencyClaims(fresh, run, result, probe)
  return undefined
}

interface Executed {
  result: TurnResult
  events: readonly KernelEvent[]
  probe: Probe
}

async function execute(config: ToolLayerConfig, run: Run, options: CheckToolLayerOptions): Promise<Executed | string> {
  const uses = toolUsesOf(run.message)
  const cancels = new Set(
    config.tools.filter((t) => guarded(() => t.interruptBehavior() === 'cancel', false)).map((t) => t.name),
  )
  // A hang ends only by an abort, and only a 'cancel' tool is told of one: 'block' tools do not hang.
  const faultAt = (i: number, name: string): Fault => {
    const fault = run.faults[i] ?? 'none'
    return fault === 'hang' && !cancels.has(name) ? 'none' : fault
  }
  const faults = new Map(uses.map((use, i) => [use.id, faultAt(i, use.name)]))
  const cap = config.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY
  const { tools, probe } = instrumentTools(config.tools, cap, (id) => faults.get(id) ?? 'none')
  const hookRuns: ProbedHook[] = []
  const hooks = instrumentHooks(config.hooks, hookRuns)
  const log = createMemoryLog()
  // An ask nobody answers is denied, not parked, unless the configuration says otherwise: a run
  // checks turns that end (docs/approvals.md).
  const kernel = createKernel({ approvals: 'deny', ...config, tools, log, ...(hooks !== undefined ? { hooks } : {}) })
  const controller = new AbortController()
  let abortedAt: number | undefined
  const abort = (): void => {
    if (controller.signal.aborted) return
    abortedAt = performance.now()
    controller.abort(new Error('aborted by checkToolLayer'))
  }
  probe.onStart = (call, index) => {
    // A hang ends only by an abort, so a hang is always followed by one.
    if (index === run.abortAt || call.fault === 'hang') queueMicrotask(abort)
  }
  const turn = startTurn(kernel, run, controller.signal)
  const timeout = options.turnTimeoutMs ?? DEFAULTS.turnTimeoutMs
  const result = await within(turn, timeout)
  if (result === undefined) {
    abort()
    return `the turn did not finish within ${timeout} ms; still open: ${openCalls(log.read())}`
  }
  const bound = options.abortBoundMs ?? DEFAULTS.abortBoundMs
  if (abortedAt !== undefined && performance.now() - abortedAt > bound)
    return `after the abort the turn took more than ${bound} ms to answer`
  const settle = options.settleMs ?? DEFAULTS.settleMs
  const unsettled = await settled(probe, hookRuns, settle)
  if (unsettled !== undefined) return unsettled
  return { result, events: log.read(), probe }
}

function startTurn(kernel: ReturnType<typeof createKernel>, run: Run, signal: AbortSignal): Promise<TurnResult> {
  // The message is the Anthropic shape runTurn reads; typed apart so the kit does not restate the intake types.
  if (run.mode === 'batch')
    return kernel.runTurn(run.message as unknown as Parameters<typeof kernel.runTurn>[0], { signal })
  const turn = kernel.startTurn({ signal })
  for (const event of run.stream) {
    if (signal.aborted) break
    if (run.mode === 'anthropic-stream') turn.push(event)
    else turn.pushOpenAI(event)
  }
  if (!signal.aborted) turn.end()
  return turn.result()
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Waits up to `ms` for every started call and hook to stop; says which did not, and why that matters. */
async function settled(probe: Probe, hooks: readonly ProbedHook[], ms: number): Promise<string | undefined> {
  const deadline = performance.now() + ms
  const busy = (): boolean => probe.calls.some((c) => !c.settled) || hooks.some((h) => !h.settled)
  while (busy() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  const hook = hooks.find((h) => !h.settled)
  if (hook !== undefined)
    return hook.aborted
      ? `the hook ${hook.label} was still running ${ms} ms after its signal fired (its timeout or an abort): ` +
          'it ignores options.signal and runs on unseen'
      : `the hook ${hook.label} was still running ${ms} ms after the turn answered`
  const running = probe.calls.find((c) => !c.settled)
  if (running === undefined) return undefined
  if (running.aborted && running.interruptBehavior === 'cancel')
    return (
      `${running.name} (${running.toolUseId}) declares interruptBehavior 'cancel' but was still running ` +
      `${ms} ms after its signal fired: its call ignores ctx.signal`
    )
  return `${running.name} (${running.toolUseId}) was still running ${ms} ms after the turn answered`
}

function openCalls(events: readonly KernelEvent[]): string {
  const calls = [...openTurns(events).values()].flatMap((turn) => [...turn.calls.values()])
  const open = calls.filter((call) => !call.position.answered)
  return open.length === 0
    ? 'no call (the turn itself hangs)'
    : open.map((call) => `${call.name} ${STEP_TABLE[call.position.step].doing}`).join('; ')
}

function pairing(message: ArbitraryAssistantMessage, result: TurnResult): string | undefined {
  if (result.discarded) return undefined
  const asked = toolUsesOf(message).map((use) => use.id)
  const answered = result.message.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id)
  if (JSON.stringify(asked) === JSON.stringify(answered)) return undefined
  return `tool_use ids ${JSON.stringify(asked)} were answered as ${JSON.stringify(answered)} (each once, in order)`
}

/** A message cut off (stop reason other than tool use) may have started only safe calls early. */
function cutOffRan(run: Run, probe: Probe): string | undefined {
  if (run.message.stop_reason === 'tool_use') return undefined
  const ran = probe.calls.filter((c) => run.mode === 'batch' || !c.safe)
  if (ran.length === 0) return undefined
  return `a message cut off (stop_reason ${run.message.stop_reason}) ran ${ran.map((c) => c.name).join(', ')}`
}

function intent(probe: Probe, options: CheckToolLayerOptions): string | undefined {
  if (options.mustNotRun === undefined) return undefined
  for (const call of probe.calls) {
    const reason = options.mustNotRun({ name: call.name, input: call.input })
    if (reason !== undefined)
      return `${call.name} ran with ${JSON.stringify(call.input)}, which must never run (${reason}): the rules let it through`
  }
  return undefined
}

function recoveryLeavesNothingOpen(events: readonly KernelEvent[], cut: number): string | undefined {
  const at = Math.floor(cut * events.length)
  const prefix = events.slice(0, at)
  const answered = new Set<string>()
  for (const event of [...prefix, ...recover(prefix)])
    if (event.type === 'tool.result') answered.add(callKey(event.turnId, event.toolUseId))
  const open = prefix.filter((e) => e.type === 'tool.requested' && !answered.has(callKey(e.turnId, e.toolUseId)))
  if (open.length === 0) return undefined
  return `after cutting the log at event ${at} of ${events.length}, recovery left ${open.length} call(s) unanswered`
}

function cleanRun(run: Run, probe: Probe): boolean {
  return run.message.stop_reason === 'tool_use' && probe.calls.every((c) => c.fault === 'none' && !c.aborted)
}

/**
 * A concurrency-safe call whose answer changed when it ran beside others: the call that changed
 * (not yet the one to blame), its answer both ways, and the calls that ran in the turn.
 */
class ChangedAnswer extends Error {
  constructor(
    readonly changed: ProbedCall,
    readonly beside: string,
    readonly alone: string,
    readonly calls: readonly ProbedCall[],
  ) {
    super(
      `${changed.name} claims to be concurrency-safe, but its answer changes when it runs alone ` +
        `(beside others: ${beside.slice(0, 200)}; alone: ${alone.slice(0, 200)}): it shares state with the calls beside it`,
    )
  }
}

/** The same turn, one call at a time, in a fresh world: concurrency-safe calls must answer the same. */
async function concurrencyClaims(
  fresh: () => ToolLayerConfig,
  run: Run,
  parallel: TurnResult,
  probe: Probe,
): Promise<string | ChangedAnswer | undefined> {
  const serial = await execute({ ...fresh(), maxConcurrency: 1 }, { ...run, mode: 'batch', abortAt: null }, {})
  if (typeof serial === 'string') return `run again one call at a time: ${serial}`
  const alone = answers(serial.result)
  for (const block of parallel.message.content) {
    const call = probe.calls.find((c) => c.toolUseId === block.tool_use_id)
    if (call === undefined || !call.safe) continue
    const mine = JSON.stringify(block.content)
    if (alone.get(block.tool_use_id) !== mine)
      return new ChangedAnswer(call, mine, alone.get(block.tool_use_id) ?? '', probe.calls)
  }
  return undefined
}

function answers(result: TurnResult): Map<string, string> {
  return new Map(result.message.content.map((b) => [b.tool_use_id, JSON.stringify(b.content)]))
}

/**
 * Who broke the claim. The call whose answer changed is often innocent — a reader beside a writer
 * that claims to be safe. So the turn runs again once per other concurrency-safe call, with that
 * call alone (the scheduler runs it by itself, the others still beside each other): the call
 * whose running alone gives the changed call its one-at-a-time answer back is the culprit. When
 * no single call does, the changed call itself is named.
 */
async function blame(fresh: () => ToolLayerConfig, run: Run, found: ChangedAnswer): Promise<string> {
  const { changed } = found
  const suspects = found.calls.filter((c) => c.safe && c.toolUseId !== changed.toolUseId)
  for (const suspect of suspects) {
    const config = fresh()
    const tools = config.tools.map((tool) => (tool.name === suspect.name ? runsAlone(tool, suspect.input) : tool))
    const executed = await execute({ ...config, tools }, { ...run, mode: 'batch', abortAt: null }, {})
    if (typeof executed === 'string') continue
    if (answers(executed.result).get(changed.toolUseId) !== found.alone) continue
    return (
      `${suspect.name} (${suspect.toolUseId}) claims to be concurrency-safe, but running beside it changes what ` +
      `${changed.name} (${changed.toolUseId}) answers (beside it: ${found.beside.slice(0, 200)}; ` +
      `with ${suspect.name} run alone: ${found.alone.slice(0, 200)}): ${suspect.name} changes state the calls beside it see`
    )
  }
  return found.message
}

/** `tool` as it is, except that a call with this input claims not to be concurrency-safe (so it runs alone). */
function runsAlone(tool: Tool, input: unknown): Tool {
  const key = canonicalJson(input)
  const alone = Object.create(tool) as Tool
  const isConcurrencySafe: Tool['isConcurrencySafe'] = (given, context) =>
    canonicalJson(given) === key ? false : tool.isConcurrencySafe(given, context)
  Object.defineProperty(alone, 'isConcurrencySafe', { value: isConcurrencySafe, enumerable: true })
  return alone
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function failureReport(details: fc.RunDetails<[Run]>, violation: string): ToolLayerReport & { ok: false } {
  const run = details.counterexample?.[0]
  const seed = details.seed
  const path = details.counterexamplePath ?? ''
  const counterexample = run === undefined ? '' : JSON.stringify(run.message, null, 2)
  const faults = run === undefined ? [] : toolUsesOf(run.message).map((use, i) => `${use.id}: ${run.faults[i]}`)
  const report = [
    `checkToolLayer found a violation after ${details.numRuns} run(s) (shrunk ${details.numShrinks} time(s)):`,
    `  ${violation}`,
    '',
    run === undefined ? '' : `Turn (${run.mode}; faults ${faults.join(', ')}; abort at call ${run.abortAt ?? 'none'}):`,
    `await kernel.runTurn(${counterexample})`,
    '',
    `Reproduce: checkToolLayer(config, { seed: ${seed}, path: ${JSON.stringify(path)} })`,
  ].join('\n')
  return { ok: false, violation, seed, path, counterexample, report }
}
