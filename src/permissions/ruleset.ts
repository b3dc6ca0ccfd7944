/** A set of allow / ask / deny rules, checked against one call. */
import { dirname } from 'node:path'
import { guarded } from '../util/guarded.js'
import type { Tool } from '../tools/tool.types.js'
import {
  commandParts,
  insideOf,
  matchesCommand,
  matchesPath,
  namesTool,
  parseRule,
  type PermissionRule,
  type RuleBehavior,
} from './rules.js'

export interface RuleConfig {
  allow?: readonly string[]
  ask?: readonly string[]
  deny?: readonly string[]
}

export interface RuleSet {
  readonly allow: readonly PermissionRule[]
  readonly ask: readonly PermissionRule[]
  readonly deny: readonly PermissionRule[]
}

export interface RuleMatch {
  behavior: RuleBehavior
  rule: string
}

/**
 * Parses every rule and checks that its specifier fits its tool.
 *
 * @throws Error for a rule that does not parse, or a specifier on a tool that takes none.
 */
export function compileRules(config: RuleConfig = {}, tools: readonly Tool[] = []): RuleSet {
  const byName = new Map(tools.map((t) => [t.name, t]))
  const compile = (behavior: RuleBehavior) =>
    (config[behavior] ?? []).map((source) => {
      if (typeof source !== 'string')
        throw new Error(`permissions.${behavior} must list rule strings, got ${JSON.stringify(source)}`)
      const rule = parseRule(source, behavior)
      const tool = byName.get(rule.tool)
      if (rule.specifier !== undefined && tool !== undefined && !isCommandTool(tool) && tool.getPath === undefined) {
        throw new Error(
          `permission rule ${JSON.stringify(source)} (${behavior}): ${tool.name} takes no specifier (it has no path or command); write ${tool.name} alone`,
        )
      }
      return rule
    })
  return { allow: compile('allow'), ask: compile('ask'), deny: compile('deny') }
}

const isCommandTool = (tool: Tool): boolean => tool.name === 'Bash'

/** The rule that decides this call: deny beats ask beats allow. */
export function matchRules(rules: RuleSet, tool: Tool, input: unknown, cwd: string): RuleMatch | undefined {
  for (const behavior of ['deny', 'ask'] as const) {
    const hit = rules[behavior].find((rule) => matchesAny(rule, tool, input, cwd))
    if (hit !== undefined) return { behavior, rule: hit.source }
  }
  const allowed = allowedBy(rules.allow, tool, input, cwd)
  return allowed === undefined ? undefined : { behavior: 'allow', rule: allowed }
}

/** Deny and ask rules match a compound command when any part (or the whole) matches. */
function matchesAny(rule: PermissionRule, tool: Tool, input: unknown, cwd: string): boolean {
  if (!namesTool(rule, tool.name)) return false
  if (rule.specifier === undefined) return true
  const command = commandOf(tool, input)
  if (command !== undefined) {
    const parts = commandParts(command) ?? []
    return [command, ...parts].some((part) => matchesCommand(rule.specifier as string, part))
  }
  const path = pathOf(tool, input)
  return path !== undefined && matchesPath(rule.specifier, path, cwd)
}

/**
 * An allow rule matches a compound command only if every part is allowed (by one allow rule or
 * another); a command that does not split safely is never allowed by a specifier rule.
 */
function allowedBy(rules: readonly PermissionRule[], tool: Tool, input: unknown, cwd: string): string | undefined {
  const mine = rules.filter((r) => namesTool(r, tool.name))
  const whole = mine.find((r) => r.specifier === undefined)
  if (whole !== undefined) return whole.source
  const command = commandOf(tool, input)
  if (command !== undefined) {
    const parts = commandParts(command)
    if (parts === undefined) return undefined
    const used = parts.map((part) => mine.find((r) => matchesCommand(r.specifier as string, part)))
    return used.every((r) => r !== undefined)
      ? [...new Set(used.map((r) => (r as PermissionRule).source))].join(', ')
      : undefined
  }
  const path = pathOf(tool, input)
  if (path === undefined) return undefined
  return mine.find((r) => matchesPath(r.specifier as string, path, cwd))?.source
}

function commandOf(tool: Tool, input: unknown): string | undefined {
  if (!isCommandTool(tool) || typeof input !== 'object' || input === null) return undefined
  const command = (input as { command?: unknown }).command
  return typeof command === 'string' ? command : undefined
}

/** The path a call refers to (the tool's `getPath`), undefined when it has none or the tool throws. */
export function pathOf(tool: Tool, input: unknown): string | undefined {
  return guarded(() => tool.getPath?.(input), undefined)
}

const MULTI_WORD = new Set([
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'git',
  'cargo',
  'go',
  'pip',
  'docker',
  'kubectl',
  'make',
  'bun',
  'deno',
])

/** Rules a user might add to allow this call next time (shown with an "ask"). */
export function suggestRules(tool: Tool, input: unknown, cwd: string): string[] {
  const command = commandOf(tool, input)
  if (command !== undefined) {
    const words = commandParts(command)?.[0]?.split(' ') ?? []
    if (words.length === 0) return []
    // `npm run test`, `git commit`: the subcommand is part of what the user would allow.
    const prefix = words.slice(0, MULTI_WORD.has(words[0] as string) ? 2 : 1).join(' ')
    return [`Bash(${prefix}:*)`, `Bash(${command})`]
  }
  const path = pathOf(tool, input)
  if (path !== undefined) {
    const dir = dirname(path)
    const rel = insideOf(cwd, dir)
    if (rel === undefined) return [`${tool.name}(${dir}/**)`]
    return rel === '' ? [`${tool.name}(./**)`] : [`${tool.name}(./${rel}/**)`]
  }
  return [tool.name]
}

/** A tool a deny rule names without a specifier: never offered to the model. */
export function deniedOutright(rules: RuleSet, tool: Tool): boolean {
  return rules.deny.some((rule) => rule.specifier === undefined && namesTool(rule, tool.name))
}
