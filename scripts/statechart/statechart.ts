/**
 * Draws a machine as a Mermaid `stateDiagram-v2`, walking `machine.root` (its `toJSON()` drops
 * eventless transitions). The diagrams in docs/statecharts are generated with this; a test
 * fails when they are stale.
 */
import type { AnyStateMachine } from 'xstate'

interface NodeLike {
  key: string
  type: string
  description?: string
  states: Record<string, NodeLike>
  entry: readonly unknown[]
  exit: readonly unknown[]
  transitions: Map<string, readonly TransitionLike[]>
  always?: readonly TransitionLike[]
  initial?: { target?: readonly NodeLike[] }
}

interface TransitionLike {
  guard?: unknown
  target?: readonly NodeLike[]
  actions: readonly unknown[]
}

export function toMermaid(machine: AnyStateMachine): string {
  const root = machine.root as unknown as NodeLike
  const lines = ['stateDiagram-v2']
  walk(root, lines, '  ')
  return lines.join('\n') + '\n'
}

function walk(node: NodeLike, lines: string[], indent: string): void {
  const initial = node.initial?.target?.[0]
  if (initial !== undefined) lines.push(`${indent}[*] --> ${initial.key}`)
  for (const child of Object.values(node.states)) {
    const notes = [
      ...(child.description === undefined ? [] : [child.description]),
      ...names(child.entry).map((a) => `entry / ${a}`),
      ...names(child.exit).map((a) => `exit / ${a}`),
    ]
    if (notes.length > 0) lines.push(`${indent}${child.key}: ${child.key}\\n${notes.join('\\n')}`)
    for (const t of child.always ?? []) lines.push(edge(indent, child.key, t, 'always'))
    for (const [event, transitions] of child.transitions) {
      for (const t of transitions) lines.push(edge(indent, child.key, t, event))
    }
    if (child.type === 'final') lines.push(`${indent}${child.key} --> [*]`)
  }
}

function edge(indent: string, from: string, t: TransitionLike, event: string): string {
  const target = t.target?.[0]?.key ?? from
  const guard = name(t.guard)
  const actions = names(t.actions)
  const label = `${event}${guard !== undefined ? ` [${guard}]` : ''}${actions.length > 0 ? ` / ${actions.join(', ')}` : ''}`
  return `${indent}${from} --> ${target}: ${label}`
}

function names(actions: readonly unknown[]): string[] {
  return actions.map(name).filter((n): n is string => n !== undefined)
}

function name(x: unknown): string | undefined {
  if (x === undefined || x === null) return undefined
  if (typeof x === 'string') return x
  if (typeof x === 'object' && 'type' in x) {
    const { type, params } = x as { type: unknown; params?: unknown }
    const p =
      params !== null && typeof params === 'object'
        ? Object.values(params as object)
            .map(String)
            .join(', ')
        : ''
    return p === '' ? String(type) : `${String(type)}(${p})`
  }
  return typeof x === 'function' ? x.name || 'inline' : undefined
}
