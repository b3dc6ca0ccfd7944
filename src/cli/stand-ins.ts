/**
 * Tools for replaying a log whose tools this process does not have: each stand-in answers the
 * kernel's questions (safety, interrupt behaviour, its own permission verdict) as the log recorded
 * them for the same input. Replay with the real tools (`--tools`) to check them too.
 */
import { buildTool } from '../tools/build-tool.js'
import type { Tool } from '../tools/tool.types.js'
import type { KernelEvent } from '../events/event.schema.js'
import { canonicalJson } from '../permissions/grants.js'

export function standIns(events: readonly KernelEvent[], known: readonly Tool[]): Tool[] {
  const have = new Set(known.flatMap((t) => [t.name, ...t.aliases]))
  const inputs = new Map<string, { name: string; input: unknown }>()
  const safe = new Map<string, boolean>()
  const interrupt = new Map<string, 'cancel' | 'block'>()
  const verdict = new Map<string, { behavior: 'allow' | 'deny' | 'ask'; message: string }>()
  const parsed = new Set<string>()
  for (const e of events) {
    if (e.type === 'tool.requested') inputs.set(e.toolUseId, { name: e.name, input: e.input })
    if (e.type === 'tool.parsed') parsed.add(e.tool)
    const call = 'toolUseId' in e ? inputs.get(e.toolUseId) : undefined
    if (call === undefined) continue
    const key = `${call.name}\u0000${canonicalJson(call.input)}`
    if (e.type === 'tool.queued') safe.set(key, e.safe)
    if (e.type === 'tool.started') interrupt.set(call.name, e.interrupt)
    if (e.type === 'tool.permitted' && e.source === 'tool')
      verdict.set(key, { behavior: e.behavior, message: e.reason ?? '' })
  }
  return [...parsed]
    .filter((name) => !have.has(name))
    .map((name) =>
      buildTool({
        name,
        description: () => `stand-in for ${name}, built from the log`,
        inputJSONSchema: { type: 'object' },
        isConcurrencySafe: (input) => safe.get(`${name}\u0000${canonicalJson(input)}`) === true,
        interruptBehavior: () => interrupt.get(name) ?? 'block',
        checkPermissions: (input) => {
          const v = verdict.get(`${name}\u0000${canonicalJson(input)}`)
          return v === undefined || v.behavior === 'allow'
            ? { behavior: 'allow' }
            : { behavior: v.behavior, message: v.message }
        },
        call: async () => undefined,
      }),
    )
}
