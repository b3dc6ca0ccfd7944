/**
 * The app's tools with a probe around each call: what started when, what ran beside it, whether
 * it stopped when told to — and the faults `checkToolLayer` injects (a throw, a hang that only
 * an abort ends, output far past any budget).
 */
import type { HooksConfig } from '../hooks/config.js'
import type { Tool, ToolContext } from '../tools/tool.types.js'
import { guarded } from '../util/guarded.js'

/** What `checkToolLayer` does instead of (or around) one call of the app's tool. */
export type Fault = 'none' | 'throw' | 'hang' | 'huge'

/** One call as the probe saw it. */
export interface ProbedCall {
  readonly toolUseId: string
  readonly name: string
  readonly input: unknown
  /** The tool's own claim for this input (false when the predicate threw). */
  readonly safe: boolean
  readonly fault: Fault
  readonly interruptBehavior: 'cancel' | 'block'
  /** The call's signal fired while it ran. */
  aborted: boolean
  /** The tool's call had returned or thrown. */
  settled: boolean
}

/** The probe of one run: the calls, in start order, and what broke the rules of running. */
export interface Probe {
  readonly calls: ProbedCall[]
  readonly violations: string[]
  /** Called as each call starts (the harness aborts the turn at a chosen start). */
  onStart?: (call: ProbedCall, index: number) => void
}

const HUGE_OUTPUT_CHARS = 400_000

/**
 * Wraps `tools` so every call goes through the probe. `faultOf` decides, per call, what happens
 * instead of the tool's own call (its id → a fault; 'none' runs the real tool).
 */
export function instrumentTools(
  tools: readonly Tool[],
  cap: number,
  faultOf: (toolUseId: string) => Fault,
): { tools: Tool[]; probe: Probe } {
  const probe: Probe = { calls: [], violations: [] }
  const running = new Map<string, ProbedCall>()
  const wrap = (tool: Tool): Tool => {
    const wrapped = Object.create(tool) as Tool
    const call = (input: unknown, context: ToolContext): AsyncGenerator<unknown, unknown, void> | Promise<unknown> => {
      const probed: ProbedCall = {
        toolUseId: context.toolUseId,
        name: tool.name,
        input,
        // The same analyses the kernel's scheduler handed the predicate (Bash's read-only verdict).
        safe: guarded(() => tool.isConcurrencySafe(input, { shell: context.ports.shell }) === true, false),
        fault: faultOf(context.toolUseId),
        interruptBehavior: guarded(() => tool.interruptBehavior() === 'cancel', false) ? 'cancel' : 'block',
        aborted: false,
        settled: false,
      }
      overlapCheck(probe, running, probed, cap)
      running.set(probed.toolUseId, probed)
      probe.calls.push(probed)
      context.signal.addEventListener('abort', () => (probed.aborted = true), { once: true })
      const done = (): void => {
        probed.settled = true
        running.delete(probed.toolUseId)
      }
      try {
        probe.onStart?.(probed, probe.calls.length - 1)
        if (probed.fault !== 'none') return withFault(tool, probed.fault, context).finally(done)
        const result = tool.call(input, context)
        if (Symbol.asyncIterator in result) return probedGenerator(result, done)
        return Promise.resolve(result).finally(done)
      } catch (error) {
        done()
        return Promise.reject(error instanceof Error ? error : new Error(String(error)))
      }
    }
    Object.defineProperty(wrapped, 'call', { value: call, enumerable: true })
    return wrapped
  }
  return { tools: tools.map(wrap), probe }
}

function overlapCheck(probe: Probe, running: Map<string, ProbedCall>, call: ProbedCall, cap: number): void {
  const others = [...running.values()]
  if (others.length >= cap) probe.violations.push(`${call.name} (${call.toolUseId}) started with ${cap} calls running`)
  if (!call.safe && others.length > 0)
    probe.violations.push(
      `${call.name} (${call.toolUseId}) is not concurrency-safe but ran beside ${others.map((o) => o.toolUseId).join(', ')}`,
    )
  const unsafe = others.find((o) => !o.safe)
  if (call.safe && unsafe !== undefined)
    probe.violations.push(`${call.name} (${call.toolUseId}) ran beside the unsafe call ${unsafe.toolUseId}`)
}

async function withFault(tool: Tool, fault: Exclude<Fault, 'none'>, context: ToolContext): Promise<unknown> {
  switch (fault) {
    case 'throw':
      throw new Error(`fault injected by checkToolLayer into ${tool.name}`)
    case 'huge':
      return 'x'.repeat(HUGE_OUTPUT_CHARS)
    case 'hang':
      // Only an abort ends it, as with a tool stuck on the network; it does honour its signal.
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) resolve()
        context.signal.addEventListener('abort', () => resolve(), { once: true })
      })
      throw new Error(`${tool.name} was stopped (fault injected by checkToolLayer)`)
  }
}

/** A generator tool's progress and result, passed through as they are; `done` when it ends. */
async function* probedGenerator(
  inner: AsyncGenerator<unknown, unknown, void>,
  done: () => void,
): AsyncGenerator<unknown, unknown, void> {
  try {
    return yield* inner
  } finally {
    done()
  }
}

/** One function hook run, as the probe saw it. */
export interface ProbedHook {
  readonly label: string
  readonly toolUseId: string | undefined
  /** The hook's signal fired (its timeout, or the call's abort). */
  aborted: boolean
  settled: boolean
}

/**
 * Wraps every function hook of `hooks` so the probe sees when each run starts and stops (command
 * hooks are processes the kernel kills itself). Returns the hooks as given when there are none.
 */
export function instrumentHooks(hooks: HooksConfig | undefined, runs: ProbedHook[]): HooksConfig | undefined {
  if (hooks === undefined) return undefined
  const out: Record<string, unknown> = {}
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      out[event] = groups
      continue
    }
    out[event] = groups.map((group, g) => ({
      ...group,
      hooks: group.hooks.map((hook, h) => {
        if (hook.type !== 'function') return hook
        const label = `${event}[${g}].hooks[${h}]${hook.name !== undefined ? ` (${hook.name})` : ''}`
        const fn: typeof hook.fn = (input, options) => {
          const run: ProbedHook = { label, toolUseId: input.tool_use_id, aborted: false, settled: false }
          runs.push(run)
          options.signal.addEventListener('abort', () => (run.aborted = true), { once: true })
          return Promise.resolve()
            .then(() => hook.fn(input, options))
            .finally(() => (run.settled = true))
        }
        return { ...hook, fn }
      }),
    }))
  }
  return out as HooksConfig
}
