/** The log commands of the `toolkernel` CLI: replay, inspect, stats, timeline. */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { KernelEvent } from '../events/event.schema.js'
import { projectMessages } from '../projections/messages.projection.js'
import { callStatesAt, projectStats } from '../projections/stats.projection.js'
import { projectTimeline } from '../projections/timeline.projection.js'
import { timelineHtml } from '../projections/timeline-html.projection.js'
import type { Tool } from '../tools/tool.types.js'
import { CliError } from './load-log.js'

/** Writes one line to the terminal (main escapes every control character in it, newlines too). */
type Out = (line: string) => void

/** Text whose line breaks are formatting (JSON.stringify escapes those inside strings), line by line. */
function outLines(out: Out, text: string): void {
  for (const line of text.split('\n')) out(line)
}

const timelineRow = (row: ReturnType<typeof projectTimeline>[number]): string =>
  `${String(row.t).padStart(5)}  ${(row.toolUseId ?? '').padEnd(16)} ${row.type.padEnd(20)} ${row.detail}`

export async function replayCommand(
  events: readonly KernelEvent[],
  options: { tools?: string | undefined; quiet: boolean },
  out: Out,
): Promise<number> {
  if (!options.quiet) {
    out('Timeline (ms since each turn started):')
    for (const row of projectTimeline(events)) out(`  ${timelineRow(row)}`)
    out('')
    out('Projected messages:')
    outLines(out, JSON.stringify(projectMessages(events), null, 2))
  }
  const given = options.tools === undefined ? undefined : await loadTools(options.tools)
  // Loaded here only: replay pulls in the whole kernel, which stats, inspect and timeline do not need.
  const [{ replay }, { builtinTools }, { toolsForReplay }] = await Promise.all([
    import('../replay/replay.js'),
    import('../tools/builtin/index.js'),
    import('./stand-ins.js'),
  ])
  const { tools, standIns } = toolsForReplay(events, given, builtinTools)
  if (standIns.length > 0) {
    out('')
    out(`(${standIns.join(', ')} replayed with stand-ins built from the log; pass --tools to check the real ones)`)
  }
  const result = await replay(events, { tools })
  out('')
  if (result.ok) {
    out(`Determinism check: ok — ${result.turns} turn(s) re-executed, every decision the same.`)
    return 0
  }
  out(`Determinism check: DIVERGENCE in turn ${result.divergence.turnId} ${result.divergence.message}`)
  return 1
}

async function loadTools(path: string): Promise<Tool[]> {
  let module: { tools?: unknown; default?: unknown }
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as typeof module
  } catch (error) {
    throw new CliError(`cannot load tools from ${path}: ${(error as Error).message}`)
  }
  const tools = module.tools ?? module.default
  if (!Array.isArray(tools)) throw new CliError(`${path} must export \`tools\` (an array of tools made with buildTool)`)
  return tools as Tool[]
}

export function inspectCommand(events: readonly KernelEvent[], at: number, out: Out): number {
  const last = events.at(-1)?.seq ?? 0
  if (!Number.isInteger(at) || at < 0 || at > last) throw new CliError(`--at must be an event number from 0 to ${last}`)
  const event = events.find((e) => e.seq === at)
  out(`After event ${at}${event !== undefined ? ` (${event.type})` : ''}:`)
  const states = callStatesAt(events, at)
  if (states.length === 0) out('  no tool calls yet')
  for (const s of states)
    out(`  ${s.toolUseId.padEnd(20)} ${s.tool.padEnd(10)} ${s.state.padEnd(24)} last: ${s.lastEvent}`)
  return 0
}

export function statsCommand(events: readonly KernelEvent[], out: Out): number {
  const stats = projectStats(events)
  const fmt = (record: Record<string, number>) =>
    Object.entries(record)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ') || 'none'
  const summary = (values: number[]) => {
    if (values.length === 0) return 'n/a'
    const sorted = [...values].sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
    return `median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${sorted.at(-1)} ms`
  }
  out(`${stats.events} events, ${stats.turns} turn(s), ${stats.calls} call(s)`)
  out(`outcomes:      ${fmt(stats.byOutcome)}`)
  out(`tools:         ${fmt(stats.byTool)}`)
  out(`error classes: ${fmt(stats.errorClasses)}`)
  out(`queue wait:    ${summary(stats.timings.flatMap((t) => (t.queueMs === undefined ? [] : [t.queueMs])))}`)
  out(`execution:     ${summary(stats.timings.flatMap((t) => (t.runMs === undefined ? [] : [t.runMs])))}`)
  return 0
}

export function timelineCommand(
  events: readonly KernelEvent[],
  htmlPath: string | undefined,
  source: string,
  out: Out,
): number {
  if (htmlPath === undefined) {
    for (const row of projectTimeline(events)) out(timelineRow(row))
    return 0
  }
  writeFileSync(htmlPath, timelineHtml(events, `toolkernel timeline — ${source}`))
  out(`wrote ${htmlPath}`)
  // One file, no server: any browser opens it from disk (it loads nothing from the network).
  out(`open ${pathToFileURL(resolve(htmlPath)).href} in a browser`)
  return 0
}
