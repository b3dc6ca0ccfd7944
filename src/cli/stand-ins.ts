/**
 * Tools for replaying a log whose tools this process does not have: each stand-in answers the
 * kernel's questions (safety, interrupt behaviour, its own permission verdict) as the log recorded
 * them for the same input. Replay with the real tools (`--tools`) to check them too.
 */
import { buildTool } from '../tools/build-tool.js'
import type { Tool } from '../tools/tool.types.js'
import type { EventOf, KernelEvent } from '../events/event.schema.js'
import { schemaFingerprint, type ToolManifest } from '../tools/tool-manifest.js'
import { canonicalJson } from '../util/canonical-json.js'
import { callKey } from '../events/call-key.js'

/**
 * The tools to replay a log with. A log that records its session's tools (session.configured)
 * replays with exactly those: an app's own tool named like a built-in (`Read`) is not the
 * built-in unless its schema fingerprint says so, and tools the log never had are not offered.
 * `given` (the app's real tools, `--tools`) win by name. Older logs fall back to the tools given
 * or built in, plus stand-ins for the rest.
 */
export function toolsForReplay(
  events: readonly KernelEvent[],
  given: readonly Tool[] | undefined,
  builtins: readonly Tool[],
): { tools: Tool[]; standIns: string[] } {
  const configured = events.find((e): e is EventOf<'session.configured'> => e.type === 'session.configured')
  if (configured === undefined) {
    const known = [...(given ?? builtins)]
    const stand = standIns(events, known)
    return { tools: [...known, ...stand], standIns: stand.map((t) => t.name) }
  }
  const byName = new Map((given ?? []).map((t) => [t.name, t]))
  const builtin = new Map(builtins.map((t) => [t.name, t]))
  const tools: Tool[] = []
  const stood: string[] = []
  for (const manifest of configured.tools) {
    const real = byName.get(manifest.name) ?? builtin.get(manifest.name)
    if (real !== undefined && (byName.has(manifest.name) || schemaFingerprint(real) === manifest.schema)) {
      tools.push(real)
      continue
    }
    tools.push(standIn(events, manifest.name, manifest))
    stood.push(manifest.name)
  }
  return { tools, standIns: stood }
}

export function standIns(events: readonly KernelEvent[], known: readonly Tool[]): Tool[] {
  const have = new Set(known.flatMap((t) => [t.name, ...t.aliases]))
  const parsed = new Set<string>()
  for (const e of events) if (e.type === 'tool.parsed') parsed.add(e.tool)
  return [...parsed].filter((name) => !have.has(name)).map((name) => standIn(events, name))
}

/** What the log recorded of one tool's answers, by input. */
function answersOf(events: readonly KernelEvent[], names: ReadonlySet<string>) {
  const inputs = new Map<string, unknown>()
  const safe = new Map<string, boolean>()
  let interrupt: 'cancel' | 'block' | undefined
  const verdict = new Map<string, { behavior: 'allow' | 'deny' | 'ask'; message: string }>()
  for (const e of events) {
    if (e.type === 'tool.requested' && names.has(e.name)) inputs.set(callKey(e.turnId, e.toolUseId), e.input)
    if (!('toolUseId' in e)) continue
    const input = inputs.get(callKey(e.turnId, e.toolUseId))
    if (!inputs.has(callKey(e.turnId, e.toolUseId))) continue
    const key = canonicalJson(input)
    if (e.type === 'tool.queued') safe.set(key, e.safe)
    if (e.type === 'tool.started') interrupt = e.interrupt
    if (e.type === 'tool.permitted' && e.source === 'tool')
      verdict.set(key, { behavior: e.behavior, message: e.reason ?? '' })
  }
  return { safe, interrupt, verdict }
}

function standIn(events: readonly KernelEvent[], name: string, manifest?: ToolManifest): Tool {
  const { safe, interrupt, verdict } = answersOf(events, new Set([name, ...(manifest?.aliases ?? [])]))
  return buildTool({
    name,
    aliases: manifest?.aliases ?? [],
    description: () => `stand-in for ${name}, built from the log`,
    inputJSONSchema: { type: 'object' },
    isConcurrencySafe: (input) => safe.get(canonicalJson(input)) === true,
    interruptBehavior: () => manifest?.interrupt ?? interrupt ?? 'block',
    cascadesOnFailure: manifest?.cascades ?? false,
    checkPermissions: (input) => {
      const v = verdict.get(canonicalJson(input))
      return v === undefined || v.behavior === 'allow'
        ? { behavior: 'allow' }
        : { behavior: v.behavior, message: v.message }
    },
    call: async () => undefined,
  })
}
