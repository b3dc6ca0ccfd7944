/**
 * `toolkernel export <log>`: a stored log to the tools people already run — OTLP over HTTP (a
 * collector, Jaeger, Tempo, Honeycomb …) and the Trace Event format Perfetto and Chrome open.
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { EVENT_VERSION, type KernelEvent } from '../events/event.schema.js'
import { projectTelemetry, type TelemetryOptions } from '../projections/telemetry.projection.js'
import { recover } from '../events/recovery.js'
import { argumentProblem } from './arguments.js'
import { EXPORT_HELP } from './help.js'
import { CliError, loadEvents } from './load-log.js'
import type { exportToOtlp as ExportToOtlp } from '../adapters/otlp-export.js'

const OTLP_PACKAGES =
  '@opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/resources @opentelemetry/exporter-trace-otlp-http'

const OPTIONS = {
  otlp: { type: 'string' },
  'chrome-trace': { type: 'string' },
  session: { type: 'string' },
  content: { type: 'boolean' },
  header: { type: 'string', multiple: true },
  'skip-corrupt': { type: 'boolean' },
} as const

/** Runs the command; returns the exit code (2 for a usage error, 1 when the receiver fails). */
export async function exportCommand(
  args: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    err(`toolkernel export: ${argumentProblem('export', error as Error)}`)
    return 2
  }
  const { values, positionals } = parsed
  const usage = usageError(positionals, values)
  if (usage !== undefined) {
    err(`toolkernel export: ${usage}\n\n${EXPORT_HELP}`)
    return 2
  }
  try {
    const path = positionals[0] as string
    const events = closed(await loadEvents(path, { skipCorrupt: values['skip-corrupt'] === true, err }))
    const options: TelemetryOptions = values.content === true ? { captureContent: true } : {}
    const records = projectTelemetry(events, options)
    const calls = records.spans.filter((span) => span.kind === 'call').length
    if (values['chrome-trace'] !== undefined) await writeChromeTrace(values['chrome-trace'], records, out)
    if (values.otlp !== undefined) return await sendOtlp(values.otlp, records, calls, values, out, err)
    return 0
  } catch (error) {
    if (!(error instanceof CliError)) throw error
    err(`toolkernel export: ${error.message}`)
    return 2
  }
}

function usageError(positionals: string[], values: { otlp?: string; 'chrome-trace'?: string; header?: string[] }) {
  if (positionals.length !== 1) return 'give exactly one log file'
  if (values.otlp === undefined && values['chrome-trace'] === undefined)
    return 'say where to export: --otlp URL, --chrome-trace FILE, or both'
  if (values.otlp !== undefined && !/^https?:\/\/[^/]/.test(values.otlp))
    return `--otlp needs an http(s) URL such as http://127.0.0.1:4318, got ${JSON.stringify(values.otlp)}`
  const bad = (values.header ?? []).find((header) => !/^[^=\s]+=/.test(header))
  if (bad !== undefined) return `--header must be NAME=VALUE, got ${JSON.stringify(bad)}`
  return undefined
}

/** A log cut off mid-turn (a crash) gets its open calls closed as recovery would, so every call has a span. */
function closed(events: KernelEvent[]): KernelEvent[] {
  const last = events.at(-1)
  if (last === undefined) return events
  const stamped = recover(events).map(
    (event, i) => ({ ...event, v: EVENT_VERSION, seq: last.seq + 1 + i, at: last.at }) as KernelEvent,
  )
  return stamped.length === 0 ? events : [...events, ...stamped]
}

function writeChromeTrace(path: string, records: ReturnType<typeof projectTelemetry>, out: (line: string) => void) {
  return import('../otel/chrome-trace.js').then(({ chromeTrace }) => {
    const trace = chromeTrace(records)
    try {
      writeFileSync(path, JSON.stringify(trace))
    } catch (error) {
      throw new CliError(`cannot write ${path}: ${(error as Error).message}`)
    }
    out(
      `wrote ${path} (${trace.traceEvents.length} trace events; open it in https://ui.perfetto.dev or chrome://tracing)`,
    )
  })
}

async function sendOtlp(
  url: string,
  records: ReturnType<typeof projectTelemetry>,
  calls: number,
  values: { session?: string; header?: string[] },
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  let exportToOtlp: typeof ExportToOtlp
  try {
    ;({ exportToOtlp } = await import('../adapters/otlp-export.js'))
  } catch (error) {
    // The SDK packages are optional: an app that never exports to OTLP does not install them.
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error
    err(
      `toolkernel export: --otlp needs the OpenTelemetry SDK (${(error as Error).message.split('\n')[0]}). Install it with: npm install ${OTLP_PACKAGES}`,
    )
    return 2
  }
  const headers = Object.fromEntries(
    (values.header ?? []).map((h) => [h.slice(0, h.indexOf('=')), h.slice(h.indexOf('=') + 1)]),
  )
  try {
    const sent = await exportToOtlp(records, {
      url,
      ...(values.header !== undefined ? { headers } : {}),
      ...(values.session !== undefined ? { session: values.session } : {}),
    })
    out(`sent ${sent.spans} spans (${calls} tool calls) to ${sent.endpoint}`)
    return 0
  } catch (error) {
    err(`toolkernel export: ${(error as Error).message}`)
    return 1
  }
}
