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
import type { NotChecked } from '../replay/not-checked.js'
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
  const [{ replay }, { builtinTools, planModeTools }, { toolsForReplay }] = await Promise.all([
    import('../replay/replay.js'),
    import('../tools/builtin/index.js'),
    import('./stand-ins.js'),
  ])
  // The plan-mode tools are built in too: a log that used them replays with the real ones.
  const { tools, standIns } = toolsForReplay(events, given, [...builtinTools, ...planModeTools])
  if (standIns.length > 0) {
    out('')
    out(`(${standIns.join(', ')} replayed with stand-ins built from the log; pass --tools to check the real ones)`)
  }
  if (given === undefined && !events.some((e) => e.type === 'session.configured'))
    out(
      "(the log is older than session.configured: the session's tools are guessed from its calls, and what a guess gets wrong shows as a divergence; pass --tools for a faithful replay)",
    )
  // A module's tool the log never had is not used: say so, or a misspelt name passes unnoticed.
  const unused = (given ?? []).filter((tool) => !tools.includes(tool)).map((tool) => tool.name)
  if (unused.length > 0) out(`(--tools: ${unused.join(', ')} not among this log's tools, so not used)`)
  const result = await replay(events, { tools, inputNotChecked: standIns })
  out('')
  const { inputs, previews } = reportNotChecked(result.notChecked ?? [], out)
  if (!result.ok) {
    out(`Determinism check: DIVERGENCE in turn ${result.divergence.turnId} ${result.divergence.message}`)
    return 1
  }
  const left = [
    ...(inputs === 0 ? [] : [`${inputs} input check(s)`]),
    ...(previews === 0 ? [] : [`${previews} saved output preview(s)`]),
  ]
  out(
    left.length === 0
      ? `Determinism check: ok — ${result.turns} turn(s) re-executed, every decision the same.`
      : `Determinism check: ok — checked what could be checked: ${result.turns} turn(s) re-executed, every decision checked the same; ${left.join(' and ')} left to the log.`,
  )
  // Exit 0 either way: nothing that was checked diverged, and what was not is listed above.
  return 0
}

const CHECKED_AT: Record<string, string> = {
  validate: 'input validation',
  preHook: "input validation of a pre-hook's rewritten input",
  permission: "input validation of a permission answer's rewritten input",
}

/**
 * The checks replay left to the log, one line each: the previews of saved output it could not read
 * back, and the input checks the stand-ins could not make, with what the log says they found.
 * Returns how many of each.
 */
function reportNotChecked(items: readonly NotChecked[], out: Out): { inputs: number; previews: number } {
  const where = (item: NotChecked) => `${item.toolUseId} ${item.tool} (turn ${item.turnId}, event ${item.position})`
  const previews = items.filter((item) => item.step === 'budget')
  const inputs = items.filter((item) => item.step !== 'budget')
  if (previews.length > 0) {
    out('Not checked — previews of output replay could not read back (replay where the result store is):')
    for (const item of previews) out(`  not checked: ${where(item)}: ${item.message}`)
    out('')
  }
  if (inputs.length > 0) {
    out('Not checked — pass --tools to check:')
    for (const item of inputs) {
      const found = item.message.replace(/\s*\n\s*/g, ' ')
      const shown = found.length > 200 ? `${found.slice(0, 200)}…` : found
      const check = CHECKED_AT[item.step] ?? `input validation (${item.step})`
      out(`  not checked: ${where(item)}: ${check} — the log says: ${shown}`)
    }
    out('')
  }
  return { inputs: inputs.length, previews: previews.length }
}

/**
 * The app's real tools, from a module that exports them: `export const tools = [...]` (or a
 * default export of the array), each made with buildTool.
 */
async function loadTools(path: string): Promise<Tool[]> {
  let module: { tools?: unknown; default?: unknown }
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as typeof module
  } catch (error) {
    throw new CliError(`cannot load tools from ${path}: ${(error as Error).message}`)
  }
  const tools = module.tools ?? module.default
  if (!Array.isArray(tools))
    throw new CliError(
      `${path} must export \`tools\`, an array of tools made with buildTool (export const tools = [...]); it exports ${exportsOf(module)}`,
    )
  tools.forEach((tool: unknown, i) => {
    const problem = notATool(tool)
    if (problem !== undefined) {
      const name =
        typeof (tool as { name?: unknown } | null)?.name === 'string'
          ? ` (${JSON.stringify((tool as { name: string }).name)})`
          : ''
      throw new CliError(`${path}: tools[${i}]${name} is not a tool made with buildTool: ${problem}`)
    }
  })
  return tools as Tool[]
}

function exportsOf(module: object): string {
  const names = Object.keys(module)
  return names.length === 0 ? 'nothing' : names.join(', ')
}

/** What a tool made with buildTool has and `value` lacks, or undefined. */
function notATool(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return `it is ${value === null ? 'null' : typeof value}`
  const tool = value as Record<string, unknown>
  if (typeof tool.name !== 'string') return 'it has no name'
  const missing = ['call', 'checkPermissions', 'isConcurrencySafe', 'mapToolResultToToolResultBlockParam'].filter(
    (key) => typeof tool[key] !== 'function',
  )
  return missing.length === 0 ? undefined : `it has no ${missing.join(', ')}`
}

/**
 * Each call's state after event `at` (a seq, as given on the command line), or after the last
 * event when `at` is undefined: each call's final state.
 */
export function inspectCommand(events: readonly KernelEvent[], at: string | undefined, out: Out): number {
  const last = events.at(-1)?.seq ?? 0
  if (at !== undefined && !(/^\d+$/.test(at) && Number(at) <= last))
    throw new CliError(`--at must be an event number from 0 to ${last}, got ${JSON.stringify(at)}`)
  const seq = at === undefined ? last : Number(at)
  const event = events.find((e) => e.seq === seq)
  const end = at === undefined ? ', the end of the log' : ''
  out(`After event ${seq}${event !== undefined ? ` (${event.type})` : ''}${end}:`)
  const states = callStatesAt(events, seq)
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
  if (Object.keys(stats.childCalls).length > 0)
    out(`subagent calls, by the call they ran under: ${fmt(stats.childCalls)}`)
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
