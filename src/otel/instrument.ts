/**
 * Live telemetry for a kernel: the telemetry reducer over the kernel's event stream, exported as
 * each call is answered. The parent of a turn's spans is the context active when the turn
 * started (the app's agent span, if any), captured from the `turn.started` event, which the log
 * delivers synchronously inside `runTurn` / `startTurn`.
 */
import {
  context,
  createNoopMeter,
  metrics,
  ProxyTracerProvider,
  trace,
  type Context,
  type Meter,
  type Tracer,
} from '@opentelemetry/api'
import type { KernelEvent } from '../events/event.schema.js'
import { createTelemetryReducer, type TelemetryOptions } from '../projections/telemetry.projection.js'
import { textOf } from '../tools/to-api-format.js'
import type { Tool } from '../tools/tool.types.js'
import { guarded } from '../util/guarded.js'
import { checkOptionsObject, optionNames } from '../util/known-options.js'
import { TOOLKERNEL_VERSION } from '../version.js'
import { createTelemetryExporter } from './exporter.js'

/**
 * What instrumenting needs of a kernel: its live event stream (`kernel.log.events$`), and the
 * store's stream when the log has one (a kernel over a store: its session id).
 */
export interface EventSource {
  readonly log: {
    readonly events$: { subscribe(observer: (event: KernelEvent) => void): { unsubscribe(): void } }
    readonly stream?: string | undefined
  }
}

export interface InstrumentOptions extends Omit<TelemetryOptions, 'replayed'> {
  /** Default: the global tracer provider's `toolkernel` tracer. */
  tracer?: Tracer
  /** Default: the global meter provider's `toolkernel` meter (as registered when `instrumentKernel` is called). */
  meter?: Meter
  /**
   * The conversation: `gen_ai.conversation.id` on every span, and mixed into every derived span
   * id. Default: the session of a kernel over a store (`createKernel({ store, session })`); a
   * kernel over a log of its own has none unless given here.
   */
  session?: string
  /** The context each turn hangs from. Default: the context active when the turn started. */
  parentOf?: (turnId: string) => Context | undefined
}

const INSTRUMENT_OPTIONS = optionNames<InstrumentOptions>()(
  'tracer',
  'meter',
  'session',
  'parentOf',
  'captureContent',
  'maxContentChars',
  'descriptions',
  'toolType',
)

export interface Instrumentation {
  /** Stops listening and ends turn spans still open. */
  stop(): void
}

/**
 * Reports a kernel's tool calls as OpenTelemetry spans and metrics. With no provider registered
 * (and no tracer or meter given), turns are skipped at their first event: nothing is reduced.
 *
 * @example
 * const kernel = createKernel({ tools })
 * const telemetry = instrumentKernel(kernel, { descriptions: toolDescriptions(kernel.tools) })
 * await tracer.startActiveSpan('invoke_agent', async (span) => { await kernel.runTurn(message); span.end() })
 */
export function instrumentKernel(kernel: EventSource, options: InstrumentOptions = {}): Instrumentation {
  checkOptionsObject('instrumentKernel', options, INSTRUMENT_OPTIONS)
  const tracer = options.tracer ?? trace.getTracer('toolkernel', TOOLKERNEL_VERSION)
  const meter = options.meter ?? registeredMeter()
  const captured = new Map<string, Context>()
  const session = options.session ?? kernel.log.stream
  const parentOf = options.parentOf ?? ((turnId: string) => captured.get(turnId))
  const exporter = createTelemetryExporter({
    tracer,
    ...(meter !== undefined ? { meter } : {}),
    ...(session !== undefined ? { session } : {}),
    parentOf,
  })
  const reducer = createTelemetryReducer(options)
  const skipped = new Set<string>()
  const enabled = () => options.tracer !== undefined || meter !== undefined || tracingRegistered()
  const subscription = kernel.log.events$.subscribe((event) => {
    if (event.type === 'turn.started') {
      if (!enabled()) {
        skipped.add(event.turnId)
        return
      }
      if (options.parentOf === undefined) captured.set(event.turnId, context.active())
    } else if (skipped.has(event.turnId)) {
      if (event.type === 'turn.completed') skipped.delete(event.turnId)
      return
    }
    exporter.export(reducer.apply(event))
    if (event.type === 'turn.completed') captured.delete(event.turnId)
  })
  return {
    stop() {
      subscription.unsubscribe()
      exporter.end()
    },
  }
}

/** Whether a tracer provider is registered globally (the API's proxy has a delegate). */
function tracingRegistered(): boolean {
  const provider = trace.getTracerProvider()
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer('toolkernel') !== undefined
}

function registeredMeter(): Meter | undefined {
  const meter = metrics.getMeter('toolkernel', TOOLKERNEL_VERSION)
  return meter === createNoopMeter() ? undefined : meter
}

/**
 * `gen_ai.tool.description` for each tool: its one-line `description()` for people. A tool whose
 * description reads the pool's context is asked with the kernel's defaults; one whose description
 * is asynchronous or fails gets no attribute (telemetry never fails a turn).
 */
export function toolDescriptions(tools: readonly Tool[]): Map<string, string> {
  return new Map(
    tools.flatMap((tool) => {
      const text = guarded(() => textOf(tool, 'description'), undefined)
      return text === undefined ? [] : [[tool.name, text] as const]
    }),
  )
}
